"""References registered through /confluent travel with their versions (docs/confluent.md, "References"): they are
the version attribute `references`, which the 0.5 and 1.0 bindings show, export and import; every door's Avro check
resolves them from the store when the write does not carry the referenced documents. So an export imports into an
empty registry (the referencing subjects before the referenced ones in the document), and the Confluent API answers
the same references afterwards; a document updated in place through another binding keeps its references; a
reference to no subject version is refused, naming it, with nothing written."""

import json

import pytest
from confluent_kafka.schema_registry import Schema, SchemaReference
from django.core.management import call_command

from confluent.models import SubjectVersion
from registry.models import Group, OutboxEvent, Resource, Version
from tests.confluent.test_errors import state
from tests.helpers import put_json

pytestmark = pytest.mark.django_db(transaction=True)

REGISTRY_JSON = "application/cloudevents-registry+json"
# the referencing subjects come first in an export (subjects are exported in id order): the import must write them
# after the subjects they reference
ADDRESS = '{"type": "record", "name": "Address", "namespace": "acme", "fields": [{"name": "city", "type": "string"}]}'
PERSON = (
    '{"type": "record", "name": "Person", "namespace": "acme", "fields": [{"name": "home", "type": "acme.Address"}]}'
)
ORDER = '{"type": "record", "name": "Order", "namespace": "acme", "fields": [{"name": "buyer", "type": "acme.Person"}]}'
PERSON_REFS = [{"name": "acme.Address", "subject": "z-address", "version": 1}]
ORDER_REFS = [{"name": "acme.Person", "subject": "m-person", "version": 1}]


def refs(items: list[dict]) -> list[SchemaReference]:
    return [SchemaReference(r["name"], r["subject"], r["version"]) for r in items]


def as_json(references) -> list[dict]:
    return [{"name": r.name, "subject": r.subject, "version": r.version} for r in references]


@pytest.fixture
def referenced(registry):
    """z-address <- m-person <- a-order (an Avro reference chain of two levels), through /confluent: the ids."""
    return {
        "z-address": registry.register_schema("z-address", Schema(ADDRESS, "AVRO")),
        "m-person": registry.register_schema("m-person", Schema(PERSON, "AVRO", refs(PERSON_REFS))),
        "a-order": registry.register_schema("a-order", Schema(ORDER, "AVRO", refs(ORDER_REFS))),
    }


def confluent_view(registry) -> dict:
    """What the Confluent API answers of each subject's versions: number, schema text, references."""
    out = {}
    for subject in registry.get_subjects():
        for number in registry.get_versions(subject):
            got = registry.get_version(subject, number)
            out[(subject, number)] = (got.schema.schema_str, as_json(got.schema.references or []))
    return out


def test_both_bindings_show_the_references(referenced, core):
    meta10 = core.get("/registry/schemagroups/confluent/schemas/a-order/versions/1$details").json()
    assert meta10["references"] == ORDER_REFS, meta10
    meta05 = core.get("/schemaGroups/confluent/schemas/m-person/versions/1?meta").json()
    assert meta05["references"] == PERSON_REFS, meta05
    assert "references" not in core.get("/registry/schemagroups/confluent/schemas/z-address/versions/1$details").json()


def wipe(core) -> None:
    assert core.delete("/schemaGroups?force=true").status_code in (200, 204)
    assert not Resource.objects.exists() and not Version.objects.exists()


@pytest.mark.parametrize("door", ["0.5", "1.0"])
def test_an_export_imports_into_an_empty_registry(referenced, registry, core, door):
    before = confluent_view(registry)
    assert before[("a-order", 1)][1] == ORDER_REFS and before[("m-person", 1)][1] == PERSON_REFS
    if door == "1.0":
        exported = core.get("/registry/export")
    else:
        exported = core.get("/", params={"inline": ""}, headers={"Accept": REGISTRY_JSON})
    assert exported.status_code == 200, exported.text
    document = exported.content
    wipe(core)
    if door == "1.0":
        imported = core.post("/registry/", content=document, headers={"Content-Type": "application/json"})
    else:
        imported = core.post("/", content=document, headers={"Content-Type": REGISTRY_JSON})
    assert imported.status_code in (200, 201), imported.text
    assert Version.objects.count() == 3
    # the Confluent API answers the same versions and references, and knows the content: registering it again
    # (as the serializers do at every start) is the same version, not a new one
    assert confluent_view(registry) == before
    order = Schema(ORDER, "AVRO", refs(ORDER_REFS))
    found = registry.lookup_schema("a-order", order)
    assert found.version == 1 and as_json(found.schema.references) == ORDER_REFS
    assert registry.register_schema("a-order", order) == found.schema_id
    assert Version.objects.count() == 3
    assert registry.get_referenced_by("m-person", 1) == [found.schema_id]
    # and the same document imported again changes nothing
    events = OutboxEvent.objects.count()
    if door == "1.0":
        second = core.post("/registry/", content=document, headers={"Content-Type": "application/json"})
    else:
        second = core.post("/", content=document, headers={"Content-Type": REGISTRY_JSON})
    assert second.status_code in (200, 201), second.text
    assert OutboxEvent.objects.count() == events


def test_the_export_commands_round_trip(referenced, registry, core, tmp_path):
    before = confluent_view(registry)
    target = tmp_path / "registry.cereg"
    call_command("export_registry", "--output", str(target))
    wipe(core)
    call_command("import_registry", str(target))
    assert confluent_view(registry) == before


@pytest.mark.parametrize("door", ["0.5", "1.0"])
def test_an_update_in_place_keeps_the_references(referenced, registry, core, door):
    """The referencing version's document replaced through another binding, its references not sent: the stored
    attribute names the referenced types, so the Avro check knows them."""
    changed = json.loads(PERSON)
    changed["doc"] = "a person, documented"
    body = json.dumps(changed)
    prefix = "/registry/schemagroups" if door == "1.0" else "/schemaGroups"
    answer = put_json(core, f"{prefix}/confluent/schemas/m-person/versions/1", body)
    assert answer.status_code == 200, answer.text
    latest = registry.get_version("m-person", 1)
    assert json.loads(latest.schema.schema_str) == changed
    assert as_json(latest.schema.references) == PERSON_REFS
    # a new version through the 1.0 binding, its references not sent, inherits them from the latest version
    changed["doc"] = "a person, version 2"
    created = core.post(
        "/registry/schemagroups/confluent/schemas/m-person/versions",
        content=json.dumps({"2": {"schema": changed}}),
        headers={"Content-Type": "application/json"},
    )
    assert created.status_code in (200, 201), created.text
    assert as_json(registry.get_version("m-person", 2).schema.references) == PERSON_REFS


def test_a_reference_to_nothing_is_refused(referenced, core):
    """Through both bindings and a document import: 400 naming the reference, nothing written."""
    dangling = [{"name": "acme.Address", "subject": "no-such-subject", "version": 1}]
    before = state()
    # the stored version's references changed to name nothing (1.0, $details)
    details = core.get("/registry/schemagroups/confluent/schemas/m-person/versions/1$details").json()
    body = {k: v for k, v in details.items() if not k.endswith("url") and k not in ("self", "xid", "epoch")}
    body.update({"references": dangling, "schema": json.loads(PERSON)})
    answer = put_json(core, "/registry/schemagroups/confluent/schemas/m-person/versions/1$details", body)
    assert answer.status_code == 400, answer.text
    assert "no-such-subject" in answer.text and "references" in answer.text, answer.text
    # a new version of a new schema, in a document (0.5) and in one through 1.0
    document = {
        "schemaGroups": {
            "confluent": {
                "id": "confluent",
                "schemas": {
                    "n-person": {
                        "id": "n-person",
                        "versions": {
                            "1": {"id": "1", "format": "Avro/1.11.0", "references": dangling, "schema": PERSON}
                        },
                    }
                },
            }
        }
    }
    answer = core.post("/", content=json.dumps(document), headers={"Content-Type": REGISTRY_JSON})
    assert answer.status_code == 400, answer.text
    assert "no-such-subject" in answer.text, answer.text
    answer = core.post(
        "/registry/schemagroups/confluent/schemas/n-person/versions",
        content=json.dumps({"1": {"format": "Avro/1.11.0", "references": dangling, "schema": json.loads(PERSON)}}),
        headers={"Content-Type": "application/json"},
    )
    assert answer.status_code == 400 and "no-such-subject" in answer.text, answer.text
    # not of the shape: named
    answer = core.post(
        "/registry/schemagroups/confluent/schemas/n-person/versions",
        content=json.dumps({"1": {"format": "Avro/1.11.0", "references": "z-address", "schema": json.loads(PERSON)}}),
        headers={"Content-Type": "application/json"},
    )
    assert answer.status_code == 400 and "references" in answer.text, answer.text
    assert state() == before
    assert Group.objects.count() == 1


def test_a_cycle_through_the_attribute_is_refused(referenced, core):
    """z-address's version made to reference a-order, which references it through m-person: a cycle, 400."""
    cycle = [{"name": "acme.Order", "subject": "a-order", "version": 1}]
    before = state()
    details = core.get("/registry/schemagroups/confluent/schemas/z-address/versions/1$details").json()
    body = {k: v for k, v in details.items() if not k.endswith("url") and k not in ("self", "xid", "epoch")}
    body.update({"references": cycle, "schema": json.loads(ADDRESS)})
    answer = put_json(core, "/registry/schemagroups/confluent/schemas/z-address/versions/1$details", body)
    assert answer.status_code == 400 and "cycle" in answer.text, answer.text
    assert state() == before


def test_the_migration_copies_earlier_references_into_the_attribute(referenced, registry):
    """Versions registered before the attribute kept their references in the Confluent table alone: the migration
    (confluent 0002) copies them, without a change event or a new epoch."""
    from importlib import import_module

    from django.apps import apps

    migration = import_module("confluent.migrations.0002_references_attribute")
    for version in Version.objects.all():  # as registered before: no attribute
        version.extensions.pop("references", None)
        version.save(update_fields=["extensions"])
    epochs, events = sorted(Version.objects.values_list("pk", "epoch")), OutboxEvent.objects.count()
    migration.copy_references(apps, None)
    by_schema = {v.resource.rid: v.extensions.get("references") for v in Version.objects.select_related("resource")}
    assert by_schema == {"z-address": None, "m-person": PERSON_REFS, "a-order": ORDER_REFS}
    assert sorted(Version.objects.values_list("pk", "epoch")) == epochs and OutboxEvent.objects.count() == events


def test_references_written_elsewhere_hold_back_a_confluent_delete(registry, core, http):
    """A schema created through the 1.0 binding referencing y-address (its attribute) counts for /confluent's
    referencedby and refuses the delete of what it references (42206), before /confluent ever read that schema."""
    from tests.confluent.test_errors import refused

    registry.register_schema("y-address", Schema(ADDRESS, "AVRO"))
    references = [{"name": "acme.Address", "subject": "y-address", "version": 1}]
    created = put_json(
        core,
        "/registry/schemagroups/confluent/schemas/b-person/versions/1$details",
        {"format": "Avro/1.11.0", "references": references, "schema": json.loads(PERSON)},
    )
    assert created.status_code == 201, created.text
    # numbered when its write committed (confluent.numbering.number_written), before /confluent read it
    assert SubjectVersion.objects.filter(version__resource__rid="b-person").count() == 1
    ids = http.get("/subjects/y-address/versions/1/referencedby").json()
    assert ids == [registry.lookup_schema("b-person", Schema(PERSON, "AVRO", refs(references))).schema_id], ids
    before = state()
    refused(http.delete("/subjects/y-address/versions/1"), 422, 42206)
    assert state() == before
