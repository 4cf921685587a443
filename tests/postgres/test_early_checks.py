"""A new version checked before its schema's lock against what its process last saw, and under the lock against the
versions written since alone (issue 29, registry/services/early_checks.py), answers as a check against every version.

This process writes version 2, so it keeps versions 1 and 2 as it last saw them; another process then writes version 3.
A version compatible with 1 and 2 but not with 3 passes this process's early check (it does not know version 3), so
the check under the lock must find version 3 incompatible and refuse it: the same 409, with the same incompatibility
numbered "earlier version 3 of 3", that the other process answers (it saw all three versions: its own check compares
with every version), and nothing written. A version compatible with all three is accepted by both.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.test import APIClient

from registry.models import Version
from tests.helpers import make_group, post_schema

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
SCHEMA = "/schemaGroups/g/schemas/s"

# the other process: posts each body in turn to SCHEMA as the user `writer`; prints their statuses and answers
OTHER = textwrap.dedent(f"""
    import json, sys
    import django
    django.setup()
    from django.contrib.auth import get_user_model
    from django.test.utils import setup_test_environment
    from rest_framework.test import APIClient
    setup_test_environment()
    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username="writer"))
    answers = []
    for body in json.loads(sys.argv[1]):
        response = client.post("{SCHEMA}", body, content_type="application/json")
        answers.append([response.status_code, response.json()])
    print(json.dumps(answers))
""")


def enum(*values: str) -> str:
    return json.dumps({"type": "string", "enum": list(values)})


def other_process(*bodies: str) -> list:
    """The statuses and answers of POSTs of `bodies` from another process (its own connection, nothing seen)."""
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "CELERY_BROKER_URL": "",
        "PYTHONPATH": str(ROOT),
    }
    out = subprocess.run(
        [sys.executable, "-c", OTHER, json.dumps(bodies)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.splitlines()[-1])


def stored() -> list[bytes]:
    return [
        bytes(c)
        for c in Version.objects.filter(resource__rid="s")
        .order_by("created_on", "pk")
        .values_list("content", flat=True)
    ]


def test_a_version_incompatible_with_one_written_by_another_process_since_is_refused_as_by_a_full_check():
    if connection.vendor != "postgresql":
        pytest.skip("the early check reads what this process keeps of PostgreSQL's rows (REGISTRY_TEST_DB=postgres)")
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_superuser("writer", "w@example.com", "pw"))
    make_group(client, "g")
    post_schema(client, "g", "s", enum("a").encode(), "application/json", "JsonSchema/draft-07")
    second = client.post(
        SCHEMA, json.dumps({"type": "string", "enum": ["a"], "description": "2"}), content_type="application/json"
    )
    assert second.status_code == 201, second.content  # this process now keeps versions 1 and 2
    # another process writes version 3 (widening the enum), then tries a version compatible with 1 and 2 only
    (third, others_answer) = other_process(enum("a", "b"), enum("a", "c"))
    assert third[0] == 201, third
    assert others_answer[0] == 409, others_answer
    assert len(stored()) == 3

    refused = client.post(SCHEMA, enum("a", "c"), content_type="application/json")

    assert refused.status_code == 409, refused.content
    assert refused.json() == others_answer[1]
    assert "(earlier version 3 of 3)" in refused.json()["detail"], refused.json()
    assert len(stored()) == 3
    accepted = client.post(SCHEMA, enum("a", "b", "d"), content_type="application/json")
    assert accepted.status_code == 201, accepted.content
    assert stored()[-1] == enum("a", "b", "d").encode()
    (others_next,) = other_process(enum("a", "b", "d", "e"))  # and the other process, still behind, accepts its next
    assert others_next[0] == 201, others_next
    assert len(stored()) == 5
