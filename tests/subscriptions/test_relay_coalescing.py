"""Coalesced relays lose nothing (issue 14): a writer process commits changes one by one as fast as it can,
with a real Redis broker and a real Celery worker and *no beat*, so only the relays its commits queue can
move events. While a relay is pending, commits queue none (subscriptions/relay_flag.py); every change must
still reach the sink, once, and fewer relay tasks than commits must have been queued. (A flag never released
strands the last events and fails this; the order "release, then read the outbox" is argued in relay_flag's
docstring: a race at the last commit is too narrow to provoke reliably here.)"""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from django.db import connection

from subscriptions.models import Delivery
from tests.harness import services

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
CHANGES = 60

WRITER = textwrap.dedent(f"""
    import django
    django.setup()
    from registry import services
    from registry.services import WriteContext
    from subscriptions import relay_flag
    queued = 0
    claim = relay_flag.claim
    def counting_claim():
        global queued
        answer = claim()
        queued += answer
        return answer
    relay_flag.claim = counting_claim
    for n in range({CHANGES}):
        services.put_group(ctx=WriteContext(user="writer", base_url="http://registry.test"),
                           address=services.EntityAddress("schemaGroups", f"coalesced-{{n}}"), data={{}})
    print("queued", queued)
""")


def test_commits_in_a_row_are_all_delivered_with_fewer_relays(su, sink, settings):
    if connection.vendor != "postgresql":
        pytest.skip("the worker shares the test database: run with REGISTRY_TEST_DB=postgres")
    if not services.redis_available():
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail("REQUIRE_SERVICES=1 but redis-server is not installed")
        pytest.skip("redis-server is not installed")
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    response = su.post("/subscriptions", {"protocol": "HTTP", "sink": sink.url}, format="json")
    assert response.status_code == 201, response.content
    subscription_id = response.json()["id"]

    redis = services.start_redis()
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": redis.url,
        "REGISTRY_ALLOW_PRIVATE_SINKS": "1",
        "REGISTRY_WEBHOOK_HANDSHAKE": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONPATH": str(ROOT),
    }
    worker = services.start_process(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "registry",
            "worker",
            "-P",
            "threads",
            "-c",
            "2",
            "--without-gossip",
            "--without-mingle",
            "-l",
            "warning",
        ],
        env,
        cwd=str(ROOT),
    )
    try:
        out = subprocess.run(
            [sys.executable, "-c", WRITER], env=env, cwd=str(ROOT), capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr[-3000:]
        queued = int(out.stdout.split("queued")[-1])

        expected = {f"/schemaGroups/coalesced-{n}" for n in range(CHANGES)}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            delivered = set(
                Delivery.objects.filter(subscription_id=subscription_id, status="delivered").values_list(
                    "event__subject", flat=True
                )
            )
            if expected <= delivered:
                break
            time.sleep(0.2)
        assert expected <= delivered, f"not delivered: {sorted(expected - delivered)[:5]}..."
        posted = [e["subject"] for e in sink.events()]
        assert sorted(posted) == sorted(expected)  # once each
        assert 1 <= queued < CHANGES, queued  # coalesced: commits while a relay was pending queued none
    finally:
        worker.kill()
        redis.stop()
