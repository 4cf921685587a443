"""A group that has owners keeps an `owner` team (issue 37 item 7, CONTRACT section 19): no change by anyone but a
registry admin may leave it without one, whatever `REGISTRY_REQUIRE_OWNERS` says. A PUT replaces the group's
attributes, so an owner's PUT without `owners` would drop them (and the owner could not set them back): 400 naming
`owners` in the binding's words, nothing written, through every door that replaces a group's attributes (the 0.5
and 1.0 PUTs, 1.0 PATCH and POST of groups, the older bindings' group PUTs, document imports through both bindings,
the admin's import page and group form, a Spark import as a user). A change that keeps an owner team is accepted; a
registry admin may still remove the owners."""

import json
import re
import shutil

import pytest
from django.contrib.auth.models import Group as Team
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from registry.access.roles import EDITORS
from registry.models import Group
from tests.helpers import snapshot

from .conftest import OWNERS_A

FMT = "CloudEvents/1.0"


@pytest.fixture(params=[False, True], ids=["owners-optional", "owners-required"])
def required(request, settings):
    settings.REGISTRY_REQUIRE_OWNERS = request.param
    return request.param


@pytest.fixture
def with_definitions(teams, su):
    """A definition group `D` that team-a owns (the Message Catalog binding's door)."""
    response = su.put("/definitionGroups/D", {"format": FMT, "owners": OWNERS_A}, format="json")
    assert response.status_code == 201, response.content
    return teams


def _send(client, method, path, body):
    return client.generic(method, path, json.dumps(body), content_type="application/json")


# (method, path, body): each leaves the group A (or D) without an owner team
HTTP_DOORS = [
    ("PUT", "/schemaGroups/A", {"description": "v2"}),
    ("PUT", "/schemaGroups/A", {"description": "v2", "owners": {}}),
    ("PUT", "/schemaGroups/A", {"description": "v2", "owners": {"team-a-dev": "editor"}}),
    ("PUT", "/registry/schemagroups/A", {"description": "v2"}),
    ("PUT", "/registry/schemagroups/A", {"owners": {"team-a": "editor", "team-audit": "reader"}}),
    ("PATCH", "/registry/schemagroups/A", {"owners": None}),
    ("PATCH", "/registry/schemagroups/A", {"owners": {}}),
    ("POST", "/registry/schemagroups", {"A": {"description": "v2"}}),
    ("PUT", "/schemaregistry/schemagroups/A", {"description": "v2"}),
    ("PUT", "/messagecatalog/D", {"format": FMT, "description": "v2"}),
    ("POST", "/", {"schemaGroups": {"A": {"description": "v2"}}}),
    ("POST", "/registry/", {"schemagroups": {"A": {"description": "v2"}}}),
]


@pytest.mark.parametrize("method,path,body", HTTP_DOORS, ids=[f"{m} {p} {b}" for m, p, b in HTTP_DOORS])
def test_an_owner_may_not_leave_the_group_without_an_owner_team(with_definitions, required, method, path, body):
    owner = with_definitions["owner_a"]
    before = snapshot()
    response = _send(owner, method, path, body)
    assert response.status_code == 400, response.content
    problem = response.json()
    text = json.dumps(problem)
    assert "owners" in problem["detail"] or "owners" in text, problem
    assert "without a team with the role owner" in text, problem
    assert snapshot() == before
    assert Group.objects.get(gid="A").extensions["owners"] == OWNERS_A


def test_the_refusal_names_owners_in_each_binding_s_words(teams):
    owner = teams["owner_a"]
    core = _send(owner, "PUT", "/schemaGroups/A", {"description": "v2"})
    assert core["Content-Type"].startswith("application/problem+json")
    assert core.json()["detail"].startswith("/schemaGroups/A: owners: "), core.json()
    v10 = _send(owner, "PUT", "/registry/schemagroups/A", {"description": "v2"})
    assert v10.status_code == 400
    assert v10.json()["type"].endswith("#invalid_attribute"), v10.json()  # the 1.0 binding's error types
    assert v10.json()["detail"].startswith("/schemagroups/A: owners: "), v10.json()
    assert "/schemagroups/A" in json.dumps(v10.json()) and "/schemaGroups/A" not in json.dumps(v10.json())
    older = _send(owner, "PUT", "/schemaregistry/schemagroups/A", {"description": "v2"})
    assert older.json()["detail"].startswith("/schemaregistry/schemagroups/A: owners: "), older.json()
    imported = _send(owner, "POST", "/", {"schemaGroups": {"A": {"description": "v2"}}})
    assert imported.status_code == 400
    assert {"path": "/schemaGroups/A", "reason": imported.json()["errors"][0]["reason"]} in imported.json()["errors"]
    assert imported.json()["errors"][0]["reason"].startswith("owners: "), imported.json()


@pytest.mark.parametrize(
    "body",
    [
        {"description": "v2", "owners": OWNERS_A},
        {"description": "v2", "owners": {"team-a": "owner"}},
        {"description": "v2", "owners": {"team-b": "owner", "team-a": "editor"}},  # handed over: still an owner team
    ],
)
def test_a_change_that_keeps_an_owner_team_is_accepted(teams, required, body):
    response = teams["owner_a"].put("/schemaGroups/A", body, format="json")
    assert response.status_code == 200, response.content
    assert Group.objects.get(gid="A").description == "v2"
    assert Group.objects.get(gid="A").extensions["owners"] == body["owners"]


def test_a_patch_that_leaves_the_owners_alone_is_accepted(teams, required):
    response = _send(teams["owner_a"], "PATCH", "/registry/schemagroups/A", {"description": "v2"})
    assert response.status_code == 200, response.content
    assert Group.objects.get(gid="A").extensions["owners"] == OWNERS_A


def test_a_registry_admin_may_remove_the_owners(teams):
    for name in ("admin",):  # the team "Registry admins" (superusers are registry admins too)
        response = teams[name].put("/schemaGroups/A", {"description": "v2"}, format="json")
        assert response.status_code == 200, response.content
        assert "owners" not in Group.objects.get(gid="A").extensions
    # a group without owners is as before teams: its next change needs no owner team
    response = teams["outsider"].put("/schemaGroups/A", {"description": "v3"}, format="json")
    assert response.status_code == 200, response.content


def test_an_owner_put_that_was_refused_can_be_sent_again_with_the_owners(teams):
    owner = teams["owner_a"]
    assert owner.put("/schemaGroups/A", {"description": "v2"}, format="json").status_code == 400
    response = owner.put("/schemaGroups/A", {"description": "v2", "owners": OWNERS_A}, format="json")
    assert response.status_code == 200, response.content
    # and another team still may not write there
    assert teams["owner_b"].post("/schemaGroups/A/schemas", b"x", content_type="text/plain").status_code == 403


def _admin_client(teams, name) -> Client:
    client = Client()
    client.force_login(teams.users[name])
    return client


def _group_form(group, owners) -> dict:
    return {
        "gid": group.gid,
        "name": "",
        "description": "v2",
        "docs": "",
        "tags": "{}",
        "owners": json.dumps(owners),
        "attributes": "{}",
        "epoch": str(group.epoch),
    }


def test_the_admin_group_form(teams, required):
    group = Group.objects.get(gid="A")
    url = reverse("admin:catalog_schemagroup_change", args=[group.pk])
    owner = _admin_client(teams, "owner_a")
    before = snapshot()
    for owners in ({}, {"team-a-dev": "editor"}):
        page = owner.post(url, _group_form(group, owners))
        assert page.status_code == 200, page.status_code  # the form again, with the error
        assert re.search(r"owners: .*without a team with the role owner", page.content.decode()), page.content
        assert snapshot() == before
    kept = owner.post(url, _group_form(group, {"team-a": "owner"}))
    assert kept.status_code == 302, kept.content
    assert Group.objects.get(gid="A").extensions["owners"] == {"team-a": "owner"}
    if not required:
        group.refresh_from_db()
        assert _admin_client(teams, "admin").post(url, _group_form(group, {})).status_code == 302
        assert "owners" not in Group.objects.get(gid="A").extensions


def test_the_admin_import_page(teams):
    # the page asks for the model permissions of an import ("Registry editors"); the owners decide in group A
    teams.users["owner_a"].groups.add(Team.objects.get(name=EDITORS))
    owner = _admin_client(teams, "owner_a")
    document = json.dumps({"schemaGroups": {"A": {"description": "v2"}}}).encode()
    before = snapshot()
    page = owner.post(reverse("registry-admin-import"), {"document": SimpleUploadedFile("a.cereg", document)})
    assert page.status_code == 200, page.status_code
    assert "without a team with the role owner" in page.content.decode()
    assert snapshot() == before


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_spark_import_as_an_owner(teams, tmp_path, capsys):
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"path": "/schemaGroups/A", "description": "v2", "owners": {}}))
    report = tmp_path / "report.json"
    before = snapshot()
    try:
        call_command("spark_import", str(source), "--as", "owner_a", "--report", str(report), "--master", "local[1]")
        code = 0
    except SystemExit as exc:
        code = exc.code
    assert code != 0
    rejected = {r["path"]: r["reason"] for r in json.loads(report.read_text())["rejected"]}
    assert "without a team with the role owner" in rejected["/schemaGroups/A"], rejected
    assert snapshot() == before


def _as_shown(page, **changes) -> dict:
    """The change page's form as the browser posts it back, with `changes` typed in."""
    form = page.context["form"]
    data = {}
    for name, field in form.fields.items():
        value = field.prepare_value(form[name].value())
        data[name] = "" if value is None else value
    return {**data, **changes}


@pytest.mark.parametrize("name", ["owner_a", "admin"])
def test_the_definition_group_form_holds_the_owners_in_its_owners_field_only(with_definitions, name):
    """The Owners field is where the owners are: the attributes' JSON does not carry them too (emptying the Owners
    field then did nothing), and owners typed into the attributes' JSON are refused, naming the field to use."""
    group = Group.objects.get(gid="D")
    url = reverse("admin:catalog_definitiongroup_change", args=[group.pk])
    client = _admin_client(with_definitions, name)
    page = client.get(url)
    assert page.status_code == 200
    assert "owners" not in json.loads(_as_shown(page)["attributes"]), _as_shown(page)["attributes"]
    before = snapshot()
    typed = client.post(url, _as_shown(page, owners="{}", attributes=json.dumps({"owners": {"team-a": "owner"}})))
    assert typed.status_code == 200 and "set them in the Owners field" in typed.content.decode()
    assert snapshot() == before
    emptied = client.post(url, _as_shown(page, owners="{}"))
    if name == "owner_a":
        assert emptied.status_code == 200
        assert "without a team with the role owner" in emptied.content.decode()
        assert snapshot() == before
    else:
        assert emptied.status_code == 302, emptied.content
        assert "owners" not in Group.objects.get(gid="D").extensions
