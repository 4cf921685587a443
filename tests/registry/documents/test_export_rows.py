"""The whole-registry answers read their rows as values and splice stored JSON documents into the answer as their text
(issue 40 part B: loading every row as a model and parsing every document with hooks, then writing it again, was
most of the time of an export): the same bytes as before for documents stored in every form, the same instances as
the ORM's prefetch, and no model built through `__init__` per resource or version."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.db.models import signals
from rest_framework.test import APIClient

from registry.documents.exports import export_document, group_document
from registry.domain.json_text import Spliced, canonical_json, load_json_document
from registry.domain.limits import MAX_DEPTH
from registry.domain.model import registry_model
from registry.http.rendered_answers import rendered_answers
from registry.http.rendered_groups import rendered_groups
from registry.models import Group, Resource, Version
from registry.store import selectors
from tests.helpers import make_group, post_schema
from tests.registry.http.test_rendered_groups import ANSWERS, EXPORT_05, body

pytestmark = pytest.mark.django_db

# stored documents in every form a JSON document may have been stored in (some before today's write-time checks)
DOCUMENTS = {
    "canonical": b'{"type": "object", "n": [1, 1.5, -2e-05, true, null], "s": "\xc3\xa9 \\" \\\\ \\n"}',
    "pretty": b'{\n  "type": "object"\n}',
    "compact": b'{"a":1}',
    "duplicate": b'{"a": 1, "a": 2}',
    "nan": b'{"a": NaN}',
    "nan-in-a-string": b'{"a": "NaN and Infinity"}',
    "escaped": b'{"a": "\\u00e9"}',
    "nul": b'{"a": "\\u0000"}',
    "surrogate": b'{"a": "\\ud800"}',
    "marker-like": b'{"a": "\\\\u0000deadbeef:0"}',
    "overflow": b'{"a": 1e999}',
    "float-spelled-otherwise": b'{"a": 1.00}',
    "bom": b'\xef\xbb\xbf{"a": 1}',
    "not-utf8": b'{"a": "\xff"}',
    "empty": b"",
    "blank": b"  ",
    "scalar": b"3",
    "too-deep": b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    "non-ascii": '{"a": "Grüße – 😀"}'.encode(),
}


@pytest.fixture
def stored(su):
    """A schema group whose schemas hold the documents above as JSON, as stored (the write-time checks skipped)."""
    make_group(su, "g1")
    for n in range(len(DOCUMENTS)):
        post_schema(su, "g1", f"s{n:02d}", body=b"first")
    for n, content in enumerate(DOCUMENTS.values()):
        Version.objects.filter(resource__rid=f"s{n:02d}").update(content=content, media_type="application/json")
    return su


def read(path: str, headers: dict) -> bytes:
    rendered_answers.__init__()
    rendered_groups.clear()
    response = APIClient().get(path, **headers)
    assert response.status_code == 200
    return body(response)


def test_documents_stored_in_every_form_answer_the_bytes_written_before(stored):
    call_command("load_demo", "--no-user", verbosity=0)
    for path, headers, as_before in ANSWERS:
        assert read(path, headers) == as_before(), path
    exported = json.loads(read("/?inline", EXPORT_05))["schemaGroups"]["g1"]["schemas"]
    assert exported["s00"]["versions"]["1"]["schema"] == json.loads(DOCUMENTS["canonical"])
    assert exported["s01"]["versions"]["1"]["schema"] == '{\n  "type": "object"\n}'  # as text: not as dumped


@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_the_canonical_read_is_the_strict_read(name):
    content = DOCUMENTS[name]
    found = canonical_json(content)
    if name in ("canonical", "non-ascii", "scalar"):
        assert found is not None
    if found is not None:
        value, text = found
        assert load_json_document(content) == (value, None)
        assert json.dumps(value, ensure_ascii=False) == text == content.decode()


def test_spliced_texts_take_the_place_of_their_markers():
    spliced = Spliced()
    value = {"a": spliced('{"x": [1, 2]}'), "b": "\x00not a marker:0", "c": [spliced("3")]}
    assert spliced.dumps(value) == '{"a": {"x": [1, 2]}, "b": "\\u0000not a marker:0", "c": [3]}'
    assert spliced.dumps({"d": 1}) == '{"d": 1}'


def test_the_whole_registry_answers_build_no_model_per_resource_or_version(su):
    call_command("load_demo", "--no-user", verbosity=0)
    built = []

    def count(sender, **_kwargs):
        built.append(sender)

    for model in (Resource, Version):
        signals.pre_init.connect(count, sender=model, weak=False)
    try:
        for path, headers, _as_before in ANSWERS:
            read(path, headers)
    finally:
        for model in (Resource, Version):
            signals.pre_init.disconnect(count, sender=model)
    assert built == []


def test_the_rows_are_the_instances_the_orm_prefetches(su):
    call_command("load_demo", "--no-user", verbosity=0)
    for gt in registry_model.group_types:
        for documents in (True, False):
            types = {rt.plural: documents for rt in gt.resources}
            prefetched = list(selectors.groups_queryset(gt).prefetch_related(*selectors.inline_lookups(gt, types)))
            loaded = list(selectors.groups_queryset(gt))
            selectors.load_inline(loaded, gt, types)
            for before, after in zip(prefetched, loaded, strict=True):
                for rt in gt.resources:
                    resources = getattr(before, f"inline_{rt.plural}")
                    assert [fields(r) for r in resources] == [fields(r) for r in getattr(after, f"inline_{rt.plural}")]
                    for r_before, r_after in zip(resources, getattr(after, f"inline_{rt.plural}"), strict=True):
                        assert r_after.group is after
                        assert [fields(v) for v in r_before.all_versions] == [fields(v) for v in r_after.all_versions]
                        assert all(v.resource is r_after for v in r_after.all_versions)
                        deferred = set() if documents else {"content"}
                        assert all(v.get_deferred_fields() == deferred for v in r_after.all_versions)


def fields(obj) -> tuple:
    values = {k: v for k, v in obj.__dict__.items() if not k.startswith("_") and k != "all_versions"}
    return type(obj), values, obj._state.adding, obj._state.db


def test_a_group_of_the_export_holds_its_documents_as_values_when_not_spliced(stored):
    group = selectors.get_group(registry_model["schemaGroups"], "g1", inline=True)
    data = group_document(registry_model["schemaGroups"], group)
    assert data["schemas"]["s00"]["versions"]["1"]["schema"] == json.loads(DOCUMENTS["canonical"])
    assert Group.objects.filter(gid="g1").exists()


def test_a_group_read_as_a_registry_document_answers_the_bytes_written_before(stored):
    """0.5 `GET /GROUPS/gid?inline` with the media type of a registry document: the documents spliced, the bytes of
    `json.dumps` of the group's document as before."""
    response = APIClient().get("/schemaGroups/g1?inline", HTTP_ACCEPT=EXPORT_05["HTTP_ACCEPT"])
    assert response.status_code == 200
    assert response["Content-Type"] == "application/cloudevents-registry+json"
    whole = export_document("schemaGroups", "g1")
    assert response.content == json.dumps(whole, ensure_ascii=False).encode()
