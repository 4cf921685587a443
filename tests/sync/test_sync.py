"""Sync between two live instances of this server: a remote (a subprocess with its own database) and this
one (pytest-django's live server). Pull on demand and on the remote's change events."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from registry.models import Group, Resource, Version
from sync.models import SyncSource
from sync.services import run_sync, subscribe
from tests.helpers import snapshot

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def remote(tmp_path, settings):
    """Another instance of this server: migrated SQLite, a superuser token, runserver on a free port (on
    loopback: this instance allows private addresses for the test)."""
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    port = free_port()
    env = {
        **os.environ,
        "REGISTRY_VAR_DIR": str(tmp_path),
        "SQLITE_PATH": str(tmp_path / "remote.sqlite3"),
        "REGISTRY_ALLOW_PRIVATE_SINKS": "1",
        "REGISTRY_BASE_URL": f"http://127.0.0.1:{port}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    env.pop("DATABASE_URL", None)
    env.pop("CELERY_BROKER_URL", None)
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True, capture_output=True)
    token = subprocess.run(
        [
            python,
            "-c",
            "import django; django.setup(); from django.contrib.auth.models import User; "
            "from rest_framework.authtoken.models import Token; "
            "u = User.objects.create_superuser('remote', 'r@example.com', 'pw'); "
            "print(Token.objects.create(user=u).key)",
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    log = (tmp_path / "remote.log").open("wb")
    server = subprocess.Popen(
        [python, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env={**env, "DJANGO_LOG_LEVEL": "INFO"},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(base + "/", timeout=1)
            break
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                server.kill()
                raise
            time.sleep(0.2)
    client = httpx.Client(base_url=base, headers={"Authorization": f"Token {token}"}, timeout=30)
    yield client, token
    client.close()
    server.terminate()
    server.wait(timeout=10)


def make_schema(client, group, schema, properties):
    assert client.put(f"/schemaGroups/{group}", json={"description": "from the remote"}).status_code in (200, 201)
    body = {"type": "object", "properties": properties}
    response = client.put(
        f"/schemaGroups/{group}/schemas/{schema}", json=body, headers={"Registry-format": "JsonSchema/draft-07"}
    )
    assert response.status_code in (200, 201), response.text


def test_pull_sync_creates_updates_and_deletes(superuser, remote, settings):
    client, token = remote
    make_schema(client, "orders", "OrderPlaced", {"id": {"type": "string"}})
    source = SyncSource.objects.create(
        name="remote", base_url=str(client.base_url).rstrip("/"), token=token, owner=superuser
    )
    run = run_sync(source)
    assert run.status == "ok", run.error
    group = Group.objects.get(group_type="schemaGroups", gid="orders")
    assert group.description == "from the remote" and group.origin == source.origin
    assert Version.objects.filter(resource__rid="OrderPlaced").count() == 1

    assert client.put("/schemaGroups/orders", json={"description": "changed remotely"}).status_code == 200
    client.post(
        "/schemaGroups/orders/schemas/OrderPlaced",
        json={"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"}}},
    )
    run = run_sync(source)
    assert run.status == "ok" and run.updated >= 1 and run.created >= 1, run.error
    group.refresh_from_db()
    assert group.description == "changed remotely"
    assert Version.objects.filter(resource__rid="OrderPlaced").count() == 2

    assert client.delete("/schemaGroups/orders/schemas/OrderPlaced").status_code == 200
    run = run_sync(source)
    assert run.deleted == 1, run.error
    assert not Resource.objects.filter(rid="OrderPlaced").exists()
    assert client.delete("/schemaGroups/orders").status_code == 200
    run_sync(source)
    assert not Group.objects.filter(gid="orders").exists()


def test_local_edits_to_synced_entities_are_refused(superuser, remote, django_user_model):
    from rest_framework.test import APIClient

    client, token = remote
    make_schema(client, "billing", "Invoice", {"id": {"type": "string"}})
    source = SyncSource.objects.create(
        name="remote", base_url=str(client.base_url).rstrip("/"), token=token, owner=superuser
    )
    assert run_sync(source).status == "ok"
    local = APIClient()
    local.force_authenticate(django_user_model.objects.create_superuser("local", "l@example.com", "pw"))
    before = snapshot()
    response = local.put("/schemaGroups/billing", {"description": "local edit"}, format="json")
    assert response.status_code == 409
    assert "synced from" in response.json()["detail"]
    assert local.delete("/schemaGroups/billing/schemas/Invoice").status_code == 409
    assert snapshot() == before


def test_event_driven_sync(superuser, remote, live_server, settings):
    client, token = remote
    settings.REGISTRY_BASE_URL = live_server.url
    source = SyncSource.objects.create(
        name="remote",
        base_url=str(client.base_url).rstrip("/"),
        token=token,
        subscribe=True,
        interval_seconds=3600,
        owner=superuser,
    )
    from sync.admin import webhook_url

    subscribe(source, webhook_url(source))
    subscription = client.get(f"/subscriptions/{source.remote_subscription_id}").json()
    assert subscription["status"] == "active"  # our webhook answered the handshake
    make_schema(client, "events", "Ping", {"id": {"type": "string"}})
    deadline = time.monotonic() + 30
    while not Version.objects.filter(resource__rid="Ping").exists():
        assert time.monotonic() < deadline, f"the change event did not trigger a pull: {list(source.runs.values())}"
        time.sleep(0.2)
    assert source.runs.filter(trigger="event", status="ok").exists()


def test_pull_sync_from_an_xregistry_10_server(superuser, remote):
    """A source may be any xRegistry 1.0 server: here the remote instance's `/registry` binding."""
    client, token = remote
    assert (
        client.put(
            "/registry/messagegroups/shop",
            json={
                "envelope": "CloudEvents/1.0",
                "messages": {
                    "OrderPlaced": {
                        "envelope": "CloudEvents/1.0",
                        "envelopemetadata": {"type": {"value": "shop.order"}},
                    }
                },
            },
        ).status_code
        == 201
    )
    assert (
        client.put(
            "/registry/schemagroups/shop/schemas/Order",
            content=b'{"type": "object"}',
            headers={"Content-Type": "application/json", "xRegistry-format": "JsonSchema/draft-07"},
        ).status_code
        == 201
    )
    source = SyncSource.objects.create(
        name="remote10", base_url=str(client.base_url).rstrip("/") + "/registry", token=token, owner=superuser
    )
    run = run_sync(source)
    assert run.status == "ok", run.error
    group = Group.objects.get(group_type="definitionGroups", gid="shop")
    assert group.origin == source.origin and group.extensions["format"] == "CloudEvents/1.0"
    assert Resource.objects.get(rid="OrderPlaced").origin == source.origin
    assert Version.objects.filter(resource__rid="Order").count() == 1

    assert client.delete("/registry/schemagroups/shop/schemas/Order").status_code == 204
    run = run_sync(source)
    assert run.status == "ok" and run.deleted == 1, run.error
    assert not Resource.objects.filter(rid="Order").exists()
