"""What each audit row says changed (issue 37, CONTRACT section 19): the attributes before and after, a document as
its digest and size (never its bytes), never a secret; in `GET /audit` (`changes`) and in the admin's History page,
through every door (the bindings, imports, spark_import, deletes). And whose rows a group's owners read: those of the
group as it is, not of a deleted group that had the same id (`GET /audit`, the admin's History)."""

import hashlib
import json
import shutil

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from registry.models import AuditRecord, Group, Version

FMT = "JsonSchema/draft-07"
V1 = b'{"type": "object", "title": "first-body-title-5e1"}'
V2 = b'{"type": "object", "title": "second-body-title-8c4", "properties": {"a": {"type": "string"}}}'
VERSION = "/schemaGroups/A/schemas/s/versions/1"


def digest(body: bytes) -> dict:
    return {"digest": "sha256:" + hashlib.sha256(body).hexdigest(), "size": len(body)}


def audit(client, path: str) -> list[dict]:
    response = client.get(f"/audit?path={path}&limit=100")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def version(teams):
    """/schemaGroups/A/schemas/s with version 1 (body V1), written by A's editor."""
    response = teams["editor_a"].generic(
        "PUT", "/schemaGroups/A/schemas/s", V1, content_type="application/json", headers={"Registry-format": FMT}
    )
    assert response.status_code == 201, response.content
    return teams


def test_three_updates_of_one_version_each_say_what_changed(version):
    editor = version["editor_a"]
    # 1: its description (the 1.0 binding's PATCH); 2: a tag and no description (0.5 metadata PUT); 3: its document
    response = editor.patch(
        "/registry/schemagroups/A/schemas/s/versions/1$details", {"description": "first words"}, format="json"
    )
    assert response.status_code == 200, response.content
    response = editor.put(f"{VERSION}?meta", {"format": FMT, "tags": {"stage": "beta"}}, format="json")
    assert response.status_code == 200, response.content
    response = editor.generic("PUT", VERSION, V2, content_type="application/json")
    assert response.status_code == 200, response.content

    rows = [r for r in audit(version["owner_a"], VERSION) if r["path"] == VERSION]
    assert [(r["operation"], r.get("epochBefore"), r["epochAfter"]) for r in rows] == [
        ("create", None, 1),
        ("update", 1, 2),
        ("update", 2, 3),
        ("update", 3, 4),
    ]
    created, first, second, third = (r["changes"] for r in rows)
    assert created["schema"] == {"after": digest(V1)}
    assert created["format"] == {"after": FMT}
    assert first == {"description": {"after": "first words"}}
    assert second == {"description": {"before": "first words"}, "tags": {"after": {"stage": "beta"}}}
    assert third == {"schema": {"before": digest(V1), "after": digest(V2)}}


def test_a_document_is_shown_as_its_digest_and_size_never_its_body(version, su):
    version["editor_a"].generic("PUT", VERSION, V2, content_type="application/json")
    su.delete("/schemaGroups/A/schemas/s")
    answer = version["admin"].get("/audit?path=/schemaGroups/A&limit=100")
    text = answer.content.decode()
    assert "first-body-title-5e1" not in text and "second-body-title-8c4" not in text
    rows = {(r["path"], r["operation"]): r["changes"] for r in answer.json()}
    assert rows[(VERSION, "update")]["schema"] == {"before": digest(V1), "after": digest(V2)}
    # a delete says what was there: the resource as reads showed it (its default version's attributes and document)
    assert rows[("/schemaGroups/A/schemas/s", "delete")] == {
        "format": {"before": FMT},
        "contenttype": {"before": "application/json"},
        "schema": {"before": digest(V2)},
    }
    assert not AuditRecord.objects.filter(changes__icontains="title").exists()


def test_the_admin_history_page_shows_what_changed(version):
    version["editor_a"].put(f"{VERSION}?meta", {"format": FMT, "description": "shown-in-history"}, format="json")
    version["editor_a"].generic("PUT", VERSION, V2, content_type="application/json")
    client = Client()
    client.force_login(version.users["owner_a"])
    stored = Version.objects.get(resource__rid="s", vid="1")
    page = client.get(reverse("admin:catalog_schemaversion_history", args=[stored.pk])).content.decode()
    assert '<table class="changes">' in page
    assert "<code>description</code>" in page and "shown-in-history" in page
    assert f"{digest(V1)['digest']} ({len(V1)} bytes)" in page
    assert f"{digest(V2)['digest']} ({len(V2)} bytes)" in page
    assert "first-body-title-5e1" not in page and "second-body-title-8c4" not in page
    group = Group.objects.get(gid="A")
    page = client.get(reverse("admin:catalog_schemagroup_history", args=[group.pk])).content.decode()
    assert "<code>owners</code>" in page  # the group's creation: the attributes set


def test_secrets_are_never_shown(teams, su):
    body = {
        "owners": {"team-a": "owner"},
        "apitoken": "tok-value-3f9",
        "broker": {"url": "amqp://svc:pw-value-61a@broker.example/vh", "password": "pw-value-77b"},
    }
    response = teams["owner_a"].put("/schemaGroups/A", body, format="json")
    assert response.status_code == 200, response.content
    changes = audit(teams["owner_a"], "/schemaGroups/A")[-1]["changes"]
    assert changes["apitoken"] == {"after": "***"}
    assert changes["broker"]["after"] == {"url": "amqp://svc:***@broker.example/vh", "password": "***"}
    response = teams["owner_a"].put("/schemaGroups/A", {**body, "apitoken": "tok-value-new-0c2"}, format="json")
    assert response.status_code == 200, response.content
    # a changed secret is told as changed, its values not
    assert audit(teams["owner_a"], "/schemaGroups/A")[-1]["changes"] == {"apitoken": {"before": "***", "after": "***"}}
    stored = json.dumps(list(AuditRecord.objects.values_list("changes", flat=True)))
    assert not any(secret in stored for secret in ("tok-value", "pw-value"))


def test_a_subscription_s_changes_never_show_its_credentials(teams, settings):
    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    admin = teams["admin"]
    first = {
        "protocol": "HTTP",
        "sink": "http://hook:pw-one-4d1@127.0.0.1:9/a?key=k-one-9e2",
        "protocolsettings": {"headers": {"Authorization": "Bearer b-one-73c", "X-Api-Key": "h-one-2b8"}},
    }
    response = admin.post("/subscriptions", first, format="json")
    assert response.status_code == 201, response.content
    sid = response.json()["id"]
    second = {
        "protocol": "HTTP",
        "sink": "http://hook:pw-two-5e7@127.0.0.1:9/b?key=k-two-0a3",
        "protocolsettings": {"headers": {"Authorization": "Bearer b-two-8f1", "X-Api-Key": "h-two-6c4"}},
    }
    response = admin.put(f"/subscriptions/{sid}", second, format="json")
    assert response.status_code == 200, response.content
    assert admin.delete(f"/subscriptions/{sid}").status_code in (200, 204)

    answer = admin.get(f"/audit?path=/subscriptions/{sid}")
    assert answer.status_code == 200, answer.content
    created, changed, deleted = (row["changes"] for row in answer.json())
    assert created["sink"] == {"after": "http://hook:***@127.0.0.1:9/a?key=***"}
    assert changed["sink"] == {
        "before": "http://hook:***@127.0.0.1:9/a?key=***",
        "after": "http://hook:***@127.0.0.1:9/b?key=***",
    }
    # each header named, none shown: a changed credential is told as changed
    masked = {"headers": {"Authorization": "***", "X-Api-Key": "***"}, "method": "POST"}
    assert changed["protocolsettings"]["before"] == changed["protocolsettings"]["after"] == masked
    assert deleted["sink"] == {"before": "http://hook:***@127.0.0.1:9/b?key=***"}
    stored = answer.content.decode() + json.dumps(list(AuditRecord.objects.values_list("changes", flat=True)))
    assert not any(f"-{n}-" in stored for n in ("one", "two")), stored
    # the rows of a subscription are the registry admins' alone
    assert teams["owner_a"].get(f"/audit?path=/subscriptions/{sid}").status_code == 403
    assert not [r for r in teams["owner_a"].get("/audit?limit=1000").json() if r["path"].startswith("/subscriptions")]


def test_confluent_s_settings_and_soft_deletes_say_what_changed(teams):
    editor, owner = teams["editor_a"], teams["owner_a"]
    response = editor.post("/confluent/subjects/:.A:s1/versions", {"schema": '{"type": "string"}'}, format="json")
    assert response.status_code == 200, response.content
    assert owner.put("/confluent/config/:.A:", {"compatibility": "FULL"}, format="json").status_code == 200
    assert editor.delete("/confluent/subjects/:.A:s1/versions/1").status_code == 200
    rows = audit(owner, "/schemaGroups/A")
    config = next(r for r in rows if r["path"] == "/schemaGroups/A" and r["operation"] == "update")
    assert set(config["changes"]) == {"compatibility"} and config["changes"]["compatibility"]["after"]
    soft = rows[-1]
    assert (soft["path"], soft["operation"]) == ("/schemaGroups/A/schemas/s1/versions/1", "update")
    assert soft["changes"] == {"deleted": {"before": False, "after": True}}


def test_a_sync_source_s_changes_never_show_its_token(teams, settings):
    from sync.models import SyncSource

    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True  # remote.example does not resolve here (the sink rule asks that)
    client = Client()
    client.force_login(teams.users["admin"])
    form = {
        "name": "r",
        "base_url": "https://remote.example",
        "scope": "registry",
        "path": "",
        "interval_seconds": 60,
        "runs-TOTAL_FORMS": 0,
        "runs-INITIAL_FORMS": 0,
    }
    response = client.post(reverse("admin:sync_syncsource_add"), {**form, "token": "tok-first-1e5", "enabled": "on"})
    assert response.status_code == 302, response.content.decode()[:2000]
    source = SyncSource.objects.get(name="r")
    change = reverse("admin:sync_syncsource_change", args=[source.pk])
    response = client.post(change, {**form, "token": "tok-second-7b2", "interval_seconds": 120})
    assert response.status_code == 302, response.content.decode()[:2000]
    response = client.post(reverse("admin:sync_syncsource_delete", args=[source.pk]), {"post": "yes"})
    assert response.status_code == 302, response.content.decode()[:2000]

    rows = audit(teams["admin"], f"/sync/sources/{source.pk}")
    assert [(r["actor"], r["door"], r["operation"]) for r in rows] == [
        ("admin", "admin", "create"),
        ("admin", "admin", "update"),
        ("admin", "admin", "delete"),
    ]
    created, changed, deleted = (r["changes"] for r in rows)
    assert created["token"] == {"after": "***"} and created["owner"] == {"after": "admin"}
    assert changed == {
        "token": {"before": "***", "after": "***"},
        "enabled": {"before": True, "after": False},
        "interval_seconds": {"before": 60, "after": 120},
    }
    assert deleted["token"] == {"before": "***"} and deleted["base_url"] == {"before": "https://remote.example"}
    trail = json.dumps(list(AuditRecord.objects.values_list("changes", flat=True)))
    assert "tok-" not in trail and source.webhook_secret not in trail
    assert teams["owner_a"].get(f"/audit?path=/sync/sources/{source.pk}").status_code == 403


def test_imports_say_what_they_changed(teams, tmp_path):
    document = {"schemaGroups": {"imp": {"description": "one", "schemas": {"s": {"format": FMT, "versions": {}}}}}}
    document["schemaGroups"]["imp"]["schemas"]["s"]["versions"]["1"] = {"format": FMT, "schema": json.loads(V1)}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    call_command("import_registry", str(path), stdout=open("/dev/null", "w"))
    document["schemaGroups"]["imp"]["description"] = "two"
    path.write_text(json.dumps(document))
    call_command("import_registry", str(path), stdout=open("/dev/null", "w"))
    rows = {(r["path"], r["operation"]): r["changes"] for r in audit(teams["admin"], "/schemaGroups/imp")}
    assert rows[("/schemaGroups/imp", "create")] == {"description": {"after": "one"}}
    assert rows[("/schemaGroups/imp", "update")] == {"description": {"before": "one", "after": "two"}}
    created = rows[("/schemaGroups/imp/schemas/s/versions/1", "create")]
    assert created["format"] == {"after": FMT} and created["schema"]["after"]["digest"].startswith("sha256:")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_spark_import_says_what_it_changed(tmp_path, capsys):
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    schema = {"format": FMT, "description": "r1", "versions": {"1": {"format": FMT, "schema": json.loads(V1)}}}
    document = tmp_path / "doc.json"
    document.write_text(json.dumps({"schemaGroups": {"bulk.g": {"description": "one", "schemas": {"s": schema}}}}))
    call_command("import_registry", str(document), stdout=open("/dev/null", "w"))
    lines = [  # the group and the schema changed, a new version
        {"path": "/schemaGroups/bulk.g", "description": "two"},
        {"path": "/schemaGroups/bulk.g/schemas/s", "format": FMT, "description": "r2"},
        {"path": "/schemaGroups/bulk.g/schemas/s/versions/1", "format": FMT, "schema": json.loads(V1)},
        {"path": "/schemaGroups/bulk.g/schemas/s/versions/2", "format": FMT, "schema": json.loads(V2)},
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    call_command("spark_import", str(source), "--master", "local[2]")
    capsys.readouterr()
    rows = {(r.path, r.operation): r.changes for r in AuditRecord.objects.filter(door="spark")}
    assert rows[("/schemaGroups/bulk.g", "update")] == {"description": {"before": "one", "after": "two"}}
    assert rows[("/schemaGroups/bulk.g/schemas/s", "update")] == {"description": {"before": "r1", "after": "r2"}}
    created = rows[("/schemaGroups/bulk.g/schemas/s/versions/2", "create")]
    stored = bytes(Version.objects.get(resource__rid="s", vid="2").content)
    assert created["schema"] == {"after": digest(stored)} and created["format"] == {"after": FMT}
    group = Group.objects.get(gid="bulk.g")
    assert set(AuditRecord.objects.values_list("group_pk", flat=True)) == {group.pk}


def test_a_group_made_again_by_another_team_does_not_show_the_deleted_group_s_rows(teams, su):
    a = teams["owner_a"]
    assert su.put("/schemaGroups/g", {"owners": {"team-a": "owner"}}, format="json").status_code == 201
    response = a.put("/schemaGroups/g", {"owners": {"team-a": "owner"}, "description": "A's"}, format="json")
    assert response.status_code == 200, response.content
    response = a.generic(
        "PUT", "/schemaGroups/g/schemas/s", V1, content_type="application/json", headers={"Registry-format": FMT}
    )
    assert response.status_code == 201, response.content
    assert a.delete("/schemaGroups/g").status_code in (200, 204)
    response = su.put("/schemaGroups/g", {"owners": {"team-b": "owner"}, "description": "B's"}, format="json")
    assert response.status_code == 201, response.content
    b = teams["owner_b"]
    b.put("/schemaGroups/g", {"owners": {"team-b": "owner"}, "description": "B's, changed"}, format="json")

    for query in (
        "/audit?limit=1000",
        "/audit?path=/schemaGroups/g&limit=1000",
        "/audit?path=/schemaGroups/g/schemas/s",
    ):
        response = b.get(query)
        assert response.status_code == 200, (query, response.content)
        assert not [r for r in response.json() if r["actor"] == "owner_a"], query
    mine = [(r["actor"], r["path"], r["operation"]) for r in b.get("/audit?path=/schemaGroups/g").json()]
    assert mine == [("alice", "/schemaGroups/g", "create"), ("owner_b", "/schemaGroups/g", "update")]
    # a registry admin reads both groups' rows
    every = teams["admin"].get("/audit?path=/schemaGroups/g&limit=100").json()
    assert [(r["actor"], r["path"], r["operation"]) for r in every] == [
        ("alice", "/schemaGroups/g", "create"),
        ("owner_a", "/schemaGroups/g", "update"),
        ("owner_a", "/schemaGroups/g/schemas/s", "create"),
        ("owner_a", "/schemaGroups/g/schemas/s/versions/1", "create"),
        ("owner_a", "/schemaGroups/g", "delete"),
        *mine,
    ]
    # the admin's History page of the new group: its own rows only
    client = Client()
    client.force_login(teams.users["owner_b"])
    group = Group.objects.get(gid="g")
    page = client.get(reverse("admin:catalog_schemagroup_history", args=[group.pk])).content.decode()
    assert "owner_b" in page and "owner_a" not in page and "/schemas/s" not in page and "A&#x27;s" not in page
