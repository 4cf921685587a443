"""The exports that have no size limit (`manage.py export_registry`, the admin's export page and its action on
selected groups) are written a group at a time: the same text as the whole document dumped at once, with a
memory that does not hold the whole document (issue 40 part B: at a million versions the whole document is
gigabytes, and `export_registry` is the way the HTTP refusals name)."""

import json
import tracemalloc

import pytest
import yaml
from django.core.management import call_command
from django.urls import reverse

from catalog.models import SchemaGroup
from registry.documents.exports import document_text, export_document
from registry.documents.formats import dump_document
from registry.documents.imports import import_document
from registry.services import WriteContext

pytestmark = pytest.mark.django_db


def registry(groups: int, padding: int = 0) -> None:
    """`groups` schema groups of two schemas, one of two versions; the documents JSON, `padding` bytes longer."""

    def schema(n: int) -> dict:
        return {
            "type": "object",
            "title": f"t{n}",
            "description": "x" * padding,
            "properties": {"a": {"type": "string"}},
        }

    doc = {
        "specversion": "0.5-wip",
        "schemaGroups": {
            f"g{g:04d}": {
                "description": "a group — with non-ASCII",
                "tags": {"team": f"t{g % 3}"},
                "schemas": {
                    "one": {"format": "JsonSchema/draft-07", "versions": {"1": {"schema": schema(1)}}},
                    "two": {
                        "format": "JsonSchema/draft-07",
                        "versions": {"1": {"schema": schema(1)}, "2": {"schema": schema(2), "description": "b\nc"}},
                    },
                },
            }
            for g in range(groups)
        },
        "definitionGroups": {
            "d": {
                "definitions": {
                    "e": {"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "t"}}}}
                }
            }
        },
    }
    import_document(WriteContext(user="test"), doc)


def test_the_text_is_the_whole_dump_s(settings):
    registry(3)
    whole = export_document()
    assert "".join(document_text()) + "\n" == dump_document(whole, yaml_format=False)
    assert "".join(document_text(yaml_format=True)) == dump_document(whole, yaml_format=True)
    one_type = export_document("schemaGroups")
    assert "".join(document_text("schemaGroups")) + "\n" == dump_document(one_type, yaml_format=False)
    assert "".join(document_text("endpoints", yaml_format=True)) == dump_document(
        export_document("endpoints"), yaml_format=True
    )  # a type without groups: `endpoints: {}`
    one = export_document("schemaGroups", "g0001")
    assert "".join(document_text("schemaGroups", "g0001", yaml_format=True)) == dump_document(one, yaml_format=True)


def test_the_command_writes_what_it_wrote_before(tmp_path, capsys):
    registry(3)
    call_command("export_registry")
    assert capsys.readouterr().out == dump_document(export_document(), yaml_format=False)
    target = tmp_path / "out.cereg.yaml"
    call_command("export_registry", "-o", str(target), "--yaml", "--group", "schemaGroups")
    assert target.read_text() == dump_document(export_document("schemaGroups"), yaml_format=True)
    assert yaml.safe_load(target.read_text()) == json.loads(json.dumps(export_document("schemaGroups")))


def traced_peak(write) -> int:
    """The peak of Python memory allocated while `write()` runs."""
    tracemalloc.start()
    try:
        write()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_command_holds_a_chunk_of_groups_not_the_registry(tmp_path):
    """Its peak of Python memory is a fraction of that of the whole document dumped at once (what it did: the
    document as objects, then as text), and it grows with a chunk of groups, not with the registry."""
    registry(150, padding=4000)
    target = tmp_path / "out.cereg"
    whole = traced_peak(lambda: target.write_text(dump_document(export_document(), yaml_format=False)))
    written = target.read_text()
    streamed = traced_peak(lambda: call_command("export_registry", "-o", str(target)))
    assert target.read_text() == written
    assert streamed < whole / 2, (streamed, whole)


def test_the_admin_exports_the_selected_groups_only(client, superuser):
    registry(4)
    client.force_login(superuser)
    selected = list(SchemaGroup.objects.filter(gid__in=["g0001", "g0003"]).values_list("pk", flat=True))
    response = client.post(
        reverse("admin:catalog_schemagroup_changelist"),
        {"action": "export_document", "_selected_action": selected},
    )
    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()
    whole = export_document("schemaGroups")
    whole["schemaGroups"] = {gid: whole["schemaGroups"][gid] for gid in ("g0001", "g0003")}
    assert text == json.dumps(whole, indent=2, ensure_ascii=False)  # what the action wrote before
    assert response["Content-Disposition"] == 'attachment; filename="schemaGroups.cereg"'
