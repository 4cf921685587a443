"""Issue 26: a failed webhook handshake is not final. A PUT of the same body, `POST /subscriptions/ID/revalidate`
and the admin's "Enable" run the handshake again (the sink sees a new OPTIONS); "Enable" no longer activates a
subscription whose sink still refuses. Other protocols have their sink checked again. Refusals change nothing."""

import pytest
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from subscriptions.models import Subscription
from tests.helpers import assert_problem

pytestmark = pytest.mark.django_db(transaction=True)


def handshakes(sink) -> int:
    return sum(1 for r in sink.requests if r["method"] == "OPTIONS")


@pytest.fixture
def failed(su, private_sinks, sink):
    """An HTTP subscription whose handshake the sink refused; the sink then fixed to allow it."""
    sink.handshake = "refuse"
    body = {"protocol": "HTTP", "sink": sink.url, "filters": [{"prefix": {"subject": "/schemaGroups/"}}]}
    response = su.post("/subscriptions", body, format="json")
    assert response.status_code == 201
    subscription = Subscription.objects.get(pk=response.json()["id"])
    assert subscription.status == "failed" and "refused" in subscription.status_reason
    assert handshakes(sink) == 1
    sink.handshake = "allow"
    return subscription, body


def test_create_answers_the_status_after_the_handshake(su, private_sinks, sink):
    """Without workers the handshake runs within the request: the answer says how it went (it said pending)."""
    sink.handshake = "refuse"
    response = su.post("/subscriptions", {"protocol": "HTTP", "sink": sink.url}, format="json")
    assert response.json()["status"] == "failed" and "refused" in response.json()["statusReason"]


def test_a_put_of_the_same_body_runs_the_handshake_again(su, failed, sink):
    subscription, body = failed
    response = su.put(f"/subscriptions/{subscription.pk}", {**body, "id": subscription.pk}, format="json")
    assert response.status_code == 200
    assert response.json()["status"] == "active" and "statusReason" not in response.json()
    assert handshakes(sink) == 2
    subscription.refresh_from_db()
    assert subscription.status == "active"
    su.put("/schemaGroups/after", {}, format="json")  # and it receives events
    assert [r["method"] for r in sink.requests][-1] == "POST"


def test_a_put_of_an_active_subscription_does_not_repeat_the_handshake(su, failed, sink):
    subscription, body = failed
    su.post(f"/subscriptions/{subscription.pk}/revalidate")
    assert handshakes(sink) == 2
    response = su.put(f"/subscriptions/{subscription.pk}", {**body, "id": subscription.pk}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "active"
    assert handshakes(sink) == 2


def test_revalidate_runs_the_handshake(su, failed, sink):
    subscription, _body = failed
    sink.handshake = "refuse"
    response = su.post(f"/subscriptions/{subscription.pk}/revalidate")
    assert response.status_code == 200
    assert response.json()["status"] == "failed" and "refused" in response.json()["statusReason"]
    assert handshakes(sink) == 2
    sink.handshake = "allow"
    response = su.post(f"/subscriptions/{subscription.pk}/revalidate")
    assert response.status_code == 200 and response.json()["status"] == "active"
    assert handshakes(sink) == 3
    assert Subscription.objects.get(pk=subscription.pk).status == "active"


def test_revalidate_checks_other_protocols_sinks_again(su, private_sinks, settings):
    body = {"protocol": "MQTT5", "sink": "mqtt://127.0.0.1:1883", "protocolsettings": {"topicname": "t"}}
    sid = su.post("/subscriptions", body, format="json").json()["id"]
    Subscription.objects.filter(pk=sid).update(status="disabled", status_reason="disabled by alice")
    response = su.post(f"/subscriptions/{sid}/revalidate")
    assert response.status_code == 200 and response.json()["status"] == "active"
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = False  # the deployment now refuses loopback sinks
    response = su.post(f"/subscriptions/{sid}/revalidate")
    assert response.json()["status"] == "failed" and "not a globally routable" in response.json()["statusReason"]


def test_revalidate_refusals_change_nothing(su, failed, sink, django_user_model):
    subscription, _body = failed
    before = list(Subscription.objects.values())
    assert_problem(APIClient().post(f"/subscriptions/{subscription.pk}/revalidate"), 401)
    viewer = django_user_model.objects.create_user("viewer", password="pw")
    viewer.user_permissions.add(Permission.objects.get(codename="view_subscription"))
    client = APIClient()
    client.force_authenticate(django_user_model.objects.get(pk=viewer.pk))
    assert_problem(client.post(f"/subscriptions/{subscription.pk}/revalidate"), 403)
    assert_problem(su.post("/subscriptions/nope/revalidate"), 404, "/subscriptions/nope")
    assert_problem(su.post(f"/subscriptions/{subscription.pk}/revalidate?inline"), 400)
    assert list(Subscription.objects.values()) == before
    assert handshakes(sink) == 1


def enable(client, subscription):
    return client.post(
        "/admin/subscriptions/subscription/",
        {"action": "enable", "_selected_action": [subscription.pk]},
        follow=True,
    )


def test_the_admin_enable_runs_the_handshake(client, superuser, failed, sink):
    subscription, _body = failed
    client.force_login(superuser)
    sink.handshake = "refuse"
    page = enable(client, subscription).content.decode()
    assert handshakes(sink) == 2
    subscription.refresh_from_db()
    assert subscription.status == "failed"  # it used to become active without asking the sink
    assert "1 failed" in page and "handshake refused" in page
    sink.handshake = "allow"
    page = enable(client, subscription).content.decode()
    assert handshakes(sink) == 3 and "1 active" in page
    subscription.refresh_from_db()
    assert subscription.status == "active"


def test_the_admin_enable_needs_the_change_permission(client, failed, sink, django_user_model):
    subscription, _body = failed
    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_subscription"))
    client.force_login(viewer)
    before = list(Subscription.objects.values())
    response = enable(client, subscription)
    assert response.status_code in (200, 403)
    assert list(Subscription.objects.values()) == before and handshakes(sink) == 1
