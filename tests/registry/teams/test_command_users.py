"""Issue 37 (the next instance of "every door, one rule"): `import_registry --user USER` and `import_asyncapi --user
USER` write as that user, as `spark_import --as USER` does: each entity needs that user's rights (a document touching
one entity they may not write is refused whole, naming it, nothing written), the audit trail names them as a user.
They used to label the changes with the name and write as the trusted system. Without `--user` the commands stay the
system; a name no active user has is refused before anything is read."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from registry.models import AuditRecord, Group, Resource
from tests.asyncapi.conftest import DOCUMENTS, post_asyncapi
from tests.helpers import snapshot
from tests.registry.teams.conftest import OWNERS_A, OWNERS_B

FMT = "JsonSchema/draft-07"
SCHEMA = {"format": FMT, "versions": {"1": {"format": FMT, "schema": {"type": "object"}}}}


def write(tmp_path, name: str, document: dict):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return str(path)


def import_registry(*args) -> tuple[bool, str, str]:
    """(accepted, stdout, stderr) of `import_registry ARGS`."""
    from io import StringIO

    out, err = StringIO(), StringIO()
    try:
        call_command("import_registry", *args, stdout=out, stderr=err)
        return True, out.getvalue(), err.getvalue()
    except CommandError as exc:
        return False, out.getvalue(), err.getvalue() + str(exc)


def test_import_registry_as_a_team_editor(teams, tmp_path):
    a = {"owners": OWNERS_A}  # a document's group carries its attributes: without its owners it would remove them
    ours = write(tmp_path, "ours.json", {"schemaGroups": {"A": {**a, "schemas": {"s": SCHEMA}}}})
    theirs = write(
        tmp_path,
        "theirs.json",
        {"schemaGroups": {"A": {**a, "schemas": {"t": SCHEMA}}, "B": {"owners": OWNERS_B, "schemas": {"s": SCHEMA}}}},
    )
    open_group = write(tmp_path, "open.json", {"schemaGroups": {"C": {"description": "taken over"}}})
    AuditRecord.objects.all().delete()
    before = snapshot()
    for path, named in ((theirs, "/schemaGroups/B"), (open_group, "registry.change_group")):
        accepted, _out, err = import_registry(path, "--user", "editor_a")
        assert not accepted and named in err, err
        assert snapshot() == before
    accepted, out, err = import_registry(ours, "--user", "editor_a")
    assert accepted, err
    assert Resource.objects.filter(group__gid="A", rid="s").exists()
    audited = set(AuditRecord.objects.values_list("actor", "authtype", "door", "path"))
    assert ("editor_a", "user", "import", "/schemaGroups/A/schemas/s") in audited, audited
    assert {row[:3] for row in audited} == {("editor_a", "user", "import")}


def test_import_registry_as_a_user_makes_no_teams_unless_a_registry_admin(teams, tmp_path):
    named = write(tmp_path, "new.json", {"schemaGroups": {"N": {"owners": {"team-new": "owner"}}}})
    teams.users["outsider"].user_permissions.clear()  # its team "Registry editors" may create groups
    before = snapshot()
    accepted, _out, err = import_registry(named, "--user", "outsider")
    assert not accepted and "owners.team-new" in err, err
    assert snapshot() == before
    accepted, out, err = import_registry(named, "--user", "admin")
    assert accepted and "teams created: team-new" in out, (out, err)
    assert AuditRecord.objects.get(path="/schemaGroups/N").actor == "admin"


def test_import_registry_without_user_is_the_system_and_an_unknown_user_is_refused(teams, tmp_path):
    path = write(tmp_path, "b.json", {"schemaGroups": {"B": {"description": "by the system"}}})
    before = snapshot()
    teams.users["editor_a"].is_active = False
    teams.users["editor_a"].save()
    for name in ("nobody", "editor_a"):
        with pytest.raises(CommandError, match=f"--user {name}: no active user is called '{name}'"):
            call_command("import_registry", path, "--user", name)
        assert snapshot() == before
    accepted, _out, err = import_registry(path)
    assert accepted, err
    assert Group.objects.get(gid="B").description == "by the system"
    row = AuditRecord.objects.get(path="/schemaGroups/B", operation="update")
    assert (row.actor, row.authtype) == ("system:import", "system")


def test_import_asyncapi_as_a_team_editor(teams, su):
    document = DOCUMENTS / "2.6-simple.yml"
    response = post_asyncapi(su, document.read_bytes(), query="?prefix=B&dryrun=true")
    assert response.status_code == 200, response.content
    for group in {p.split("/")[2] for p in json.dumps(response.json()).split('"') if p.startswith("/")}:
        su.put(f"/registry/messagegroups/{group}", {"owners": {"team-b": "owner"}}, format="json")
        su.put(f"/registry/schemagroups/{group}", {"owners": {"team-b": "owner"}}, format="json")
    before = snapshot()
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_asyncapi", str(document), "--group-prefix", "B", "--user", "editor_a")
    assert snapshot() == before
    with pytest.raises(CommandError, match="no active user is called 'nobody'"):
        call_command("import_asyncapi", str(document), "--group-prefix", "B", "--user", "nobody")
    assert snapshot() == before
    call_command("import_asyncapi", str(document), "--group-prefix", "B", "--user", "owner_b")
    written = AuditRecord.objects.exclude(pk__in=[]).filter(door="import")
    assert written.exists()
    assert set(written.values_list("actor", "authtype")) == {("owner_b", "user")}
