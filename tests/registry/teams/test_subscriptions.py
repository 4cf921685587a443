"""A subscription watches only what its owner may read (issue 27): with public reads off, filters on a group whose
teams the user is not in are refused with 403 (nothing written), in either binding's names; with public reads on, or
on a group of theirs, they are accepted."""

from django.contrib.auth.models import Permission

from subscriptions.models import Subscription

SINK = "http://127.0.0.1:9/hook"  # never dialled: the handshake is off


def subscriber(teams, name):
    user = teams.users[name]
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="subscriptions"))
    return teams[name]


def subscribe(client, subject, dialect="prefix"):
    body = {"protocol": "HTTP", "sink": SINK, "filters": [{dialect: {"subject": subject}}]}
    return client.post("/subscriptions", body, format="json")


def test_filters_on_groups_the_user_may_not_read_are_refused_when_reads_are_not_public(teams, settings):
    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    settings.REGISTRY_PUBLIC_READ = False
    client = subscriber(teams, "owner_b")
    for subject in ("/schemaGroups/A/schemas", "/schemagroups/A"):
        response = subscribe(client, subject)
        assert response.status_code == 403, response.content
        assert "the role reader" in response.json()["detail"] and "/schemaGroups/A" in response.json()["detail"]
    nested = {"protocol": "HTTP", "sink": SINK, "filters": [{"any": [{"exact": {"subject": "/schemaGroups/A"}}]}]}
    assert client.post("/subscriptions", nested, format="json").status_code == 403
    assert not Subscription.objects.exists()
    assert subscribe(client, "/schemaGroups/B").status_code == 201
    assert subscribe(client, "/schemaGroups/C").status_code == 201  # no owners
    assert subscribe(subscriber(teams, "reader_a"), "/schemaGroups/A").status_code == 201
    settings.REGISTRY_PUBLIC_READ = True
    assert subscribe(client, "/schemaGroups/A").status_code == 201


def deliveries(subscription_id) -> set[str]:
    """The groups of the events relayed to a subscription."""
    from subscriptions.models import Delivery

    subjects = Delivery.objects.filter(subscription_id=subscription_id).values_list("event__subject", flat=True)
    return {"/".join(subject.split("/")[:3]) for subject in subjects}


def test_deliveries_carry_only_what_the_subscriber_may_read_when_reads_are_not_public(teams, su, settings):
    """Filters that name no group (every change, or a prefix of every group's path) match everything; with public
    reads off the relay still leaves out the events of groups the subscriber's teams hold no role in, a deleted
    group's last events included; a subscriber who joins a team gets the events that follow."""
    from django.contrib.auth.models import Group as Team

    from registry.models import OutboxEvent
    from subscriptions.relay import relay_pending

    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    relay_pending()  # the fixture's own changes
    settings.REGISTRY_PUBLIC_READ = False
    ids = {}
    for name in ("outsider", "owner_b", "admin"):
        for filters in ([], [{"prefix": {"subject": "/schemaGroups/"}}]):
            body = {"protocol": "HTTP", "sink": SINK, "filters": filters}
            response = subscriber(teams, name).post("/subscriptions", body, format="json")
            assert response.status_code == 201, response.content
            ids[(name, bool(filters))] = response.json()["id"]
    legacy = Subscription.objects.create(protocol="HTTP", sink=SINK, filters=[], status="active")  # no owner
    for gid in ("B", "C"):
        response = su.generic(
            "PUT",
            f"/schemaGroups/{gid}/schemas/s",
            b"x",
            content_type="text/plain",
            headers={"Registry-format": "Custom/1"},
        )
        assert response.status_code == 201, response.content
    assert su.delete("/schemaGroups/B").status_code in (200, 204)
    assert OutboxEvent.objects.get(subject="/schemaGroups/B", type__contains="deleted").owners == {"team-b": "owner"}
    relay_pending()
    everything = {"/schemaGroups/B", "/schemaGroups/C"}
    for filtered in (False, True):
        assert deliveries(ids[("outsider", filtered)]) == {"/schemaGroups/C"}
        assert deliveries(ids[("owner_b", filtered)]) == everything
        assert deliveries(ids[("admin", filtered)]) == everything
    assert deliveries(legacy.pk) == {"/schemaGroups/C"}
    teams.users["outsider"].groups.add(Team.objects.get(name="team-a"))
    response = su.generic(
        "PUT", "/schemaGroups/A/schemas/s", b"x", content_type="text/plain", headers={"Registry-format": "Custom/1"}
    )
    assert response.status_code == 201, response.content
    relay_pending()
    assert "/schemaGroups/A" in deliveries(ids[("outsider", False)])
    assert "/schemaGroups/A" not in deliveries(legacy.pk)


def test_public_reads_deliver_every_change(teams, su, settings):
    from subscriptions.relay import relay_pending

    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    relay_pending()
    response = subscriber(teams, "outsider").post(
        "/subscriptions", {"protocol": "HTTP", "sink": SINK, "filters": []}, format="json"
    )
    assert response.status_code == 201, response.content
    su.generic(
        "PUT", "/schemaGroups/B/schemas/s", b"x", content_type="text/plain", headers={"Registry-format": "Custom/1"}
    )
    relay_pending()
    assert deliveries(response.json()["id"]) == {"/schemaGroups/B"}
