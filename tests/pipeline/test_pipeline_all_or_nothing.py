"""Issue 11 items 2 and 4: a resource and its versions are written together or not at all by spark_import,
one bad entity never fails the whole import, and a resource without versions (however it arose) reads
without a 500."""

import json

import pytest

from registry.models import Resource
from tests.helpers import assert_problem
from tests.pipeline.test_spark_import import spark_import

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.slow
def test_a_new_resource_whose_only_version_is_rejected_is_not_written(tmp_path, capsys, anon):
    """issue 11 item 2, as reported: three CloudEvents definitions, one declaring type not required"""
    source = tmp_path / "defs.cereg"
    source.write_text(
        json.dumps(
            {
                "specversion": "0.5-wip",
                "definitionGroups": {
                    "G": {
                        "format": "CloudEvents/1.0",
                        "definitions": {
                            name: {
                                "format": "CloudEvents/1.0",
                                "metadata": {
                                    "attributes": {
                                        "type": {"value": name.lower(), **({"required": False} if name == "B" else {})}
                                    }
                                },
                            }
                            for name in ("A", "B", "C")
                        },
                    }
                },
            }
        )
    )
    report = tmp_path / "report.json"
    code, lines = spark_import(capsys, str(source), "--report", str(report))
    assert code == 3, lines
    rejected = {r["path"] for r in json.loads(report.read_text())["rejected"]}
    assert rejected == {"/definitionGroups/G/definitions/B", "/definitionGroups/G/definitions/B/versions/1"}
    assert sorted(anon.get("/definitionGroups/G/definitions").json()) == ["A", "C"]
    assert_problem(anon.get("/definitionGroups/G/definitions/B"), 404)
    assert not Resource.objects.filter(rid="B").exists()


@pytest.mark.slow
def test_a_format_that_is_not_a_string_rejects_that_entity_only(tmp_path, capsys):
    """issue 11 item 4"""
    lines = [
        {"path": "/schemaGroups/g4"},
        {
            "path": "/schemaGroups/g4/schemas/ok/versions/1",
            "format": "JsonSchema/draft-07",
            "schema": {"type": "object"},
        },
    ]
    lines += [
        {"path": f"/schemaGroups/g4/schemas/{n}/versions/1", "format": fmt, "schema": {"type": "object"}}
        for n, fmt in (("list", ["x"]), ("object", {"a": 1}), ("number", 7))
    ]
    lines.append({"path": "/definitionGroups/d4", "format": 5})
    source = tmp_path / "mixed.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    report = tmp_path / "report.json"
    code, out = spark_import(capsys, str(source), "--report", str(report))
    assert code == 3, out
    assert out[-1] == "created 3, updated 0, unchanged 0, rejected 4"
    reasons = {r["path"]: r["reason"] for r in json.loads(report.read_text())["rejected"]}
    assert "format must be a string" in reasons["/schemaGroups/g4/schemas/list/versions/1"]
    assert "/definitionGroups/d4" in reasons


def test_a_resource_without_versions_reads_without_500(su, anon):
    """issue 11 item 2: one that exists from older data (no write path leaves one)"""
    from tests.helpers import make_group, post_schema

    make_group(su)
    post_schema(su, sid="s1")
    post_schema(su, sid="s2")
    resource = Resource.objects.get(rid="s2")
    resource.versions.all().delete()
    Resource.objects.filter(pk=resource.pk).update(latest=None)
    assert_problem(anon.get("/schemaGroups/g1/schemas/s2"), 404, "has no version")
    meta = anon.get("/schemaGroups/g1/schemas/s2?meta")
    assert meta.status_code == 200 and meta.json()["versionsCount"] == 0
    for path in (
        "/schemaGroups/g1/schemas",
        "/schemaGroups/g1/schemas?inline",
        "/schemaGroups/g1?inline",
        "/schemaGroups/g1/schemas/s2/versions",
        "/schemaregistry/schemagroups/g1/schemas",
    ):
        assert anon.get(path).status_code == 200, path
    whole = anon.get("/?inline", HTTP_ACCEPT="application/cloudevents-registry+json")
    assert whole.status_code == 200
    json.loads(b"".join(whole.streaming_content))
