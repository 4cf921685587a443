"""Concurrent registrations through /confluent (PostgreSQL: writers do not wait for each other there): to one subject
they get consecutive version numbers, the same new content sent by several clients at once is one version with one
id, and new contents get distinct ids; no request fails."""

import threading

import httpx
import pytest

from confluent.models import SchemaId, SubjectVersion

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
CLIENTS = 8


def schema(name: str) -> str:
    return f'{{"type": "record", "name": "{name}", "fields": [{{"name": "f", "type": "string"}}]}}'


def test_concurrent_registrations(base_url, writer):
    with httpx.Client(base_url=base_url, auth=("carol", "pw"), timeout=60) as http:
        assert http.put("/config", json={"compatibility": "NONE"}).status_code == 200
    answers, failures = [], []
    start = threading.Barrier(CLIENTS)

    def client(c: int):
        with httpx.Client(base_url=base_url, auth=("carol", "pw"), timeout=60) as http:
            start.wait()
            for n in range(4):
                for subject, name in (("shared", f"C{c}N{n}"), ("shared", f"Same{n}"), (f"other-{c % 2}", f"O{c}N{n}")):
                    response = http.post(f"/subjects/{subject}/versions", json={"schema": schema(name)})
                    if response.status_code != 200:
                        failures.append((subject, name, response.status_code, response.text))
                    else:
                        answers.append((subject, name, response.json()["id"], response.json()["version"]))

    threads = [threading.Thread(target=client, args=(c,)) for c in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for subject in ("shared", "other-0", "other-1"):
        numbers = sorted(SubjectVersion.objects.filter(resource__rid=subject).values_list("number", flat=True))
        assert numbers == list(range(1, len(numbers) + 1)), (subject, numbers)
    contents = {name for _subject, name, _id, _version in answers}
    assert SubjectVersion.objects.count() == len(contents) == CLIENTS * 4 * 2 + 4  # "Same{n}": one version each
    by_content: dict[str, set] = {}
    for _subject, name, schema_id, version in answers:
        by_content.setdefault(name, set()).add((schema_id, version))
    assert all(len(seen) == 1 for seen in by_content.values()), by_content  # every client got the same answer
    assert len({next(iter(seen))[0] for seen in by_content.values()}) == len(contents) == SchemaId.objects.count()
