"""Issue 37 item 3: a subscription is changed only by its creator, the user who last set its sink, or a registry admin,
through every door (the Subscriptions API's PUT, DELETE, revalidate and redeliver; the admin's form, delete page and
actions); anyone else is refused (403) and nothing is written. Deliveries follow the rights of the user who last set
the sink, every accepted change has its audit row, and with public reads off a user reads only their own
subscriptions (registry admins all)."""

import pytest
from django.urls import reverse
from django.utils import timezone

from registry.models import AuditRecord
from subscriptions.models import Delivery, Subscription
from subscriptions.relay import relay_pending
from tests.helpers import assert_problem
from tests.registry.admin.test_admin_permissions import everything, messages_of
from tests.registry.teams.test_subscriptions import deliveries, subscriber

SINK_A, SINK_A2 = "http://127.0.0.1:9/a", "http://127.0.0.1:9/a2"
SINK_B, SINK_ADMIN = "http://127.0.0.1:9/b", "http://127.0.0.1:9/admin"
REFUSED = "only the user who created this subscription, the user who last set its sink, or a registry admin"


@pytest.fixture
def sinks(settings):
    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    return settings


def body(sink: str, filters=None) -> dict:
    return {"protocol": "HTTP", "sink": sink, "filters": filters or []}


def write_schema(su, gid: str, sid: str = "s") -> None:
    response = su.generic(
        "PUT",
        f"/schemaGroups/{gid}/schemas/{sid}",
        b"x",
        content_type="text/plain",
        headers={"Registry-format": "Custom/1"},
    )
    assert response.status_code in (200, 201), response.content


def stored(sid: str):
    """The subscription's row and its deliveries and audit rows: a refused write changes none of them."""
    return (
        list(Subscription.objects.filter(pk=sid).values()),
        list(Delivery.objects.filter(subscription_id=sid).order_by("pk").values()),
        list(AuditRecord.objects.filter(path=f"/subscriptions/{sid}").order_by("pk").values()),
    )


def audit_trail(admin, sid: str) -> list[tuple[str, str, str]]:
    response = admin.get("/audit", {"path": f"/subscriptions/{sid}"})
    assert response.status_code == 200, response.content
    return [(row["actor"], row["door"], row["operation"]) for row in response.json()]


def test_another_user_cannot_repoint_a_subscription_and_deliveries_follow_who_set_the_sink(teams, su, sinks):
    relay_pending()  # the fixture's own changes
    sinks.REGISTRY_PUBLIC_READ = False
    owner_a, owner_b, admin = subscriber(teams, "owner_a"), subscriber(teams, "owner_b"), teams["admin"]
    created = owner_a.post("/subscriptions", body(SINK_A), format="json")
    assert created.status_code == 201, created.content
    sid = created.json()["id"]
    path = f"/subscriptions/{sid}"
    before = stored(sid)
    # B (who may not read A) re-points A's subscription at their own sink: refused through every door of the API
    refusals = [
        owner_b.put(path, {**body(SINK_B), "id": sid}, format="json"),
        owner_b.delete(path),
        owner_b.post(f"{path}/revalidate"),
        owner_b.post(f"{path}/redeliver"),
    ]
    for response in refusals:
        assert_problem(response, 403, REFUSED)
        assert stored(sid) == before
    # A's own change is accepted; the sink is still A's
    response = owner_a.put(path, {**body(SINK_A2), "id": sid}, format="json")
    assert response.status_code == 200, response.content
    assert Subscription.objects.get(pk=sid).sink_set_by == "owner_a"
    write_schema(su, "A")
    write_schema(su, "B")
    relay_pending()
    assert deliveries(sid) == {"/schemaGroups/A"}  # A's rights: B's group is left out
    assert not Delivery.objects.filter(subscription__sink=SINK_B).exists()  # nothing of A's group reaches B's sink
    # a registry admin re-points it: the deliveries follow the admin's rights from then on
    response = admin.put(path, {**body(SINK_ADMIN), "id": sid}, format="json")
    assert response.status_code == 200, response.content
    assert Subscription.objects.get(pk=sid).sink_set_by == "admin"
    write_schema(su, "B", "s2")
    relay_pending()
    assert deliveries(sid) == {"/schemaGroups/A", "/schemaGroups/B"}
    # the creator still changes it (the filters alone: the sink, and whose rights the deliveries follow, stay)
    response = owner_a.put(
        path, {**body(SINK_ADMIN, [{"prefix": {"subject": "/schemaGroups/"}}]), "id": sid}, format="json"
    )
    assert response.status_code == 200, response.content
    assert Subscription.objects.get(pk=sid).sink_set_by == "admin"
    assert audit_trail(admin, sid) == [
        ("owner_a", "subscriptions", "create"),
        ("owner_a", "subscriptions", "update"),
        ("admin", "subscriptions", "update"),
        ("owner_a", "subscriptions", "update"),
    ]
    assert owner_b.delete(path).status_code == 403
    assert owner_a.delete(path).status_code == 200
    assert audit_trail(admin, sid)[-1] == ("owner_a", "subscriptions", "delete")


def test_a_user_who_may_read_nothing_of_a_group_gets_none_of_its_events_whoever_created_the_subscription(
    teams, su, sinks
):
    """The events of a private group (public reads off, a group with owners) never reach the sink of a user who may
    not read it: not through a subscription of theirs (the relay leaves them out), nor by re-pointing another's."""
    relay_pending()
    sinks.REGISTRY_PUBLIC_READ = False
    owner_a, owner_b = subscriber(teams, "owner_a"), subscriber(teams, "owner_b")
    theirs = owner_a.post("/subscriptions", body(SINK_A), format="json").json()["id"]
    mine = owner_b.post("/subscriptions", body(SINK_B), format="json").json()["id"]
    owner_b.put(f"/subscriptions/{theirs}", {**body(SINK_B), "id": theirs}, format="json")
    write_schema(su, "A")
    relay_pending()
    to_b = Delivery.objects.filter(subscription__sink=SINK_B).values_list("event__subject", flat=True)
    assert not [subject for subject in to_b if subject.startswith("/schemaGroups/A")]
    assert deliveries(theirs) == {"/schemaGroups/A"} and deliveries(mine) == set()


def test_the_admins_forms_and_actions_refuse_another_users_subscription(teams, su, sinks, client):
    """Public reads on: B sees A's subscription in the admin, and still writes nothing to it by any form or action."""
    relay_pending()
    owner_a = subscriber(teams, "owner_a")
    subscriber(teams, "owner_b")
    sid = owner_a.post("/subscriptions", body(SINK_A), format="json").json()["id"]
    write_schema(su, "C")
    relay_pending()
    Delivery.objects.filter(subscription_id=sid).update(status=Delivery.Status.DEAD)  # a dead letter to redeliver
    dead = Delivery.objects.filter(subscription_id=sid).order_by("pk").first()
    dead.attempt_log.create(number=1, started_at=timezone.now(), error="connection refused")
    client.force_login(teams.users["owner_b"])
    change = reverse("admin:subscriptions_subscription_change", args=[sid])
    changelist = reverse("admin:subscriptions_subscription_changelist")
    form = {"protocol": "HTTP", "sink": SINK_B, "protocolsettings": "{}", "filters": "[]", "config": "{}"}
    before = everything()
    page = client.get(change)
    assert page.status_code == 200 and "readonly" in page.content.decode()
    seen = page.context["form"].initial["seen"]
    client.post(change, {**form, "seen": seen})
    assert everything() == before
    for action in ("disable", "enable"):
        response = client.post(changelist, {"action": action, "_selected_action": [sid]}, follow=True)
        assert any(REFUSED in message for message in messages_of(response)), messages_of(response)
        assert everything() == before, action
    response = client.post(changelist, {"action": "delete_selected", "_selected_action": [sid], "post": "yes"})
    assert response.status_code == 403
    assert (
        client.post(reverse("admin:subscriptions_subscription_delete", args=[sid]), {"post": "yes"}).status_code == 403
    )
    # deliveries and their attempts are not deleted on their own (they go with their subscription)
    deliveries_list = reverse("admin:subscriptions_delivery_changelist")
    client.post(deliveries_list, {"action": "delete_selected", "_selected_action": [dead.pk], "post": "yes"})
    assert (
        client.post(reverse("admin:subscriptions_delivery_delete", args=[dead.pk]), {"post": "yes"}).status_code == 403
    )
    attempt_delete = reverse("admin:subscriptions_deliveryattempt_delete", args=[dead.attempt_log.get().pk])
    assert client.post(attempt_delete, {"post": "yes"}).status_code == 403
    assert everything() == before
    redeliver = {"action": "redeliver", "_selected_action": [dead.pk]}
    response = client.post(reverse("admin:subscriptions_delivery_changelist"), redeliver, follow=True)
    assert any(REFUSED in message for message in messages_of(response)), messages_of(response)
    assert everything() == before
    # the creator's own edit and action through the admin are accepted and audited as the admin's door
    client.force_login(teams.users["owner_a"])
    assert client.post(change, {**form, "sink": SINK_A2, "seen": seen}).status_code == 302
    response = client.post(changelist, {"action": "disable", "_selected_action": [sid]}, follow=True)
    assert Subscription.objects.get(pk=sid).status == "disabled"
    response = client.post(reverse("admin:subscriptions_delivery_changelist"), redeliver, follow=True)
    assert Delivery.objects.get(pk=dead.pk).status == Delivery.Status.PENDING
    # a registry admin's edit re-points it: the sink is theirs
    client.force_login(teams.users["admin"])
    seen = client.get(change).context["form"].initial["seen"]
    assert client.post(change, {**form, "sink": SINK_ADMIN, "seen": seen}).status_code == 302
    assert Subscription.objects.get(pk=sid).sink_set_by == "admin"
    # its creator deletes it, its deliveries with it
    client.force_login(teams.users["owner_a"])
    response = client.post(reverse("admin:subscriptions_subscription_delete", args=[sid]), {"post": "yes"})
    assert response.status_code == 302
    assert not Subscription.objects.filter(pk=sid).exists() and not Delivery.objects.filter(pk=dead.pk).exists()
    assert audit_trail(teams["admin"], sid) == [
        ("owner_a", "subscriptions", "create"),
        ("owner_a", "admin", "update"),
        ("owner_a", "admin", "update"),
        ("owner_a", "admin", "update"),
        ("admin", "admin", "update"),
        ("owner_a", "admin", "delete"),
    ]


def test_with_public_reads_off_a_user_reads_their_own_subscriptions_and_admins_all(teams, sinks, client):
    owner_a, owner_b, admin = subscriber(teams, "owner_a"), subscriber(teams, "owner_b"), teams["admin"]
    sid = owner_a.post("/subscriptions", body(SINK_A, [{"prefix": {"subject": "/schemaGroups/A"}}]), format="json")
    sid = sid.json()["id"]
    mine = owner_b.post("/subscriptions", body(SINK_B), format="json").json()["id"]
    # public reads on: whoever holds the view permission reads every subscription, its secrets masked (as documented)
    assert owner_b.get(f"/subscriptions/{sid}").status_code == 200
    assert {s["id"] for s in owner_b.get("/subscriptions").json()} == {sid, mine}
    sinks.REGISTRY_PUBLIC_READ = False
    response = owner_b.get(f"/subscriptions/{sid}")
    assert_problem(response, 403)
    assert b"/schemaGroups/A" not in response.content
    listed = owner_b.get("/subscriptions")
    assert [s["id"] for s in listed.json()] == [mine] and b"/schemaGroups/A" not in listed.content
    assert owner_a.get(f"/subscriptions/{sid}").status_code == 200
    assert {s["id"] for s in admin.get("/subscriptions").json()} == {sid, mine}
    client.force_login(teams.users["owner_b"])
    page = client.get(reverse("admin:subscriptions_subscription_changelist")).content.decode()
    assert mine in page and sid not in page
    Subscription.objects.filter(pk__in=[sid, mine]).update(status="failed")  # listed among the dashboard's failing
    dashboard = client.get(reverse("admin:index")).content.decode()
    assert mine in dashboard and sid not in dashboard
    assert client.get(reverse("admin:subscriptions_subscription_change", args=[sid])).status_code == 302  # not found


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_the_creators_rights_for_existing_subscriptions():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("subscriptions", "0001_initial")])
    old = executor.loader.project_state([("subscriptions", "0001_initial")]).apps.get_model(
        "subscriptions", "Subscription"
    )
    old.objects.create(id="legacy", protocol="HTTP", sink=SINK_A, created_by="carol")
    old.objects.create(id="system", protocol="HTTP", sink=SINK_A, created_by=None)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert dict(Subscription.objects.values_list("id", "sink_set_by")) == {"legacy": "carol", "system": None}
