"""Issue 26 papercuts of the management commands: an unknown --group is one error with exit status 2 (it marked
every message invalid, or printed a traceback), and progress is plain lines when stderr is not a terminal (tqdm's
carriage returns filled CI logs)."""

import json

import pytest
from django.core.management import CommandError, call_command

from tests.helpers import make_definition_group, make_group, snapshot

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("group", ["nope", "schemaGroups/nope", "Nope/x", "definitionGroups/nope"])
def test_export_registry_with_an_unknown_group_is_one_error(su, group, capsys):
    make_group(su, "g1")
    with pytest.raises(CommandError) as caught:
        call_command("export_registry", "--group", group)
    assert caught.value.returncode == 2
    message = str(caught.value)
    assert "\n" not in message and group in message
    assert capsys.readouterr().out == ""


def test_export_registry_of_a_group_and_of_a_type_still_work(su, capsys):
    make_group(su, "g1")
    make_group(su, "g2")
    call_command("export_registry", "--group", "schemaGroups/g1")
    assert set(json.loads(capsys.readouterr().out)["schemaGroups"]) == {"g1"}
    call_command("export_registry", "--group", "schemaGroups")
    assert set(json.loads(capsys.readouterr().out)["schemaGroups"]) == {"g1", "g2"}


def test_validate_messages_with_an_unknown_group_is_one_error(su, tmp_path, capsys):
    make_definition_group(su, "Real.Group")
    events = tmp_path / "events.jsonl"
    events.write_text(
        "\n".join(json.dumps({"specversion": "1.0", "id": str(i), "source": "/s", "type": "t"}) for i in range(3))
        + "\n"
    )
    with pytest.raises(CommandError) as caught:
        call_command("validate_messages", str(events), "--group", "Nope.Group")
    assert caught.value.returncode == 2
    assert str(caught.value) == "--group Nope.Group: no such definition group"
    assert capsys.readouterr().out == ""  # no message was marked invalid


def test_import_registry_progress_is_plain_lines_off_a_terminal(su, tmp_path, capsys):
    paths = []
    for gid in ("a", "b", "c"):
        path = tmp_path / f"{gid}.cereg"
        path.write_text(json.dumps({"specversion": "0.5-wip", "schemaGroups": {gid: {}}}))
        paths.append(str(path))
    before = snapshot()
    call_command("import_registry", *paths)
    err = capsys.readouterr().err
    assert "\r" not in err and "\x1b" not in err
    assert "importing: 3/3 files" in err.splitlines()[-1], err
    assert snapshot() != before


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_spark_import_progress_is_plain_lines_off_a_terminal(tmp_path, capsys):
    import shutil

    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"path": "/schemaGroups/plain.lines"}) + "\n")
    call_command("spark_import", str(source), "--dry-run", "--master", "local[1]")
    captured = capsys.readouterr()
    assert "\r" not in captured.err
    steps = [line for line in captured.err.splitlines() if line.startswith("spark_import: ")]
    assert len(steps) >= 2, captured.err
    assert captured.out.strip().splitlines()[-1].startswith("created 1,")
