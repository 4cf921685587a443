"""One store, two bindings: the nine rc4 documents through `/registry`, the ten seed documents through `/`,
each read back through the other binding (CONTRACT section 11)."""

import json

import jsonschema
import pytest

from registry.bindings.v10.documents import to_v05_document
from registry.bindings.v10.model_defaults import group_model, resource_model, with_defaults
from tests.corpus import documents, shared

from .conftest import post_json

# the whole module reads the corpus: skipped, module and all, without ../shared (tests/corpus.py)
SPEC = shared("spec", "1.0-rc4")
RC4_DOCUMENTS = documents("rc4", "*.xreg.json")
SEED_DOCUMENTS = documents("seed-shape", "*.cereg")
DEFAULT_LEVEL = "backward_transitive"  # REGISTRY_DEFAULT_COMPATIBILITY's default


def with_model_defaults(doc: dict) -> dict:
    """A 1.0 document with the defaults rc4's model declares filled in, as a server shows them (core/model.md: a
    default "MUST be serialized in responses from servers as part of its owning entity")."""
    doc = json.loads(json.dumps(doc))
    for plural in ("endpoints", "messagegroups"):
        for group in (doc.get(plural) or {}).values():
            group.update(with_defaults(group_model(plural), group))
            for message in (group.get("messages") or {}).values():
                for version in (message.get("versions") or {"": message}).values():
                    version.update(with_defaults(resource_model(plural, "messages"), version))
    return doc


def comparable(doc: dict) -> dict:
    """A 1.0 document reduced to what a client wrote: the stored (0.5) shape of its entities, rc4's model defaults
    filled in, with the level a server shows of a schema that names none (the registry's default,
    REGISTRY_DEFAULT_COMPATIBILITY) and empty collections (an endpoint's `messages: {}`) dropped. The rc4 documents
    make no compatibility statement; under the default level they import all the same (watchkam's version 2 breaks
    its version 1: an import's history is stored as given, CONTRACT 18)."""
    out = to_v05_document(with_model_defaults(doc))
    out.pop("name", None)  # the registry's name comes from the server's settings
    out = {k: v for k, v in out.items() if v != {}}
    for groups in out.values():
        if not isinstance(groups, dict):
            continue
        for group in groups.values():
            for key in [k for k, v in group.items() if v == {}] if isinstance(group, dict) else ():
                del group[key]
            for resources in group.values() if isinstance(group, dict) else ():
                if isinstance(resources, dict):
                    for resource in resources.values():
                        if isinstance(resource, dict) and resource.get("compatibility") == DEFAULT_LEVEL:
                            resource.pop("compatibility")
    return out


@pytest.mark.parametrize("path", RC4_DOCUMENTS, ids=lambda p: p.name)
def test_rc4_document_imports_and_exports_with_the_same_content(writer, path):
    doc = json.loads(path.read_text())
    response = post_json(writer, "/registry/", doc)
    assert response.status_code == 200, response.content[:2000]
    export = writer.get("/registry/export")
    assert export.status_code == 200
    exported = export.json()
    assert exported["specversion"] == "1.0-rc4"
    assert comparable(exported) == comparable(doc)
    # importing the export again changes nothing
    again = post_json(writer, "/registry/", exported)
    assert again.status_code == 200, again.content[:2000]
    assert comparable(writer.get("/registry/export").json()) == comparable(doc)


@pytest.mark.parametrize("path", RC4_DOCUMENTS, ids=lambda p: p.name)
def test_rc4_export_reimports_into_an_empty_registry_unchanged(writer, path):
    """Issue 39 item 4: the export of each rc4 sample, imported into an empty registry, exports the same again (under
    the default compatibility level: the import's history is stored as given)."""
    from registry.models import Group

    assert post_json(writer, "/registry/", json.loads(path.read_text())).status_code == 200
    exported = writer.get("/registry/export").json()
    for plural in ("endpoints", "messagegroups", "schemagroups"):  # the referring groups first
        for gid in exported.get(plural) or {}:
            deleted = writer.delete(f"/registry/{plural}/{gid}")
            assert deleted.status_code == 204, deleted.content[:500]
    assert not Group.objects.exists()
    again = post_json(writer, "/registry/", exported)
    assert again.status_code == 200, again.content[:2000]
    assert comparable(writer.get("/registry/export").json()) == comparable(exported)


@pytest.mark.parametrize("path", RC4_DOCUMENTS, ids=lambda p: p.name)
def test_rc4_document_reads_through_the_05_binding(writer, path):
    doc = json.loads(path.read_text())
    assert post_json(writer, "/registry/", doc).status_code == 200
    for gid, group in doc.get("messagegroups", {}).items():
        for mid, message in group.get("messages", {}).items():
            meta = writer.get(f"/definitionGroups/{gid}/definitions/{mid}?meta")
            assert meta.status_code == 200, meta.content[:500]
            definition = writer.get(f"/definitionGroups/{gid}/definitions/{mid}").json()
            if "envelope" in message:
                assert definition["format"] == message["envelope"]
            if "dataschemauri" in message:
                assert definition["schemaurl"] == "#" + message["dataschemauri"].replace(
                    "/schemagroups/", "/schemaGroups/", 1
                )
    for gid, group in doc.get("schemagroups", {}).items():
        for sid, schema in group.get("schemas", {}).items():
            for vid, version in schema.get("versions", {}).items():
                response = writer.get(f"/schemaGroups/{gid}/schemas/{sid}/versions/{vid}")
                if "schemaurl" in version:
                    assert response.status_code == 307 and response["Location"] == version["schemaurl"]
                    continue
                assert response.status_code == 200
                if isinstance(version.get("schema"), (dict, list)):
                    assert json.loads(response.content) == version["schema"]
                elif isinstance(version.get("schema"), str):
                    assert response.content.decode() == version["schema"]
    for eid, endpoint in doc.get("endpoints", {}).items():
        stored = writer.get(f"/endpoints/{eid}").json()
        assert stored["config"]["protocol"] == endpoint["protocol"]
        usage = endpoint["usage"]
        assert stored["usage"] == (usage[0] if len(usage) == 1 else usage)


@pytest.mark.parametrize("path", SEED_DOCUMENTS, ids=lambda p: p.name)
def test_seed_document_reads_through_the_10_binding(writer, path):
    """A 0.5 import is served by `/registry` in the 1.0 shape, and its export converts back to the same store."""
    body = path.read_bytes()
    content_type = "application/x-yaml" if path.name.endswith(".yaml") else "application/json"
    response = writer.post("/", data=body, content_type=content_type)
    assert response.status_code == 200, response.content[:2000]
    before = writer.get("/", HTTP_ACCEPT="application/cloudevents-registry+json").json()
    exported = writer.get("/registry/export").json()
    for gid, group in exported.get("messagegroups", {}).items():
        for mid, message in group["messages"].items():
            (version,) = message["versions"].values()
            assert "envelope" in version or "protocol" in version, (gid, mid, version)
            assert "format" not in version and "metadata" not in version
    for endpoint in exported.get("endpoints", {}).values():
        assert isinstance(endpoint["usage"], list)
        assert "config" not in endpoint
    # the 1.0 export, imported again through /registry, leaves the store as it was
    assert post_json(writer, "/registry/", exported).status_code == 200
    after = writer.get("/", HTTP_ACCEPT="application/cloudevents-registry+json").json()
    assert after == before


def test_export_validates_against_the_rc4_document_schema(writer):
    schema = json.loads((SPEC / "cloudevents" / "schemas" / "document-schema.json").read_text())
    for path in RC4_DOCUMENTS:
        assert post_json(writer, "/registry/", json.loads(path.read_text())).status_code == 200
    exported = writer.get("/registry/export").json()
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(exported), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message[:200]}" for e in errors[:10]]
