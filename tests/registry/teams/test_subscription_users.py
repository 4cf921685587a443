"""Issue 37 (the next instance of "every door, one rule"): a subscription's creator and the user who set its sink are
users, not names. Both were kept as usernames, so a user deleted and made again under the same name (another person)
changed the old user's subscriptions, read them with public reads off, and had the deliveries to the old user's sink
follow their own rights: events of groups the old user could not read went to the sink the old user chose. Now they
are kept by id: the new user of that name has nothing to do with them (403 on a change, nothing written; the
subscription is not theirs to read), and the deliveries follow nobody's rights (those of a subscription without an
owner: groups without owners only)."""

import pytest
from django.contrib.auth.models import Group as Team
from django.contrib.auth.models import Permission

from subscriptions.models import Subscription
from subscriptions.relay import relay_pending
from tests.conftest import token_client
from tests.helpers import assert_problem
from tests.registry.teams.test_subscription_owners import body, stored, write_schema
from tests.registry.teams.test_subscriptions import deliveries

SINK = "http://127.0.0.1:9/bob"


@pytest.fixture
def sinks(settings):
    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    return settings


def make_bob(django_user_model, *teams: str):
    user = django_user_model.objects.create_user("bob", password="pw")
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="subscriptions"))
    for team in teams:
        user.groups.add(Team.objects.get(name=team))
    return user, token_client(user)


def test_a_user_made_again_under_a_name_does_not_inherit_its_subscriptions(teams, su, sinks, django_user_model):
    relay_pending()  # the fixture's own changes
    sinks.REGISTRY_PUBLIC_READ = False
    old, old_client = make_bob(django_user_model, "team-a-dev")
    created = old_client.post("/subscriptions", body(SINK), format="json")
    assert created.status_code == 201, created.content
    sid = created.json()["id"]
    row = Subscription.objects.get(pk=sid)
    assert (row.created_by, row.sink_set_by) == ("bob", "bob")
    write_schema(su, "A", "first")
    relay_pending()
    assert deliveries(sid) == {"/schemaGroups/A"}
    old.delete()
    # another person gets the name, and a role in B, which the first bob could not read
    _new, new_client = make_bob(django_user_model, "team-b")
    before = stored(sid)
    for response in (
        new_client.put(f"/subscriptions/{sid}", {**body("http://127.0.0.1:9/new"), "id": sid}, format="json"),
        new_client.delete(f"/subscriptions/{sid}"),
        new_client.post(f"/subscriptions/{sid}/revalidate"),
    ):
        assert_problem(response, 403, "only the user who created this subscription")
        assert stored(sid) == before
    assert new_client.get(f"/subscriptions/{sid}").status_code in (403, 404)
    assert sid not in {s["id"] for s in new_client.get("/subscriptions").json()}
    # the sink the first bob chose gets nothing of B (nor, its owner gone, of A)
    write_schema(su, "B", "secret")
    write_schema(su, "A", "second")
    write_schema(su, "C", "open")
    relay_pending()
    subjects = set(Subscription.objects.get(pk=sid).deliveries.values_list("event__subject", flat=True))
    assert not any(s.startswith("/schemaGroups/B") for s in subjects), subjects
    assert not any(s.startswith("/schemaGroups/A/schemas/second") for s in subjects), subjects
    assert any(s.startswith("/schemaGroups/C") for s in subjects), subjects


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_existing_subscriptions_the_users_their_names_name(django_user_model):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    carol = django_user_model.objects.create_user("carol", password="pw")
    executor = MigrationExecutor(connection)
    executor.migrate([("subscriptions", "0002_sink_set_by")])
    old = executor.loader.project_state([("subscriptions", "0002_sink_set_by")]).apps.get_model(
        "subscriptions", "Subscription"
    )
    old.objects.create(id="mine", protocol="HTTP", sink=SINK, created_by="carol", sink_set_by="carol")
    old.objects.create(id="gone", protocol="HTTP", sink=SINK, created_by="dave", sink_set_by="dave")
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    users = {s.pk: (s.created_by_user_id, s.sink_set_by_user_id) for s in Subscription.objects.all()}
    assert users == {"mine": (carol.pk, carol.pk), "gone": (None, None)}
