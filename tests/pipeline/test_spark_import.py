"""`manage.py spark_import` on real Spark (local mode): the corpus and a generated input, idempotence,
entities rejected one by one, --dry-run, the report and the exit status (docs/api-contract.md section 9)."""

import json
import shutil

import pytest
from django.core.management import call_command

from registry.models import Group, OutboxEvent, Resource, Version
from tests.corpus import documents

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def spark_import(capsys, *args) -> tuple[int, list[str]]:
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    try:
        call_command("spark_import", *args, "--master", "local[2]")
        code = 0
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().out.strip().splitlines()


def test_corpus_then_again_then_a_bad_entity(tmp_path, capsys):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for path in documents("seed-shape", "*.cereg"):
        shutil.copy(path, inputs / path.name)
    report = tmp_path / "report.json"
    code, lines = spark_import(capsys, str(inputs), "--report", str(report))
    assert code == 0, lines
    assert lines[-1].startswith("created ") and lines[-1].endswith("rejected 0")
    created = int(lines[-1].split()[1].rstrip(","))
    assert created == Group.objects.count() + Resource.objects.count() + Version.objects.count()
    assert json.loads(report.read_text())["rejected"] == []
    events = OutboxEvent.objects.count()
    assert events == Group.objects.count()  # coalesced: one event per changed group

    # idempotent: the same input again changes nothing and emits nothing
    code, lines = spark_import(capsys, str(inputs))
    assert code == 0
    assert lines[-1] == f"created 0, updated 0, unchanged {created}, rejected 0"
    assert OutboxEvent.objects.count() == events

    # one bad entity among good new ones: rejected with path and reason, the rest imported, exit 3
    bad = tmp_path / "more.jsonl"
    bad.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                {"path": "/schemaGroups/bulk.extra", "description": "added by a JSON-lines file"},
                {
                    "path": "/schemaGroups/bulk.extra/schemas/ok/versions/1",
                    "format": "JsonSchema/draft-07",
                    "schema": {"type": "object"},
                },
                {
                    "path": "/schemaGroups/bulk.extra/schemas/broken/versions/1",
                    "format": "JsonSchema/draft-07",
                    "schema": {"type": 12},
                },
                {"path": "/definitionGroups/bulk.defs", "format": "CloudEvents"},
            ]
        )
        + "\n"
    )
    report = tmp_path / "bad.json"
    code, lines = spark_import(capsys, str(bad), "--report", str(report))
    assert code == 3, lines
    rejected = json.loads(report.read_text())["rejected"]
    paths = {r["path"] for r in rejected}
    assert "/schemaGroups/bulk.extra/schemas/broken/versions/1" in paths
    assert "/definitionGroups/bulk.defs" in paths  # a definition group's format is NAME/VERSION
    assert all(r["reason"] for r in rejected)
    assert Version.objects.filter(resource__rid="ok", resource__group__gid="bulk.extra").exists()
    assert not Version.objects.filter(resource__rid="broken").exists()


def test_dry_run_writes_nothing_and_generated_input(tmp_path, capsys):
    from bench.generate_registry import document

    source = tmp_path / "generated.cereg"
    source.write_text(json.dumps(document(groups=4, schemas=50, versions=3)))
    code, lines = spark_import(capsys, str(source), "--dry-run")
    assert code == 0
    assert lines[-1] == "created 804, updated 0, unchanged 0, rejected 0"  # 4 + 200 + 600
    assert Group.objects.count() == 0
    code, lines = spark_import(capsys, str(source))
    assert lines[-1] == "created 804, updated 0, unchanged 0, rejected 0"
    assert Version.objects.count() == 600
    latest = Resource.objects.select_related("latest").first().latest
    assert latest.vid == "3"


def schema_versions(*extra_properties, id_type="string", required=()):
    """JSON Schema documents, each adding one optional property to the one before."""
    out, properties = [], {"id": {"type": id_type}}
    for name in extra_properties:
        properties = {**properties, name: {"type": "string"}}
        out.append({"type": "object", "properties": properties, **({"required": list(required)} if required else {})})
    return out


def test_incompatible_version_after_compatible_ones_is_rejected(tmp_path, capsys):
    # s is whole in one document (checked where it was read); t gets a version from a JSON-lines file too
    # (its records are keyed together); both have compatible versions, then one breaking them all. Both are stored
    # before with their version 1: the versions an import adds to a stored schema are checked; those of a schema it
    # creates are its history, stored as given (u, CONTRACT 18)
    good = schema_versions("a", "b", "c")
    stored_first = {
        "specversion": "0.5-wip",
        "schemaGroups": {
            "g": {
                "schemas": {
                    sid: {"format": "JsonSchema/draft-07", "versions": {"1": {"schema": good[0]}}} for sid in "st"
                }
            }
        },
    }
    (tmp_path / "first.cereg").write_text(json.dumps(stored_first))
    call_command("import_registry", str(tmp_path / "first.cereg"))
    broken_id = schema_versions("a", id_type="integer")[0]
    later = schema_versions("a", "b", "c", "d")[-1]
    versions = {str(n): {"schema": doc} for n, doc in enumerate(good, 1)}
    versions |= {"4": {"schema": broken_id}, "5": {"schema": later}}
    document = {
        "specversion": "0.5-wip",
        "schemaGroups": {
            "g": {
                "schemas": {
                    "s": {"format": "JsonSchema/draft-07", "versions": versions},
                    "t": {
                        "format": "JsonSchema/draft-07",
                        "versions": {"1": {"schema": good[0]}, "2": {"schema": good[1]}},
                    },
                    "u": {
                        "format": "JsonSchema/draft-07",
                        "versions": {"1": {"schema": good[0]}, "2": {"schema": broken_id}},
                    },
                }
            }
        },
    }
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "schemas.cereg").write_text(json.dumps(document))
    required_id = schema_versions("a", "b", required=["id"])[-1]
    (inputs / "more.jsonl").write_text(
        json.dumps({"path": "/schemaGroups/g/schemas/t/versions/3", "schema": required_id}) + "\n"
    )
    report = tmp_path / "report.json"
    code, lines = spark_import(capsys, str(inputs), "--report", str(report))
    assert code == 3, lines
    rejected = {r["path"]: r["reason"] for r in json.loads(report.read_text())["rejected"]}
    assert set(rejected) == {"/schemaGroups/g/schemas/s/versions/4", "/schemaGroups/g/schemas/t/versions/3"}
    assert "properties.id" in rejected["/schemaGroups/g/schemas/s/versions/4"]
    assert "earlier version 1 of 3" in rejected["/schemaGroups/g/schemas/s/versions/4"]
    assert "required" in rejected["/schemaGroups/g/schemas/t/versions/3"]
    stored = {r.rid: sorted(r.versions.values_list("vid", flat=True)) for r in Resource.objects.all()}
    assert stored == {"s": ["1", "2", "3", "5"], "t": ["1", "2"], "u": ["1", "2"]}
    assert Resource.objects.get(rid="s").latest.vid == "5"


def test_unchanged_versions_are_validated_again_when_their_resource_changes(tmp_path, capsys):
    """Re-imports skip validating versions stored as they are (issue 14), but never when the resource or
    group around them changed: a schema whose format becomes Avro has its unchanged JSON Schema versions
    checked again, and refused."""
    lines = [
        {"path": "/schemaGroups/skip.g", "description": "group"},
        {"path": "/schemaGroups/skip.g/schemas/s", "format": "JsonSchema/draft-07"},
        {"path": "/schemaGroups/skip.g/schemas/s/versions/1", "schema": {"type": "object"}},
    ]
    source = tmp_path / "first.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    code, out = spark_import(capsys, str(source))
    assert code == 0 and out[-1] == "created 3, updated 0, unchanged 0, rejected 0", out
    code, out = spark_import(capsys, str(source))
    assert code == 0 and out[-1] == "created 0, updated 0, unchanged 3, rejected 0", out

    lines[1]["format"] = "Avro/1.11.0"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    report = tmp_path / "report.json"
    code, out = spark_import(capsys, str(source), "--report", str(report))
    assert code == 3, out
    rejected = {r["path"] for r in json.loads(report.read_text())["rejected"]}
    assert "/schemaGroups/skip.g/schemas/s/versions/1" in rejected


def test_synced_entities_are_refused_and_retention_applies_as_through_the_api(tmp_path, capsys):
    """Issue 12: the Spark door keeps the services' rules. A group synced from another registry changes only
    through its sync (a new schema in it is rejected with the API's wording, nothing written), and a type that
    keeps one version (definitions) keeps one, with the `deleted` event of the version it drops."""
    from registry.documents.imports import import_document
    from registry.services import WriteContext

    import_document(
        WriteContext(user="sync", origin="https://other.example/registry"),
        {
            "schemaGroups": {
                "synced": {
                    "schemas": {
                        "s": {"versions": {"1": {"format": "JsonSchema/draft-07", "schema": {"type": "object"}}}}
                    }
                }
            }
        },
    )
    before = Version.objects.count()
    lines = [
        {
            "path": "/schemaGroups/synced/schemas/extra/versions/1",
            "format": "JsonSchema/draft-07",
            "schema": {"type": "string"},
        },
        {"path": "/definitionGroups/retained", "format": "CloudEvents/1.0"},
        *(
            {
                "path": f"/definitionGroups/retained/definitions/d/versions/{vid}",
                "definition": {
                    "format": "CloudEvents/1.0",
                    "metadata": {"attributes": {"type": {"value": f"com.example.d{vid}"}}},
                },
            }
            for vid in ("1", "2")
        ),
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    report = tmp_path / "report.json"
    code, out = spark_import(capsys, str(source), "--report", str(report))
    assert code == 3, out
    rejected = {r["path"]: r["reason"] for r in json.loads(report.read_text())["rejected"]}
    assert rejected == {  # the new schema, as the API words it, and its version with it
        "/schemaGroups/synced/schemas/extra": "/schemaGroups/synced is synced from https://other.example/registry; "
        "change it there (local edits are refused)",
        "/schemaGroups/synced/schemas/extra/versions/1": "/schemaGroups/synced/schemas/extra was rejected",
    }
    assert not Resource.objects.filter(rid="extra").exists()
    kept = list(Version.objects.filter(resource__rid="d").values_list("vid", flat=True))
    assert kept == ["2"]
    assert Version.objects.count() == before + 1
    assert OutboxEvent.objects.filter(
        type__endswith="deleted.v1", subject="/definitionGroups/retained/definitions/d/versions/1"
    ).exists()


def test_the_same_accepted_change_gives_the_same_schema_as_every_other_door(tmp_path, capsys):
    """Issue 12: the Spark door of tests/registry/hardening/test_every_door.py's comparison. The same new Avro schema
    gives the same versions, epoch, document and format as through the APIs, the admin and a document; its
    change events are coalesced to the group's one `updated` event (a bulk import's documented difference)."""
    from registry.documents.imports import import_document
    from registry.services import WriteContext
    from tests.registry.hardening.test_every_door import AVRO_1, stored_schema

    import_document(WriteContext(user="seed"), {"schemaGroups": {"g": {"format": "Avro/1.11"}}})
    OutboxEvent.objects.all().delete()
    source = tmp_path / "in.jsonl"
    source.write_text(
        json.dumps({"path": "/schemaGroups/g/schemas/s/versions/1", "format": "Avro/1.11", "schema": AVRO_1}) + "\n"
    )
    code, out = spark_import(capsys, str(source))
    assert code == 0, out
    versions, latest, epoch, document, fmt, events = stored_schema()
    assert (versions, latest, epoch, document, fmt) == (["1"], "1", 1, AVRO_1, "Avro/1.11")
    assert list(OutboxEvent.objects.values_list("type", "subject")) == [
        ("io.cloudevents.schemaregistry.updated.v1", "/schemaGroups/g")
    ]


def test_a_group_format_change_is_refused_as_by_every_other_door(tmp_path, capsys):
    """Issue 12: the group type's rules see the stored group on the executors too. A schema group's format is
    frozen while it holds schemas (the change is rejected with the services' wording, nothing written); a line
    that only names the group in its path (an implicit group) is not a change and its new version goes in."""
    from registry.documents.imports import import_document
    from registry.services import WriteContext
    from tests.registry.hardening.test_every_door import AVRO_1

    import_document(
        WriteContext(user="seed"),
        {
            "schemaGroups": {
                "orders": {
                    "format": "Avro/1.11",
                    "schemas": {
                        "Order": {"format": "Avro/1.11", "versions": {"1": {"format": "Avro/1.11", "schema": AVRO_1}}}
                    },
                }
            }
        },
    )
    changed = tmp_path / "change.jsonl"
    changed.write_text(json.dumps({"path": "/schemaGroups/orders", "format": "JsonSchema/draft-07"}) + "\n")
    report = tmp_path / "report.json"
    code, out = spark_import(capsys, str(changed), "--report", str(report))
    assert code == 3, out
    rejected = {r["path"]: r["reason"] for r in json.loads(report.read_text())["rejected"]}
    assert rejected == {
        "/schemaGroups/orders": "format cannot change from 'Avro/1.11' to 'JsonSchema/draft-07' "
        "while the group has schemas"
    }
    assert Group.objects.get(gid="orders").extensions["format"] == "Avro/1.11"

    added = tmp_path / "add.jsonl"
    v2 = {**AVRO_1, "fields": [*AVRO_1["fields"], {"name": "note", "type": "string", "default": ""}]}
    added.write_text(
        json.dumps({"path": "/schemaGroups/orders/schemas/Order/versions/2", "format": "Avro/1.11", "schema": v2})
        + "\n"
    )
    code, out = spark_import(capsys, str(added))
    assert code == 0, out
    assert sorted(Version.objects.filter(resource__rid="Order").values_list("vid", flat=True)) == ["1", "2"]


def test_the_attributes_apps_give_a_meaning_to_are_checked_on_the_executors(tmp_path, capsys):
    """Issue 37 item 5: the Confluent API's `confluentmode` (of a schema group or a schema) and `confluentpending` are
    checked by the bulk import as by every other door (registry/domain/extension_attributes.py): a value the API does not
    know is rejected with its reason, the rest goes in."""
    lines = tmp_path / "modes.jsonl"
    lines.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                {"path": "/schemaGroups/ok", "confluentmode": "READONLY"},
                {"path": "/schemaGroups/bad", "confluentmode": "SOMETIMES"},
                {"path": "/schemaGroups/pending", "confluentpending": {"s": {"confluentmode": "NEVER"}}},
                {"path": "/schemaGroups/ok/schemas/s", "confluentmode": "never"},
                {"path": "/schemaGroups/ok/schemas/s/versions/1", "format": "JsonSchema/draft-07", "schema": {}},
            ]
        )
        + "\n"
    )
    report = tmp_path / "report.json"
    code, out = spark_import(capsys, str(lines), "--report", str(report))
    assert code == 3, out
    rejected = {r["path"]: r["reason"] for r in json.loads(report.read_text())["rejected"]}
    assert {"/schemaGroups/bad", "/schemaGroups/pending", "/schemaGroups/ok/schemas/s"} <= set(rejected), rejected
    assert (
        "confluentmode" in rejected["/schemaGroups/bad"] and "confluentmode" in rejected["/schemaGroups/ok/schemas/s"]
    )
    assert "confluentpending" in rejected["/schemaGroups/pending"], rejected
    assert list(Group.objects.values_list("gid", "extensions")) == [("ok", {"confluentmode": "READONLY"})]
    assert not Resource.objects.exists()


def test_an_unchanged_input_is_answered_without_spark(tmp_path, capsys):
    """Issue 14: an input that an import left the registry consistent with, while nothing has changed since,
    is unchanged as a whole (its files' fingerprint); after any change to the registry it is read again."""
    from registry.documents.imports import import_document
    from registry.services import WriteContext

    source = tmp_path / "in.jsonl"
    source.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                {"path": "/schemaGroups/bulk.same", "description": "as the input says"},
                {
                    "path": "/schemaGroups/bulk.same/schemas/s/versions/1",
                    "format": "JsonSchema/draft-07",
                    "schema": {"type": "object"},
                },
            ]
        )
        + "\n"
    )
    code, out = spark_import(capsys, str(source))
    assert code == 0 and out[-1] == "created 3, updated 0, unchanged 0, rejected 0", out

    def again():
        call_command("spark_import", str(source), "--master", "local[2]", "-v", "2")
        captured = capsys.readouterr()
        return captured.out.strip().splitlines()[-1], captured.err

    summary, steps = again()
    assert summary == "created 0, updated 0, unchanged 3, rejected 0"
    assert "nothing to read" in steps and "Spark started" not in steps

    import_document(WriteContext(user="someone"), {"schemaGroups": {"bulk.same": {"description": "edited"}}})
    summary, steps = again()
    assert summary == "created 0, updated 1, unchanged 2, rejected 0" and "Spark started" in steps
    assert Group.objects.get(gid="bulk.same").description == "as the input says"
    summary, steps = again()
    assert summary == "created 0, updated 0, unchanged 3, rejected 0" and "nothing to read" in steps


def test_a_name_differing_from_a_known_one_only_by_case_is_rejected(tmp_path, capsys):
    """Issue 37 item 11: on Spark's executors too, `OWNERS` is not an extension beside `owners`, nor `Compatibility`
    beside a version's `compatibility`: rejected with the name and the known one, nothing written; the other lines go in."""
    lines = tmp_path / "case.jsonl"
    lines.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                {"path": "/schemaGroups/cased", "OWNERS": {"team-a": "owner"}},
                {"path": "/schemaGroups/fine", "description": "its schema s is refused, t is not"},
                {
                    "path": "/schemaGroups/fine/schemas/s/versions/1",
                    "format": "Custom/1",
                    "Compatibility": "x",
                    "schema": "a",
                },
                {"path": "/schemaGroups/fine/schemas/t/versions/1", "format": "Custom/1", "schema": "b"},
            ]
        )
        + "\n"
    )
    report = tmp_path / "report.json"
    code, out = spark_import(capsys, str(lines), "--report", str(report))
    assert code == 3, out
    rejected = {r["path"]: r["reason"] for r in json.loads(report.read_text())["rejected"]}
    assert rejected == {
        "/schemaGroups/cased": "OWNERS differs from the attribute owners only by case",
        "/schemaGroups/fine/schemas/s/versions/1": "Compatibility differs from the attribute compatibility only by case",
    }
    assert not Group.objects.filter(gid="cased").exists()
    assert list(Resource.objects.filter(group__gid="fine").values_list("rid", flat=True)) == ["t"]


def test_a_bulk_import_is_numbered_for_the_confluent_api_when_it_commits(tmp_path, capsys, client):
    """Issue 40: the imported schemas are subjects numbered by the import, so that the Confluent API's first read
    after it only reads (it numbered every new subject inside that GET: 24 s at 20,000 versions)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    source = tmp_path / "in.jsonl"
    groups = [json.dumps({"path": f"/schemaGroups/{group}"}) for group in ("confluent", "team")]
    source.write_text(
        "\n".join(
            groups
            + [
                json.dumps(
                    {
                        "path": f"/schemaGroups/{group}/schemas/s{n}/versions/{v}",
                        "format": "JsonSchema/draft-07",
                        "schema": {"type": "object", "title": f"{group} {n} {v}"},
                    }
                )
                for group in ("confluent", "team")
                for n in range(3)
                for v in (1, 2)
            ]
        )
        + "\n"
    )
    code, out = spark_import(capsys, str(source))
    assert code == 0, out
    with CaptureQueriesContext(connection) as queries:
        subjects = client.get("/confluent/subjects").json()
        versions = client.get("/confluent/subjects/:.team:s2/versions").json()
    assert subjects == [":.team:s0", ":.team:s1", ":.team:s2", "s0", "s1", "s2"]
    assert versions == [1, 2]
    assert [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().upper().startswith("INSERT")] == []
