"""Every binding answers as recorded: the recorder's scenario (record.py beside this file) replayed against a fresh
database, each answer (status, headers, body) compared with answers.json. A change that alters an answer fails here
naming the request; when the change is meant, record anew (`python tests/bindings/every_binding/recorded/record.py --write`)
and say in the commit what changed and why."""

import json
import os

import pytest

from . import record

# committed as a server commits: what runs after each commit runs (the Confluent numbering of what a write wrote)
pytestmark = pytest.mark.django_db(transaction=True)


def test_every_binding_answers_as_recorded():
    now = record.replay()
    if os.environ.get("RECORD_ANSWERS") == "write":
        record.ANSWERS.write_text(record.dump(now), encoding="utf-8")
        return
    recorded = json.loads(record.ANSWERS.read_text(encoding="utf-8"))
    now = json.loads(record.dump(now))  # as written: tuples and keys as JSON has them
    found = record.differences(recorded, now)
    assert not found, "answers differ from the recording:\n" + "\n".join(found)
