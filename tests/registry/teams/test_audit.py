"""The audit trail (issue 27): one row per committed change, in the change's transaction, with the right actor and
door, whatever the door; none for a refused or failed write; the change events carry the actor as the CloudEvents
`authcontext` extension; `GET /audit` answers registry admins and the owners of the groups concerned."""

import json
from datetime import timedelta

from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from registry.models import AuditRecord, Group, OutboxEvent
from subscriptions.delivery.events import attributes
from tests.asyncapi.conftest import document, post_asyncapi

FMT = "JsonSchema/draft-07"
DOC = b'{"type": "object"}'


def rows(**filters):
    return list(AuditRecord.objects.filter(**filters).order_by("id").values_list("actor", "door", "operation", "path"))


def test_every_door_records_its_changes_with_actor_and_door(teams, tmp_path):
    editor = teams["editor_a"]
    AuditRecord.objects.all().delete()
    editor.generic(
        "PUT", "/schemaGroups/A/schemas/s05", DOC, content_type="application/json", headers={"Registry-format": FMT}
    )
    editor.generic(
        "PUT",
        "/registry/schemagroups/A/schemas/s10/versions/1",
        DOC,
        content_type="application/json",
        headers={"xRegistry-format": FMT},
    )
    editor.generic(
        "POST", f"/schemaregistry/schemagroups/A/schemas/sold?format={FMT}", DOC, content_type="application/json"
    )
    editor.post("/confluent/subjects/:.A:sc/versions", {"schema": '{"type": "string"}'}, format="json")
    editor.post(
        "/",
        {
            "schemaGroups": {
                "A": {
                    "owners": Group.objects.get(gid="A").extensions["owners"],
                    "schemas": {
                        "simp": {"format": FMT, "versions": {"1": {"format": FMT, "schema": {"type": "object"}}}}
                    },
                }
            }
        },
        format="json",
    )
    admin = Client()
    admin.force_login(teams.users["owner_a"])
    a = Group.objects.get(gid="A")
    admin.post(
        reverse("admin:catalog_schemagroup_change", args=[a.pk]),
        {
            "gid": "A",
            "description": "ours",
            "tags": "{}",
            "attributes": "{}",
            "owners": json.dumps(a.extensions["owners"]),
            "epoch": a.epoch,
        },
    )
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"schemaGroups": {"cmd": {"description": "by command"}}}))
    call_command("import_registry", str(path), stdout=open("/dev/null", "w"))
    seen = {(actor, door, op, p) for actor, door, op, p in rows()}
    assert ("editor_a", "cloudevents-registry-0.5", "create", "/schemaGroups/A/schemas/s05") in seen
    assert ("editor_a", "cloudevents-registry-0.5", "create", "/schemaGroups/A/schemas/s05/versions/1") in seen
    assert ("editor_a", "xregistry-1.0", "create", "/schemaGroups/A/schemas/s10/versions/1") in seen
    assert ("editor_a", "schemaregistry", "create", "/schemaGroups/A/schemas/sold/versions/1") in seen
    assert ("editor_a", "confluent", "create", "/schemaGroups/A/schemas/sc/versions/1") in seen
    assert ("editor_a", "cloudevents-registry-0.5", "create", "/schemaGroups/A/schemas/simp") in seen
    assert ("owner_a", "admin", "update", "/schemaGroups/A") in seen
    assert ("system:import", "import", "create", "/schemaGroups/cmd") in seen
    # one row per committed change: as many as change events, each pointing at its own
    assert (
        AuditRecord.objects.count()
        == OutboxEvent.objects.filter(pk__in=AuditRecord.objects.values("event")).count()
        == len(rows())
    )
    group_rows = AuditRecord.objects.filter(path="/schemaGroups/A").order_by("id")
    assert [(r.epoch_before, r.epoch_after) for r in group_rows] == [(1, 2)]


def test_an_asyncapi_import_is_its_own_door(teams):
    AuditRecord.objects.all().delete()
    response = post_asyncapi(teams["admin"], document("2.6-simple.yml"))
    assert response.status_code == 200, response.content
    doors = set(AuditRecord.objects.values_list("door", "actor"))
    assert doors == {("asyncapi", "admin")}


def test_refused_and_failed_writes_leave_no_row(teams, su):
    before = AuditRecord.objects.count()
    assert teams["editor_a"].put("/schemaGroups/B", {"description": "x"}, format="json").status_code == 403
    bad = su.generic(
        "PUT",
        "/schemaGroups/A/schemas/bad",
        b"{not json",
        content_type="application/json",
        headers={"Registry-format": FMT},
    )
    assert bad.status_code == 400
    document = {
        "schemaGroups": {
            "A": {"schemas": {"s": {"format": FMT, "versions": {"1": {"format": FMT, "schema": {"type": "object"}}}}}},
            "B": {"owners": {"team-b": "owner"}},
        }
    }
    assert teams["editor_a"].post("/", document, format="json").status_code == 403
    assert AuditRecord.objects.count() == before


def test_epochs_before_and_after(su, teams):
    AuditRecord.objects.all().delete()
    su.generic(
        "PUT", "/schemaGroups/C/schemas/s", DOC, content_type="application/json", headers={"Registry-format": FMT}
    )
    su.generic("PUT", "/schemaGroups/C/schemas/s/versions/1", DOC, content_type="application/json")
    su.delete("/schemaGroups/C/schemas/s")
    version = [
        (r.operation, r.epoch_before, r.epoch_after)
        for r in AuditRecord.objects.filter(path="/schemaGroups/C/schemas/s/versions/1").order_by("id")
    ]
    assert version == [("create", None, 1), ("update", 1, 2)]
    assert AuditRecord.objects.get(path="/schemaGroups/C/schemas/s", operation="delete").epoch_after is None


def test_change_events_carry_authcontext(teams, su, tmp_path):
    teams["editor_a"].generic(
        "PUT", "/schemaGroups/A/schemas/s", DOC, content_type="application/json", headers={"Registry-format": FMT}
    )
    event = OutboxEvent.objects.filter(subject="/schemaGroups/A/schemas/s").get()
    assert attributes(event)["authtype"] == "user" and attributes(event)["authid"] == "editor_a"
    assert attributes(event, "xregistry-1.0")["authid"] == "editor_a"
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"schemaGroups": {"cmd": {}}}))
    call_command("import_registry", str(path), stdout=open("/dev/null", "w"))  # the system's write
    system = OutboxEvent.objects.get(subject="/schemaGroups/cmd")
    assert attributes(system)["authtype"] == "system" and attributes(system)["authid"] == "system:import"


def test_get_audit_answers_admins_everything_and_owners_their_groups(teams, su, anon):
    teams["editor_a"].generic(
        "PUT", "/schemaGroups/A/schemas/s", DOC, content_type="application/json", headers={"Registry-format": FMT}
    )
    teams["owner_b"].generic(
        "PUT", "/schemaGroups/B/schemas/s", DOC, content_type="application/json", headers={"Registry-format": FMT}
    )
    everything = teams["admin"].get("/audit?limit=1000").json()
    assert {r["path"] for r in everything} >= {"/schemaGroups/A", "/schemaGroups/B", "/schemaGroups/A/schemas/s"}
    mine = teams["owner_a"].get("/audit").json()
    assert mine and all(r["path"].startswith("/schemaGroups/A") for r in mine)
    record = next(r for r in mine if r["path"] == "/schemaGroups/A/schemas/s/versions/1")
    assert record["actor"] == "editor_a" and record["door"] == "cloudevents-registry-0.5"
    assert record["operation"] == "create" and record["epochAfter"] == 1 and record["authtype"] == "user"
    assert record["xid"] == "/schemagroups/A/schemas/s/versions/1" and record["event"]
    assert teams["editor_a"].get("/audit").status_code == 403
    refused = teams["owner_a"].get("/audit?path=/schemaGroups/B")
    assert refused.status_code == 403 and "/schemaGroups/B" in refused.json()["detail"]
    assert anon.get("/audit").status_code == 401


def test_get_audit_filters_and_pages(teams, su):
    for n in range(3):
        su.put(f"/schemaGroups/p{n}", {}, format="json")
    teams["editor_a"].generic(
        "PUT", "/schemaGroups/A/schemas/s", DOC, content_type="application/json", headers={"Registry-format": FMT}
    )
    admin = teams["admin"]
    by_path = admin.get("/audit?path=/schemagroups/A/schemas/s").json()  # the 1.0 xid
    assert {r["path"] for r in by_path} == {"/schemaGroups/A/schemas/s", "/schemaGroups/A/schemas/s/versions/1"}
    assert {r["actor"] for r in admin.get("/audit?actor=editor_a").json()} == {"editor_a"}
    future = (timezone.now() + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert admin.get(f"/audit?since={future}").json() == []
    first = admin.get("/audit?limit=2")
    assert len(first.json()) == 2 and "rel=next" in first["Link"]
    next_url = first["Link"].split(">")[0].lstrip("<")
    second = admin.get(next_url)
    assert second.json()[0]["id"] > first.json()[1]["id"]
    for query, named in (
        ("since=yesterday", "since"),
        ("operation=rename", "operation"),
        ("sort=time", "sort"),
        ("path=/nothing", "path"),
    ):
        response = admin.get(f"/audit?{query}")
        assert response.status_code == 400, (query, response.content)
        assert named in response.json()["detail"]


def test_the_admin_history_page_shows_every_door(teams, su):
    su.generic(
        "PUT",
        "/registry/schemagroups/A/schemas/s/versions/1",
        DOC,
        content_type="application/json",
        headers={"xRegistry-format": FMT},
    )
    client = Client()
    client.force_login(teams.users["owner_a"])
    a = Group.objects.get(gid="A")
    page = client.get(reverse("admin:catalog_schemagroup_history", args=[a.pk])).content.decode()
    assert "This object doesn" not in page
    assert "xregistry-1.0" in page and "alice" in page and "…/schemas/s/versions/1" in page
    c = Group.objects.get(gid="C")
    page = client.get(reverse("admin:catalog_schemagroup_history", args=[c.pk])).content.decode()
    assert "cloudevents-registry-0.5" in page  # its creation


def test_the_rows_are_in_the_change_s_transaction(teams):
    """A write whose later step fails rolls its rows back with it: an import whose second group is refused."""
    before = (AuditRecord.objects.count(), OutboxEvent.objects.count())
    document = {"schemaGroups": {"A": {"description": "first"}, "B": {"description": "second"}}}
    assert teams["owner_a"].post("/", document, format="json").status_code == 403
    assert (AuditRecord.objects.count(), OutboxEvent.objects.count()) == before
