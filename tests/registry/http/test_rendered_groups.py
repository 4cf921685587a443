"""Whole-registry answers written group by group, each group's part kept until the group changes
(registry/http/rendered_groups.py): the bytes are those of the whole render as it was written before (`GET /?inline`,
the 0.5 JSON export, the 1.0 export), after every kind of write, and a read after a write renders only the groups
that write changed."""

from __future__ import annotations

import json
import logging

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from registry.bindings.v05.representations import group_json
from registry.bindings.v05.root import root_json
from registry.bindings.v10.reads import export_json
from registry.documents.exports import document_head, group_document
from registry.domain.model import registry_model
from registry.http.rendered_answers import rendered_answers
from registry.http.rendered_groups import RenderedGroups, rendered_groups
from registry.store import selectors
from tests.helpers import TEXT, make_group, new_version, post_schema, send, send_json

pytestmark = pytest.mark.django_db
BASE = "http://testserver"
EXPORT_05 = {"HTTP_ACCEPT": "application/cloudevents-registry+json"}


def inline_as_before() -> bytes:
    """`GET /?inline` as registry/bindings/v05/root.py wrote it before its groups were kept (the whole render)."""
    head = root_json(BASE)
    head["model"] = registry_model.as_json()
    text = json.dumps(head, ensure_ascii=False)[:-1]
    for gt in registry_model.group_types:
        members = [
            f"{json.dumps(g.gid)}: {json.dumps(group_json(BASE, gt, g, inline=True), ensure_ascii=False)}"
            for g in selectors.iter_groups(gt, inline=True)
        ]
        text += f", {json.dumps(gt.plural)}: {{" + ", ".join(members) + "}"
    return (text + "}").encode()


def export_as_before() -> bytes:
    """The 0.5 JSON export as registry/documents/exports.py wrote it before."""
    text = json.dumps(document_head())[:-1]
    for gt in registry_model.group_types:
        members = [
            f"{json.dumps(g.gid)}: {json.dumps(group_document(gt, g), ensure_ascii=False)}"
            for g in selectors.iter_groups(gt, inline=True)
        ]
        if members:
            text += f", {json.dumps(gt.plural)}: {{" + ", ".join(members) + "}"
    return (text + "}").encode()


def export_10_as_before() -> bytes:
    return json.dumps(export_json(BASE + "/registry"), ensure_ascii=False).encode()


ANSWERS = [
    ("/?inline", {}, inline_as_before),
    ("/?inline", EXPORT_05, export_as_before),
    ("/registry/export", {}, export_10_as_before),
]


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def read(path: str, headers: dict) -> bytes:
    rendered_answers.__init__()  # the whole answer is kept under the change marker: read the parts again
    response = APIClient().get(path, **headers)
    assert response.status_code == 200
    return body(response)


@pytest.fixture
def registry(su):
    call_command("load_demo", "--no-user", verbosity=0)
    for gid in ("foo", "foourl", "foocount", "a~b"):  # ids the 1.0 export reads as another's link or count
        make_group(su, gid, description="Gr\u00fc\u00dfe \u2013 \U0001f600")
        post_schema(su, gid, "s1", body=b"first")
    return su


def test_every_answer_is_the_whole_render_after_every_kind_of_write(registry):
    writes = [
        lambda: new_version(registry, "foo", "s1", body=b"second"),
        lambda: send_json(registry, "PUT", "/schemaGroups/foo", {"description": "changed"}),
        lambda: send_json(registry, "PUT", "/schemaGroups/foo/schemas/s1/versions/1?meta", {"name": "renamed"}),
        lambda: registry.delete("/schemaGroups/foo/schemas/s1/versions/1"),
        lambda: send(registry, "POST", "/schemaGroups/foourl/schemas", b"x", TEXT, id="s2", format="Custom/1"),
        lambda: registry.delete("/schemaGroups/foocount"),
        lambda: send_json(registry, "POST", "/schemaGroups", {"id": "new"}),
        lambda: send_json(registry, "PATCH", "/registry/schemagroups/foo/schemas/s1/meta", {"compatibility": "none"}),
    ]
    for path, headers, as_before in ANSWERS:
        assert read(path, headers) == as_before(), path
    for n, write in enumerate(writes):
        assert write().status_code in (200, 201, 204), n
        for path, headers, as_before in ANSWERS:
            assert read(path, headers) == as_before(), (n, path)


def test_a_read_after_a_write_renders_only_the_groups_it_changed(registry, caplog):
    for path, headers, _as_before in ANSWERS:
        read(path, headers)
    new_version(registry, "foo", "s1", body=b"second")
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="registry.http.rendered_groups"):
        for path, headers, _as_before in ANSWERS:
            read(path, headers)
    rendered = [r.getMessage() for r in caplog.records if "schemaGroups" in r.getMessage()]
    total = len(list(selectors.iter_groups(registry_model["schemaGroups"], inline=False)))
    variants = ("inline", "document", "xr10-export")
    assert rendered == [f"{variant} schemaGroups: rendered 1 of {total} groups" for variant in variants]


def test_parts_are_kept_per_base_url(registry):
    read("/?inline", {})
    other = APIClient().get("/?inline", HTTP_HOST="localhost")
    assert json.loads(body(other))["schemaGroups"]["foo"]["self"] == "http://localhost/schemaGroups/foo"


def test_parts_stay_within_their_budget(settings):
    settings.REGISTRY_RENDERED_ANSWER_BYTES = 10_000
    kept = RenderedGroups()
    for n in range(50):
        kept.put(("v", "schemaGroups", f"g{n}"), "s", bytes(1000))
        assert kept.size <= 10_000
    assert kept.get(("v", "schemaGroups", "g49"), "s") is not None
    assert kept.get(("v", "schemaGroups", "g0"), "s") is None
    assert kept.get(("v", "schemaGroups", "g49"), "another state") is None
    kept.put(("v", "schemaGroups", "large"), "s", bytes(10_001))
    assert kept.get(("v", "schemaGroups", "large"), "s") is None and kept.size <= 10_000
    assert rendered_groups.size <= 10_000
