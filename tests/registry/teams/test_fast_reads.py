"""The fast path of document reads (registry/http/fast_reads.py) never decides a read a group's owners could refuse:
with public reads off every document read goes the whole way, through the group's read rule (reader, outsider,
anonymous), in every binding, and answers as the full view does; with public reads on, a group's owners change no
read, and the fast path answers as the full view does for every caller."""

import logging

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.bindings.every_binding.adapters import ALL_BINDINGS

pytestmark = pytest.mark.django_db
DOC = b'{"type": "object"}'
FORMAT = "JsonSchema/draft-07"
LOGGER = "registry.http.fast_reads"


def answer(response) -> tuple:
    headers = sorted((k.lower(), v) for k, v in response.items() if k.lower() != "x-request-id")
    return response.status_code, headers, response.content


@pytest.mark.parametrize("binding", ALL_BINDINGS, ids=[b.name for b in ALL_BINDINGS])
@pytest.mark.parametrize("public", [False, True])
def test_owners_reads_answer_as_the_full_view(binding, public, teams, su, caplog):
    assert binding.create_schema(su, "A", "s", DOC, FORMAT).status_code == 201
    callers = {name: teams[name] for name in ("reader_a", "owner_b", "outsider", "admin")}
    callers["anonymous"] = APIClient()
    expected = {"reader_a": 200, "owner_b": 403, "outsider": 403, "admin": 200, "anonymous": 401}
    with override_settings(REGISTRY_PUBLIC_READ=public):
        for name, client in callers.items():
            for path in (binding.schema("A", "s"), binding.version("A", "s", "1")):
                with override_settings(REGISTRY_FAST_READS=False):
                    full = client.get(path)
                caplog.clear()
                with caplog.at_level(logging.DEBUG, logger=LOGGER):
                    first, again = client.get(path), client.get(path)
                replayed = any(r.name == LOGGER for r in caplog.records)
                assert full.status_code == (200 if public else expected[name]), (name, path, full.content)
                assert answer(first) == answer(full) and answer(again) == answer(full), (name, path)
                assert replayed == public, (name, path)  # public reads: anonymous and token callers alike
