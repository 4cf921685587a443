"""The latest version through every binding (CONTRACT 18, the seed; issue 39 item 1): the version whose id is the
greatest after every id of the resource is left-padded with spaces to one length ("10" after "9", "abc" after "b"
and "c"), whatever order they were created in; deleting it makes the greatest remaining the latest; a sticky default
stays as set; a version created without an id gets the next integer above the highest numeric id; 1.0's `ancestorid`
is the version before it in the same order; Confluent's `versions/latest` is the same version while its numbers stay
in creation order. The versions are written through the 0.5 or the 1.0 binding (`writer`), and the latest is read
through every binding: 0.5, 1.0 (its document, `$details`, `meta`), the older Schema Registry API and Confluent, each
read twice (the second answer is the fast path's: registry/http/fast_reads.py)."""

import json

import pytest
from rest_framework.test import APIClient

from tests.helpers import post_schema, send

pytestmark = pytest.mark.django_db

FORMAT = "JsonSchema/draft-07"
G, S = "confluent", "s"  # the Confluent API's default context: the schema is its subject `s`
CORE = f"/schemaGroups/{G}/schemas/{S}"
XR10 = f"/registry/schemagroups/{G}/schemas/{S}"
OLDER = f"/schemaregistry/schemagroups/{G}/schemas/{S}"
CONFLUENT = f"/confluent/subjects/{S}/versions"
WRITERS = ["0.5", "1.0"]


def document(vid: str) -> bytes:
    """A JSON Schema per version id (compatible with the others: only its title differs)."""
    return json.dumps({"type": "object", "title": f"version {vid}"}).encode()


def create(client, writer: str, first: str) -> None:
    """The schema with its first version `first`."""
    if writer == "0.5":
        client.put(f"/schemaGroups/{G}", {}, format="json")
        post_schema(client, G, S, body=document(first), content_type="application/json", fmt=FORMAT, version=first)
    else:
        response = client.put(
            f"{XR10}/versions/{first}",
            document(first),
            content_type="application/json",
            headers={"xRegistry-format": FORMAT},
        )
        assert response.status_code == 201, response.content


def add(client, writer: str, vid: str | None = None) -> str:
    """A new version (`vid`, else the id the server gives it): its id."""
    if writer == "0.5":
        if vid is None:
            response = send(client, "POST", CORE, document("new"), "application/json")
        else:
            response = send(client, "PUT", f"{CORE}/versions/{vid}", document(vid), "application/json")
        assert response.status_code == 201, response.content
        return response["Registry-version"]
    if vid is None:
        response = client.post(XR10, document("new"), content_type="application/json")
    else:
        response = client.put(f"{XR10}/versions/{vid}", document(vid), content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()["versionid"] if vid is None else vid


def delete(client, writer: str, vid: str) -> None:
    path = f"{CORE}/versions/{vid}" if writer == "0.5" else f"{XR10}/versions/{vid}"
    assert client.delete(path).status_code in (200, 204)


def twice(client, path: str):
    """The answer to a read, and the same read again (the fast path's replay for a document), which must agree."""
    first, again = client.get(path), client.get(path)
    assert first.status_code == again.status_code == 200, (path, first.content)
    assert first.content == again.content, path
    return again


def latest_everywhere(su, expected: str, body: bytes | None = None) -> None:
    """Every binding says `expected` is the latest version and serves its document (`body`: its own by default)."""
    body = document(expected) if body is None else body
    anon = APIClient()
    core = twice(anon, CORE)
    assert (core["Registry-version"], core.content) == (expected, body)
    assert su.get(f"{CORE}?meta").json()["version"] == expected
    xr10 = twice(anon, XR10)
    assert (xr10["xRegistry-versionid"], xr10.content) == (expected, body)
    assert su.get(f"{XR10}$details").json()["versionid"] == expected
    assert su.get(f"{XR10}/meta").json()["defaultversionid"] == expected
    assert [v for v, d in su.get(f"{XR10}/versions").json().items() if d["isdefault"]] == [expected]
    older = twice(anon, OLDER)
    assert older.content == body
    assert older.get("version") == (expected if expected.isdigit() else None)
    confluent = su.get(f"{CONFLUENT}/latest")
    assert confluent.status_code == 200, confluent.content
    assert json.loads(confluent.json()["schema"]) == json.loads(body)


def ancestors(su) -> dict:
    return {vid: data["ancestorid"] for vid, data in su.get(f"{XR10}/versions").json().items()}


@pytest.mark.parametrize("writer", WRITERS)
def test_10_after_9_whatever_the_order_they_were_made_in(su, writer):
    create(su, writer, "10")
    add(su, writer, "9")
    latest_everywhere(su, "10")  # the newest created, 9, was the latest
    assert ancestors(su) == {"9": "9", "10": "9"}
    assert APIClient().get(f"{XR10}/versions/10")["xRegistry-ancestorid"] == "9"


@pytest.mark.parametrize("writer", WRITERS)
def test_a_longer_id_comes_after_shorter_ones(su, writer):
    create(su, writer, "b")
    add(su, writer, "abc")
    add(su, writer, "c")
    latest_everywhere(su, "abc")  # c, created last, was the latest
    assert ancestors(su) == {"b": "b", "c": "b", "abc": "c"}
    anon = APIClient()
    for vid, ancestor in (("abc", "c"), ("c", "b"), ("b", "b")):
        for _read in range(2):  # the second read is the fast path's
            assert anon.get(f"{XR10}/versions/{vid}")["xRegistry-ancestorid"] == ancestor, vid


@pytest.mark.parametrize("writer", WRITERS)
def test_deleting_the_latest_makes_the_greatest_remaining_the_latest(su, writer):
    create(su, writer, "9")
    add(su, writer, "10")
    add(su, writer, "2")
    latest_everywhere(su, "10")
    delete(su, writer, "10")
    latest_everywhere(su, "9")  # 2, created last, became the latest
    assert ancestors(su) == {"2": "2", "9": "2"}


@pytest.mark.parametrize("writer", WRITERS)
def test_a_version_without_an_id_gets_the_next_number_above_the_highest(su, writer):
    create(su, writer, "9")
    add(su, writer, "10")
    add(su, writer, "2")
    assert add(su, writer) == "11"
    latest_everywhere(su, "11", document("new"))
    add(su, writer, "x-draft")  # longer than the others: the greatest
    latest_everywhere(su, "x-draft")
    assert add(su, writer) == "12"  # a number above the highest, not the latest here
    latest_everywhere(su, "x-draft")


@pytest.mark.parametrize("writer", WRITERS)
def test_a_sticky_default_stays_as_set(su, writer):
    create(su, writer, "1")
    add(su, writer, "2")
    assert su.patch(f"{XR10}/meta", {"defaultversionid": "1"}, format="json").status_code == 200
    add(su, writer, "3")
    add(su, writer)
    latest_everywhere(su, "1")
    delete(su, writer, "4")
    latest_everywhere(su, "1")
    assert su.patch(f"{XR10}/meta", {"defaultversionsticky": False}, format="json").status_code == 200
    latest_everywhere(su, "3")


def test_confluent_numbers_stay_in_creation_order(su):
    create(su, "0.5", "9")
    add(su, "0.5", "10")
    add(su, "0.5", "2")  # created third: number 11 (a number above the subject's), not the latest
    assert su.get(CONFLUENT).json() == [9, 10, 11]
    latest = su.get(f"{CONFLUENT}/latest").json()
    assert latest["version"] == 10 and json.loads(latest["schema"]) == json.loads(document("10"))
    assert su.get(f"{CONFLUENT}/-1").json()["version"] == 10
    assert su.get(f"{CONFLUENT}/11").json()["schema"] == su.get(f"{CONFLUENT}/11").json()["schema"]
    assert json.loads(su.get(f"{CONFLUENT}/11").json()["schema"]) == json.loads(document("2"))
    # registered through Confluent: the next number, and the registry's next id above the highest numeric one
    registered = su.post(
        f"/confluent/subjects/{S}/versions",
        {"schemaType": "JSON", "schema": json.dumps({"type": "object", "title": "registered"})},
        format="json",
    )
    assert registered.status_code == 200, registered.content
    assert su.get(f"{CONFLUENT}/latest").json()["version"] == 12
    latest_everywhere(su, "12", json.dumps({"type": "object", "title": "registered"}).encode())
    # the latest soft-deleted: the latest of the live ones (the registry's latest has no live number)
    assert su.delete(f"{CONFLUENT}/latest").json() == 12
    assert su.get(f"{CONFLUENT}/latest").json()["version"] == 10
    assert su.get(f"{CONFLUENT}/latest?deleted=true").json()["version"] == 12
