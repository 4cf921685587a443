"""Registry documents: every corpus file imports, exports and round-trips; invalid documents are refused whole.

Round trip: import, export, import again changes nothing and writes no outbox rows (docs/api-contract.md section 6).
"""

import json
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from registry.documents.exports import document_text, export_document
from registry.documents.formats import dump_document, parse_document
from registry.documents.imports import import_document
from registry.domain.errors import Problem
from registry.models import Group, OutboxEvent, Resource, Version
from registry.services import WriteContext
from tests.corpus import cases, corpus, documents

SEED = cases(lambda: documents("seed-shape", "*.cereg*"))


def load(path: Path) -> dict:
    return parse_document(path.read_bytes(), yaml_format=path.name.endswith((".yaml", ".yml")))


def counts() -> tuple[int, int, int, int]:
    return Group.objects.count(), Resource.objects.count(), Version.objects.count(), OutboxEvent.objects.count()


@pytest.mark.corpus
@pytest.mark.django_db
@pytest.mark.parametrize("path", SEED, ids=[p.name for p in SEED])
def test_corpus_file_imports_exports_and_round_trips(path):
    report = import_document(WriteContext(user="test"), load(path))
    assert report.created and not report.updated
    assert set(report.created) == {p for p in report.created}  # each path once
    before = counts()
    exported = export_document()
    again = import_document(WriteContext(user="test"), json.loads(json.dumps(exported)))
    assert again.created == [] and again.updated == []
    assert counts() == before, "re-importing an export changed something or emitted events"
    as_yaml = parse_document(dump_document(exported, yaml_format=True).encode(), yaml_format=True)
    assert as_yaml == json.loads(json.dumps(exported))
    # written a group at a time (manage.py export_registry, the admin's export): the same text
    assert "".join(document_text()) + "\n" == dump_document(exported, yaml_format=False)
    assert "".join(document_text(yaml_format=True)) == dump_document(exported, yaml_format=True)
    assert export_document() == exported


@pytest.mark.django_db
def test_import_report_paths_and_events():
    report = import_document(WriteContext(user="test"), load(corpus("seed-shape", "lightbulb-avro.cereg")))
    assert "/schemaGroups/Fabrikam.Lumen" in report.created
    assert "/definitionGroups/Fabrikam.Lumen/definitions/Fabrikam.Lumen.TurnedOn" in report.created
    assert any(p.endswith("/versions/1") for p in report.created)
    subjects = set(OutboxEvent.objects.values_list("subject", flat=True))
    assert subjects == set(report.created)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["contoso-crm.cereg", "contoso-crm.cereg.yaml"])
def test_invalid_corpus_documents_are_refused_whole_with_every_error(name):
    with pytest.raises(Problem) as caught:
        import_document(WriteContext(), load(corpus("invalid", name)))
    problem = caught.value
    assert problem.status == 400
    paths = [e["path"] for e in problem.errors]
    reasons = " ".join(e["reason"] for e in problem.errors)
    if name.endswith(".yaml"):
        assert "/schemagroups" in paths  # the misspelt key
    else:
        assert "format" in reasons  # a definition's format that differs from its group's
        assert "schemaformat" in reasons
        assert len([p for p in paths if "/definitions/" in p]) >= 2  # every definition named
    assert counts() == (0, 0, 0, 0)


@pytest.mark.django_db
def test_unresolvable_reference_is_refused_unless_the_import_is_forced():
    """CONTRACT 18 (issue 39 item 3): refused, naming it; issue 24 item 9: the store keeps dangling references (a
    forced delete), so a forced import accepts them, each a warning"""
    doc = {
        "specversion": "0.5-wip",
        "definitionGroups": {
            "g": {
                "format": "CloudEvents/1.0",
                "definitions": {
                    "d": {
                        "format": "CloudEvents/1.0",
                        "schemaformat": "JsonSchema/draft-07",
                        "schemaurl": "#/schemaGroups/nope/schemas/missing",
                        "metadata": {"attributes": {"type": {"value": "t"}}},
                    }
                },
            }
        },
    }
    with pytest.raises(Problem) as refused:
        import_document(WriteContext(), doc)
    assert refused.value.errors == [
        {
            "path": "/definitionGroups/g/definitions/d/schemaurl",
            "reason": "reference '#/schemaGroups/nope/schemas/missing' does not resolve",
        }
    ]
    assert Group.objects.count() == 0
    report = import_document(WriteContext(), doc, force=True)
    assert report.warnings == [
        {
            "path": "/definitionGroups/g/definitions/d/schemaurl",
            "reason": "reference '#/schemaGroups/nope/schemas/missing' does not resolve; kept as written",
        }
    ]
    assert Group.objects.count() == 1


@pytest.mark.django_db
def test_name_suffix_reference_resolves_and_is_kept_as_written():
    doc = load(corpus("seed-shape", "mqtt-sparkplugB.cereg"))
    import_document(WriteContext(), doc)
    exported = json.dumps(export_document())
    assert ":messages/STATEBirth" in exported


def test_yaml_alias_bomb_is_refused_quickly():
    import time

    levels = [f"l{i}" for i in range(21)]
    few = "l0: &l0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{b}: &{b} [*{a}, *{a}, *{a}, *{a}]\n" for a, b in zip(levels, levels[1:], strict=False)
    )
    many = "a: &a x\nb: [" + ", ".join(["*a"] * 500) + "]\n"
    for bomb, words in ((few, "expanded"), (many, "aliases")):
        started = time.monotonic()
        with pytest.raises(Problem) as caught:
            parse_document(bomb.encode(), yaml_format=True)
        assert words in caught.value.detail
        assert time.monotonic() - started < 10


def test_deeply_nested_json_is_refused():
    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(Problem):
        parse_document(('{"x": ' + deep + "}").encode(), yaml_format=False)


def test_non_object_document_is_refused():
    with pytest.raises(Problem):
        parse_document(b"[1, 2]", yaml_format=False)
    with pytest.raises(Problem):
        parse_document(yaml.safe_dump(["a"]).encode(), yaml_format=True)


@pytest.mark.django_db
def test_import_and_export_commands(tmp_path, capsys):
    call_command("import_registry", str(corpus("seed-shape", "inkjet-proto3.cereg")))
    out = capsys.readouterr().out
    assert "schemaGroups: created 1, updated 0, unchanged 0" in out
    assert out.strip().splitlines()[-1].startswith("total: created ")
    target = tmp_path / "export.cereg.yaml"
    call_command("export_registry", "-o", str(target), "--yaml")
    exported = yaml.safe_load(target.read_text())
    assert exported["specversion"] == "0.5-wip"
    assert "schemaGroups" in exported
    call_command("import_registry", str(target))
    assert "total: created 0, updated 0" in capsys.readouterr().out
