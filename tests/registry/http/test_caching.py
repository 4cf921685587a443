"""HTTP caching of reads and conditional writes (issue 14): strong ETags, 304, Cache-Control, If-Match.

What a client with a cache sees: the tag changes whenever the entity or anything it inlines changes, a
revalidation with a current tag costs a 304 with no body, and a write with a stale tag changes nothing.
"""

import json

import pytest

from tests.helpers import (
    JSON_SCHEMA_V1,
    JSON_SCHEMA_V2,
    assert_problem,
    make_group,
    new_version,
    post_schema,
    send,
    send_json,
    snapshot,
)

pytestmark = pytest.mark.django_db

DOC = "/schemaGroups/g1/schemas/s1"


def strong(tag: str) -> str:
    assert tag.startswith('"') and tag.endswith('"') and not tag.startswith("W/"), tag
    return tag


def revalidate(client, path, tag, **extra):
    return client.get(path, HTTP_IF_NONE_MATCH=tag, **extra)


def test_document_read_has_a_strong_tag_and_revalidates_with_304(su, anon):
    make_group(su)
    post_schema(su, body=b"one")
    first = anon.get(DOC)
    assert first.status_code == 200
    tag = strong(first["ETag"])
    assert "no-cache" in first["Cache-Control"]
    assert "Accept" in first["Vary"]

    again = revalidate(anon, DOC, tag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == tag
    assert again["Content-Location"] == first["Content-Location"]
    assert (
        revalidate(
            anon,
            DOC,
            '"something-else"',
        ).status_code
        == 200
    )
    assert revalidate(anon, DOC, f'"x", {tag}').status_code == 304  # a list of tags

    head = anon.head(DOC)
    assert head.status_code == 200 and head.content == b"" and head["ETag"] == tag
    assert anon.head(DOC, HTTP_IF_NONE_MATCH=tag).status_code == 304


def test_tag_changes_with_the_document_and_with_header_borne_metadata(su, anon):
    make_group(su)
    post_schema(su, body=b"one")
    tag = anon.get(DOC)["ETag"]
    # metadata only (the body is the same bytes): the Registry-* headers changed, so the tag does
    assert send(su, "PUT", DOC, b"", description="now described").status_code == 200
    assert anon.get(DOC).content == b"one"
    after_meta = revalidate(anon, DOC, tag)
    assert after_meta.status_code == 200
    assert after_meta["ETag"] != tag
    # a new version: the latest document changes
    new_version(su, body=b"two")
    latest = revalidate(anon, DOC, after_meta["ETag"])
    assert latest.status_code == 200 and latest.content == b"two"
    # the first version itself did not change except its... nothing: its own tag still validates
    v1 = anon.get(f"{DOC}/versions/1")
    assert revalidate(anon, f"{DOC}/versions/1", v1["ETag"]).status_code == 304


def test_inlining_parent_tag_changes_when_a_child_changes(su, anon):
    make_group(su)
    post_schema(su, body=b"one")
    group_epoch = anon.get("/schemaGroups/g1").json()["epoch"]
    tag = anon.get("/schemaGroups/g1?inline")["ETag"]
    plain = anon.get("/schemaGroups/g1")["ETag"]
    assert tag != plain  # ?inline is another representation

    new_version(su, body=b"two")
    assert anon.get("/schemaGroups/g1").json()["epoch"] == group_epoch  # the group itself did not change
    assert revalidate(anon, "/schemaGroups/g1?inline", tag).status_code == 200
    assert revalidate(anon, "/schemaGroups/g1", plain).status_code == 304  # nothing inlined, nothing changed


def test_whole_registry_stream_has_a_tag_that_follows_commits(su, anon):
    make_group(su)
    post_schema(su, body=b"one")
    first = anon.get("/?inline")
    assert first.streaming
    tag = strong(first["ETag"])
    b"".join(first.streaming_content)
    assert revalidate(anon, "/?inline", tag).status_code == 304
    # the same registry in another representation has another tag
    export = anon.get("/?inline", HTTP_ACCEPT="application/cloudevents-registry+json")
    assert export["ETag"] != tag

    # an import that changes nothing commits nothing: still valid
    document = b"".join(export.streaming_content)
    assert send(su, "POST", "/", document, "application/cloudevents-registry+json").status_code == 200
    assert revalidate(anon, "/?inline", tag).status_code == 304

    send_json(su, "PUT", "/schemaGroups/g1", {"description": "changed"})
    changed = revalidate(anon, "/?inline", tag)
    assert changed.status_code == 200
    assert b"changed" in b"".join(changed.streaming_content)


def test_authenticated_reads_are_private(su, anon):
    make_group(su)
    assert su.get("/schemaGroups")["Cache-Control"] == "private, no-cache"
    assert anon.get("/schemaGroups")["Cache-Control"] == "no-cache"
    assert "ETag" in su.get("/subscriptions")


def test_older_bindings_reads_carry_tags(su, anon):
    make_group(su)
    post_schema(
        su, body=json.dumps(JSON_SCHEMA_V1).encode(), content_type="application/json", fmt="JsonSchema/draft-07"
    )
    for path in ("/schemaregistry/schemagroups", "/schemaregistry/schemagroups/g1/schemas/s1"):
        response = anon.get(path)
        assert response.status_code == 200, (path, response.content)
        assert revalidate(anon, path, strong(response["ETag"])).status_code == 304


def test_errors_and_writes_carry_no_tag(su, anon):
    assert "ETag" not in anon.get("/schemaGroups/none")
    response = send_json(su, "POST", "/schemaGroups", {"id": "g9"})
    assert response.status_code == 201 and "ETag" not in response


# --- conditional writes ------------------------------------------------------------------------------------


def test_if_match_on_a_group_put(su):
    make_group(su)
    tag = su.get("/schemaGroups/g1")["ETag"]
    send_json(su, "PUT", "/schemaGroups/g1", {"description": "someone else"})
    before = snapshot()
    stale = su.generic(
        "PUT",
        "/schemaGroups/g1",
        json.dumps({"description": "mine"}),
        content_type="application/json",
        HTTP_IF_MATCH=tag,
    )
    assert_problem(stale, 412, "If-Match", "/schemaGroups/g1")
    assert snapshot() == before

    current = su.get("/schemaGroups/g1")
    ok = su.generic(
        "PUT",
        "/schemaGroups/g1",
        json.dumps({"description": "mine"}),
        content_type="application/json",
        HTTP_IF_MATCH=current["ETag"],
    )
    assert ok.status_code == 200, ok.content
    assert ok.json()["description"] == "mine"
    assert ok.json()["epoch"] == current.json()["epoch"] + 1


def test_if_match_on_a_document_put_and_a_delete(su):
    make_group(su)
    post_schema(
        su, body=json.dumps(JSON_SCHEMA_V1).encode(), content_type="application/json", fmt="JsonSchema/draft-07"
    )
    tag = su.get(DOC)["ETag"]
    ok = send(su, "PUT", DOC, json.dumps(JSON_SCHEMA_V2), "application/json")
    assert ok.status_code == 200
    before = snapshot()
    stale = su.generic("PUT", DOC, json.dumps(JSON_SCHEMA_V1), content_type="application/json", HTTP_IF_MATCH=tag)
    assert_problem(stale, 412, DOC)
    assert snapshot() == before
    stale_delete = su.delete(DOC, HTTP_IF_MATCH=tag)
    assert_problem(stale_delete, 412)
    assert snapshot() == before

    fresh = su.get(DOC)
    epoch = int(fresh["Registry-epoch"])
    updated = su.generic(
        "PUT",
        DOC,
        json.dumps(JSON_SCHEMA_V2 | {"title": "t"}),
        content_type="application/json",
        HTTP_IF_MATCH=fresh["ETag"],
    )
    assert updated.status_code == 200, updated.content
    assert int(updated["Registry-epoch"]) == epoch + 1
    assert su.delete(DOC, HTTP_IF_MATCH=su.get(DOC)["ETag"]).status_code == 200
    assert su.get(DOC).status_code == 404


def test_if_match_star_and_if_none_match_star(su):
    before = snapshot()
    missing = su.generic("PUT", "/schemaGroups/g2", json.dumps({}), content_type="application/json", HTTP_IF_MATCH="*")
    assert_problem(missing, 412, "does not exist")
    assert snapshot() == before
    created = su.generic(
        "PUT", "/schemaGroups/g2", json.dumps({}), content_type="application/json", HTTP_IF_NONE_MATCH="*"
    )
    assert created.status_code == 201
    before = snapshot()
    again = su.generic(
        "PUT",
        "/schemaGroups/g2",
        json.dumps({"description": "x"}),
        content_type="application/json",
        HTTP_IF_NONE_MATCH="*",
    )
    assert_problem(again, 412, "exists")
    assert snapshot() == before
    assert (
        su.generic(
            "PUT",
            "/schemaGroups/g2",
            json.dumps({"description": "x"}),
            content_type="application/json",
            HTTP_IF_MATCH="*",
        ).status_code
        == 200
    )


def test_if_match_with_a_disagreeing_epoch_is_a_conflict(su):
    make_group(su)
    current = su.get("/schemaGroups/g1")
    before = snapshot()
    response = su.generic(
        "PUT",
        "/schemaGroups/g1?epoch=7",
        json.dumps({"description": "x"}),
        content_type="application/json",
        HTTP_IF_MATCH=current["ETag"],
    )
    assert_problem(response, 409, "epoch")
    assert snapshot() == before
