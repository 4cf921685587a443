"""Issue 37 item 1 (CONTRACT.md section 19): a sync acts as the user who owns its source and stays inside the source's
scope. A user with the sync model permissions adds a source in the admin pointing at a remote they control (another
instance of this server, or a plain HTTP server answering a document of its choosing): the group of another team it
names is left as it was (owners, description, no planted schema, not synced) and the run's report says why; what a
pull writes is written with its owner's rights (a refusal is reported, nothing of the entity written), never strips a
group's owners, and the audit trail names the owner and the source. The admin sets the owner from the user who adds
a source; a source without an owner does not run."""

from __future__ import annotations

import importlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.auth.models import Group as Team
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from registry.access.roles import EDITORS
from registry.models import AuditRecord, Group, Resource
from sync.models import SyncRun, SyncSource
from sync.tasks import sync_due, sync_source
from tests.helpers import snapshot
from tests.registry.teams.conftest import OWNERS_B

FMT = "JsonSchema/draft-07"
CHANGELIST = "/admin/sync/syncsource/"


def sync_user(django_user_model, name: str, *teams: str):
    """A staff user with every model permission of sync and of the registry (the role "Registry editors"), in
    `teams`: the strongest user short of a registry admin."""
    user = django_user_model.objects.create_user(name, password="pw", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="sync"))
    for team in (EDITORS, *teams):
        user.groups.add(Team.objects.get_or_create(name=team)[0])
    return user


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def add_source(client: Client, name: str, base_url: str, token: str, scope: str, path: str) -> SyncSource:
    """The source as the admin's add form creates it."""
    response = client.post(
        CHANGELIST + "add/",
        {
            "name": name,
            "base_url": base_url,
            "token": token,
            "scope": scope,
            "path": path,
            "interval_seconds": 300,
            "enabled": "on",
            "runs-TOTAL_FORMS": 0,
            "runs-INITIAL_FORMS": 0,
            "runs-MIN_NUM_FORMS": 0,
            "runs-MAX_NUM_FORMS": 0,
        },
    )
    assert response.status_code == 302, response.content.decode()[-3000:]
    return SyncSource.objects.get(name=name)


def sync_now(client: Client, source: SyncSource) -> list[str]:
    """The admin's "Sync now" on `source`: the messages it shows."""
    response = client.post(CHANGELIST, {"action": "sync_now", "_selected_action": [source.pk]}, follow=True)
    assert response.status_code == 200
    return [str(m) for m in get_messages(response.wsgi_request)]


def put_schema(remote_client, gid: str, sid: str, description: str) -> None:
    body = {"type": "object", "description": description}
    response = remote_client.put(f"/schemaGroups/{gid}/schemas/{sid}", json=body, headers={"Registry-format": FMT})
    assert response.status_code in (200, 201), response.text


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_source_naming_another_teams_group_changes_nothing_of_it(remote, teams, django_user_model):
    """The issue's attack, through the admin: team-b's group B keeps its owners and description, gets no schema,
    is not marked synced, and team-b still edits it; each run's report says why it skipped B."""
    remote_client, token = remote
    base = str(remote_client.base_url).rstrip("/")
    owner_b = teams["owner_b"]
    assert (
        owner_b.put("/schemaGroups/B", {"description": "B's own", "owners": OWNERS_B}, format="json").status_code == 200
    )
    # the attacker's remote: a group B of its own, with another description and a schema to plant
    assert remote_client.put("/schemaGroups/B", json={"description": "pwned"}).status_code in (200, 201)
    put_schema(remote_client, "B", "planted", "planted")
    mallory = sync_user(django_user_model, "mallory", "team-m")
    admin = signed_in(mallory)
    by_group = add_source(admin, "evil", base, token, "group", "/schemaGroups/B")
    whole = add_source(admin, "evil-all", base, token, "registry", "")
    assert by_group.owner == mallory and whole.owner == mallory  # set from the user who added them

    before = snapshot()
    for source in (by_group, whole):
        shown = sync_now(admin, source)
        run = source.runs.get()
        assert run.status == SyncRun.Status.PARTIAL and run.skipped == 1, (run.error, run.report)
        [skipped] = run.report
        assert skipped["path"] == "/schemaGroups/B"
        assert "exists here and was not brought by the sync from" in skipped["reason"], skipped
        assert any("skipped 1" in m and "/schemaGroups/B" in m for m in shown), shown
    assert snapshot() == before  # nothing written, no audit row
    group = Group.objects.get(gid="B")
    assert group.extensions["owners"] == OWNERS_B and group.description == "B's own" and group.origin is None
    assert not Resource.objects.filter(rid="planted").exists()
    response = owner_b.put("/schemaGroups/B", {"description": "still ours", "owners": OWNERS_B}, format="json")
    assert response.status_code == 200, response.content  # not "synced from" the attacker's remote


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_pull_writes_as_its_owner_keeps_owners_and_is_audited(remote, teams, django_user_model, settings):
    """A group a sync creates gets the owners its owner's group would (REGISTRY_REQUIRE_OWNERS: their team), not the
    remote's; later pulls keep them; every change is audited as the owner's, door sync, via the source; once the
    owner has no role in the group, the scheduled pull's change is refused, reported, and nothing of it written."""
    settings.REGISTRY_REQUIRE_OWNERS = True
    remote_client, token = remote
    base = str(remote_client.base_url).rstrip("/")
    response = remote_client.put("/schemaGroups/M", json={"description": "v1", "owners": {"Registry admins": "owner"}})
    assert response.status_code in (200, 201), response.text
    put_schema(remote_client, "M", "s1", "first")
    mallory = sync_user(django_user_model, "mallory", "team-m")
    admin = signed_in(mallory)
    source = add_source(admin, "mine", base, token, "group", "/schemaGroups/M")
    AuditRecord.objects.all().delete()

    sync_now(admin, source)
    run = source.runs.get()
    assert run.status == SyncRun.Status.OK, (run.error, run.report)
    group = Group.objects.get(gid="M")
    assert group.origin == source.origin and group.description == "v1"
    assert group.extensions["owners"] == {"team-m": "owner"}  # the owner's team, as for a group they create
    audited = set(AuditRecord.objects.values_list("actor", "authtype", "door", "via", "path"))
    assert audited == {
        ("mallory", "user", "sync", "mine", path)
        for path in ("/schemaGroups/M", "/schemaGroups/M/schemas/s1", "/schemaGroups/M/schemas/s1/versions/1")
    }
    rows = teams["admin"].get("/audit", {"path": "/schemaGroups/M", "via": "mine"}).json()
    assert {(r["actor"], r["authtype"], r["door"], r["via"]) for r in rows} == {("mallory", "user", "sync", "mine")}
    assert len(rows) == 3
    history = signed_in(teams.users["admin"]).get(reverse("admin:catalog_schemagroup_history", args=[group.pk]))
    assert "mallory" in history.content.decode() and "(source mine)" in history.content.decode()

    # the scheduled run (celery beat's task): the owners stay, the description follows the remote
    assert remote_client.put("/schemaGroups/M", json={"description": "v2"}).status_code == 200
    SyncSource.objects.filter(pk=source.pk).update(last_run_at=None)
    assert sync_due() == 1
    group.refresh_from_db()
    assert group.description == "v2" and group.extensions["owners"] == {"team-m": "owner"}
    assert AuditRecord.objects.filter(path="/schemaGroups/M", operation="update", actor="mallory", via="mine").exists()

    # the owner leaves the group's team: their pull may no longer change it
    mallory.groups.remove(Team.objects.get(name="team-m"))
    assert remote_client.put("/schemaGroups/M", json={"description": "v3"}).status_code == 200
    put_schema(remote_client, "M", "s2", "second")
    before = snapshot()
    assert sync_source(source.pk, "schedule") == SyncRun.Status.PARTIAL
    run = source.runs.order_by("-started_at", "-pk").first()
    reasons = {e["path"]: e["reason"] for e in run.report}
    assert set(reasons) == {"/schemaGroups/M"}, run.report
    assert "you need the role owner in the group /schemaGroups/M" in reasons["/schemaGroups/M"]
    assert snapshot() == before
    assert not Resource.objects.filter(rid="s2").exists()


class DocumentServer:
    """A remote that answers what it likes: `/` says it speaks the 0.5 binding, any other path the document."""

    def __init__(self, document: dict):
        body = json.dumps(document).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the name http.server calls
                answer = b'{"specVersion": "0.5-wip"}' if self.path == "/" else body
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *_args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def schema(description: str) -> dict:
    return {"format": FMT, "versions": {"1": {"format": FMT, "schema": {"type": "object", "description": description}}}}


@pytest.fixture
def lying_remote(settings):
    """A remote whose answer for the group M also holds team-b's B, the open group C, a definition group and, in M,
    two schemas."""
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    server = DocumentServer(
        {
            "schemaGroups": {
                "M": {"description": "mine", "schemas": {"s1": schema("one"), "s2": schema("two")}},
                "B": {"description": "pwned", "schemas": {"planted": schema("planted")}},
                "C": {"description": "pwned"},
            },
            "definitionGroups": {"planted": {"format": "CloudEvents/1.0"}},
        }
    )
    yield server.url
    server.close()


@pytest.mark.django_db
def test_a_pull_stays_inside_its_scope_whatever_the_remote_answers(lying_remote, teams):
    """Even a registry admin's source writes only its scope's group (or resource); the rest is reported."""
    admin = teams.users["admin"]
    admin.user_permissions.add(*Permission.objects.filter(content_type__app_label="sync"))
    source = SyncSource.objects.create(
        name="narrow", base_url=lying_remote, scope="group", path="/schemaGroups/M", owner=admin
    )
    before = snapshot()
    sync_now(signed_in(admin), source)
    run = source.runs.get()
    assert run.status == SyncRun.Status.PARTIAL, (run.error, run.report)
    outside = "outside the source's scope /schemaGroups/M"
    assert {(e["path"], e["reason"]) for e in run.report} == {
        ("/schemaGroups/B", outside),
        ("/schemaGroups/C", outside),
        ("/definitionGroups/planted", outside),
    }
    after = snapshot()
    assert [g for g in after[0] if g[1] != "M"] == before[0]  # B and C as they were, no definition group
    assert set(Resource.objects.filter(group__gid="M").values_list("rid", flat=True)) == {"s1", "s2"}
    assert not Resource.objects.filter(rid="planted").exists()
    assert not Group.objects.filter(group_type="definitionGroups").exists()

    one = SyncSource.objects.create(
        name="one", base_url=lying_remote + "/", scope="resource", path="/schemaGroups/M/schemas/s1", owner=admin
    )
    sync_now(signed_in(admin), one)
    run = one.runs.get()
    # the same origin as `narrow` (the same remote): M is the pull's own, its s2 outside this source's scope
    assert {e["path"] for e in run.report} == {
        "/schemaGroups/B",
        "/schemaGroups/C",
        "/definitionGroups/planted",
        "/schemaGroups/M/schemas/s2",
    }, run.report


@pytest.mark.django_db
def test_a_source_without_an_active_owner_does_not_run(teams, settings):
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    hits = []
    server = DocumentServer({"schemaGroups": {"N": {}}})
    original = server.server.RequestHandlerClass.do_GET

    def counted(handler):
        hits.append(handler.path)
        original(handler)

    server.server.RequestHandlerClass.do_GET = counted
    try:
        source = SyncSource.objects.create(name="orphan", base_url=server.url)
        before = snapshot()
        assert sync_source(source.pk) == SyncRun.Status.FAILED
        run = source.runs.get()
        assert "has no owner" in run.error and "a registry admin sets one" in run.error
        source.owner = teams.users["editor_a"]
        source.save()
        teams.users["editor_a"].is_active = False
        teams.users["editor_a"].save()
        assert sync_source(source.pk) == SyncRun.Status.FAILED
        assert "'editor_a' is inactive" in source.runs.order_by("-pk").first().error
        assert snapshot() == before and hits == []  # nothing written, the remote never asked
    finally:
        server.close()


@pytest.mark.django_db
def test_only_the_owner_or_a_registry_admin_manages_a_source(teams, django_user_model, settings):
    """Another user with the sync permissions may neither change, delete, run nor subscribe a source they do not own
    (they would write with its owner's rights), nor add one whose scope overlaps it on the same remote; a registry
    admin may, and names its owner."""
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    mallory = sync_user(django_user_model, "mallory")
    eve = sync_user(django_user_model, "eve")
    source = add_source(signed_in(mallory), "hers", "http://127.0.0.1:9", "", "registry", "")
    assert source.owner == mallory
    other = signed_in(eve)
    change = f"{CHANGELIST}{source.pk}/change/"
    page = other.get(change).content.decode()
    assert 'name="base_url"' not in page and "mallory" in page  # read-only, its owner shown
    assert other.post(change, {"name": "hers", "base_url": "http://127.0.0.1:8", "path": "/x"}).status_code == 403
    assert other.post(f"{CHANGELIST}{source.pk}/delete/", {"post": "yes"}).status_code == 403
    for action in ("sync_now", "subscribe_at_remote"):
        response = other.post(CHANGELIST, {"action": action, "_selected_action": [source.pk]}, follow=True)
        assert "hers: only its owner or a registry admin may run it" in [
            str(m) for m in get_messages(response.wsgi_request)
        ]
    source.refresh_from_db()
    assert source.base_url == "http://127.0.0.1:9" and source.owner == mallory and not source.runs.exists()
    # a non-admin cannot name another owner: the field is not theirs to post
    mine = add_source(other, "eves", "http://127.0.0.1:10", "", "registry", "")
    assert mine.owner == eve
    # nor pull from mallory's remote what her source pulls: the entities it brought are hers to change
    response = other.post(
        CHANGELIST + "add/",
        {
            "name": "overlap",
            "base_url": "http://127.0.0.1:9/",
            "scope": "group",
            "path": "/schemaGroups/A",
            "interval_seconds": 300,
            "runs-TOTAL_FORMS": 0,
            "runs-INITIAL_FORMS": 0,
            "runs-MIN_NUM_FORMS": 0,
            "runs-MAX_NUM_FORMS": 0,
        },
    )
    assert response.status_code == 200
    assert "the source &#x27;hers&#x27; of another owner pulls what this scope names" in response.content.decode()
    assert not SyncSource.objects.filter(name="overlap").exists()
    admin = signed_in(teams.users["admin"])
    teams.users["admin"].user_permissions.add(*Permission.objects.filter(content_type__app_label="sync"))
    page = admin.get(change).content.decode()
    assert 'name="owner"' in page
    response = admin.post(
        change,
        {
            "name": "hers",
            "base_url": "http://127.0.0.1:9",
            "scope": "registry",
            "path": "",
            "interval_seconds": 300,
            "owner": eve.pk,
            "runs-TOTAL_FORMS": 0,
            "runs-INITIAL_FORMS": 0,
            "runs-MIN_NUM_FORMS": 0,
            "runs-MAX_NUM_FORMS": 0,
        },
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    source.refresh_from_db()
    assert source.owner == eve


@pytest.mark.django_db
def test_the_admin_refuses_a_path_that_is_not_the_scopes(teams, django_user_model):
    mallory = sync_user(django_user_model, "mallory")
    client = signed_in(mallory)
    for scope, path, reason in (
        ("group", "/schemaGroups", "a group&#x27;s scope needs the path /GROUPS/ID"),
        ("group", "/nothings/x", "a group&#x27;s scope needs the path /GROUPS/ID"),
        ("resource", "/schemaGroups/g/definitions/d", "schemaGroups hold schemas, not definitions"),
        ("registry", "/schemaGroups/g", "the whole registry&#x27;s scope takes no path"),
    ):
        response = client.post(
            CHANGELIST + "add/",
            {
                "name": "x",
                "base_url": "https://registry.example.com",
                "scope": scope,
                "path": path,
                "interval_seconds": 300,
                "runs-TOTAL_FORMS": 0,
                "runs-INITIAL_FORMS": 0,
                "runs-MIN_NUM_FORMS": 0,
                "runs-MAX_NUM_FORMS": 0,
            },
        )
        assert response.status_code == 200 and reason in response.content.decode(), (scope, path)
    assert not SyncSource.objects.exists()


@pytest.mark.django_db
def test_the_migration_gives_a_source_the_user_who_added_it_in_the_admin(django_user_model):
    """Sources from before owners: the admin's log names who added each; one it does not name stays without an
    owner (and does not run until a registry admin sets one)."""
    from django.apps import apps

    migration = importlib.import_module("sync.migrations.0003_owner")
    adder = django_user_model.objects.create_user("adder")
    logged = SyncSource.objects.create(name="logged", base_url="https://registry.example.com")
    unlogged = SyncSource.objects.create(name="unlogged", base_url="https://registry.example.com")
    LogEntry.objects.create(
        user=adder,
        content_type=ContentType.objects.get_for_model(SyncSource),
        object_id=str(logged.pk),
        object_repr="logged",
        action_flag=ADDITION,
    )
    migration.owners_from_the_admin_log(apps, None)
    logged.refresh_from_db()
    unlogged.refresh_from_db()
    assert logged.owner == adder and unlogged.owner is None
