"""A new version written by a process that saw the schema's earlier versions answers as a check against every version,
whatever another process wrote since (issue 29; the check before the lock these tests were written for is gone, issue
40: they stay, as the guarantee it had to keep).

This process writes version 2, so it keeps versions 1 and 2 as it last saw them; another process then writes version 3.
A version compatible with 1 and 2 but not with 3 passes this process's early check (it does not know version 3), so
the check under the lock must find version 3 incompatible and refuse it: the same 409, with the same incompatibility
numbered "earlier version 3 of 3", that the other process answers (it saw all three versions: its own check compares
with every version), and nothing written. A version compatible with all three is accepted by both.
When another process changed what the check reads in between (the schema's compatibility in its `meta`, the latest
version's attributes, which the new one inherits), the check answers as the other process does.
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
from tests.helpers import make_group, post_schema, send

ROOT = Path(__file__).resolve().parents[3]
pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
SCHEMA = "/schemaGroups/g/schemas/s"
JSON = "application/json"

# the other process: sends each request [method, path, body, content type, Registry-* attributes] in turn as the user
# `writer`; prints their statuses and answers
OTHER = textwrap.dedent("""
    import json, sys
    import django
    django.setup()
    from django.contrib.auth import get_user_model
    from django.test.utils import setup_test_environment
    from rest_framework.test import APIClient
    from tests.helpers import send
    setup_test_environment()
    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username="writer"))
    answers = []
    for method, path, body, content_type, attrs in json.loads(sys.argv[1]):
        response = send(client, method, path, body, content_type, **attrs)
        answers.append([response.status_code, response.json() if response.content else None])
    print(json.dumps(answers))
""")


def enum(*values: str) -> str:
    return json.dumps({"type": "string", "enum": list(values)})


def other_process(*bodies: str) -> list:
    """The statuses and answers of POSTs of `bodies` to SCHEMA from another process (its own connection, nothing
    seen)."""
    return other_requests(*(("POST", SCHEMA, body, "application/json", {}) for body in bodies))


def other_requests(*requests: tuple) -> list:
    """The statuses and answers of `requests` (method, path, body, content type, Registry-* attributes) sent from
    another process."""
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "CELERY_BROKER_URL": "",
        "PYTHONPATH": str(ROOT),
    }
    out = subprocess.run(
        [sys.executable, "-c", OTHER, json.dumps(requests)],
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
    client = writer_with_two_versions()  # this process now keeps versions 1 and 2
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


def writer_with_two_versions() -> APIClient:
    """This process's client, after it wrote versions 1 and 2 of SCHEMA (enum "a", JsonSchema/draft-07, the default
    level backward_transitive): it keeps them, so its next version of SCHEMA is checked before the lock."""
    if connection.vendor != "postgresql":
        pytest.skip("the early check reads what this process keeps of PostgreSQL's rows (REGISTRY_TEST_DB=postgres)")
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_superuser("writer", "w@example.com", "pw"))
    make_group(client, "g")
    post_schema(client, "g", "s", enum("a").encode(), "application/json", "JsonSchema/draft-07")
    second = client.post(SCHEMA, enum("a") + " ", content_type="application/json")
    assert second.status_code == 201, second.content
    return client


FORWARD_BY_META = ("PATCH", "/registry/schemagroups/g/schemas/s/meta", '{"compatibility": "forward"}', JSON, {})
FORWARD_BY_LATEST = (
    "PUT",
    f"{SCHEMA}/versions/2?meta",
    '{"format": "JsonSchema/draft-07", "compatibility": "forward"}',
    JSON,
    {},
)


@pytest.mark.parametrize("change", [FORWARD_BY_META, FORWARD_BY_LATEST], ids=["schema-meta", "latest-version"])
def test_a_level_changed_by_another_process_since_the_early_check_is_checked_under_the_lock(change):
    client = writer_with_two_versions()
    # another process makes the level `forward` (the schema's own, or the latest version's that the next inherits),
    # then tries a version that is backward compatible (the early check's level) but not forward
    (changed, others_answer) = other_requests(change, ("POST", SCHEMA, enum("a", "b"), JSON, {}))
    assert changed[0] == 200, changed
    assert others_answer[0] == 409, others_answer
    assert "incompatible" in others_answer[1]["type"], others_answer

    refused = client.post(SCHEMA, enum("a", "b"), content_type=JSON)

    assert refused.status_code == 409, refused.content
    assert refused.json() == others_answer[1]
    assert len(stored()) == 2
    accepted = client.post(SCHEMA, enum("a") + "  ", content_type=JSON)
    assert accepted.status_code == 201, accepted.content
    assert len(stored()) == 3


def test_an_attribute_inherited_from_a_version_changed_since_the_early_check_is_checked_under_the_lock():
    client = writer_with_two_versions()
    # another process gives the latest version an attribute `Owner`; the next version inherits it, and one that
    # sends `owner` has two attributes differing only by case: a rule of every version's attributes (the engine's)
    change = ("PUT", f"{SCHEMA}/versions/2?meta", '{"format": "JsonSchema/draft-07", "Owner": "b"}', JSON, {})
    (changed, others_answer) = other_requests(change, ("POST", SCHEMA, enum("a", "b"), JSON, {"owner": "a"}))
    assert changed[0] == 200, changed
    assert others_answer[0] == 400, others_answer
    assert "differ only by case" in others_answer[1]["detail"], others_answer

    refused = send(client, "POST", SCHEMA, enum("a", "b"), JSON, owner="a")

    assert refused.status_code == 400, refused.content
    assert refused.json() == others_answer[1]
    assert len(stored()) == 2
