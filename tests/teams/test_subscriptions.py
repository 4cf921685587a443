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
