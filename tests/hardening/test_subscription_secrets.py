"""Issue 11 items 7 (sink URLs), 10 (secrets of sinks) and 11 (non-global sink addresses)."""

import pytest
from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from subscriptions.models import Subscription
from tests.helpers import assert_problem

pytestmark = pytest.mark.django_db
SECRET_SINK = "https://user:s3cret@hooks.example.com/in?token=abcdef&team=core"


@pytest.fixture
def stored(db, settings):
    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    return Subscription.objects.create(
        protocol="HTTP", sink=SECRET_SINK, protocolsettings={"method": "POST"}, status="active"
    )


def test_anonymous_reads_of_subscriptions_are_refused_whatever_public_read_says(stored, settings):
    """issue 11 item 10"""
    settings.REGISTRY_PUBLIC_READ = True
    anon = APIClient()
    for path in ("/subscriptions", f"/subscriptions/{stored.pk}"):
        response = anon.get(path)
        assert_problem(response, 401)
        assert b"s3cret" not in response.content and b"abcdef" not in response.content


def test_reads_need_the_view_permission(stored, django_user_model):
    """issue 11 item 10"""
    user = django_user_model.objects.create_user("reader", password="pw")
    client = APIClient()
    client.force_authenticate(user)
    assert_problem(client.get("/subscriptions"), 403)
    user.user_permissions.add(Permission.objects.get(codename="view_subscription"))
    user = django_user_model.objects.get(pk=user.pk)  # permissions are cached per instance
    client.force_authenticate(user)
    assert client.get("/subscriptions").status_code == 200


def test_secrets_in_the_sink_are_masked_in_every_read(stored, su):
    """issue 11 item 10: user-info password and query values"""
    listed = su.get("/subscriptions")
    single = su.get(f"/subscriptions/{stored.pk}")
    for response in (listed, single):
        assert response.status_code == 200
        assert b"s3cret" not in response.content and b"abcdef" not in response.content
    assert single.json()["sink"] == "https://user:***@hooks.example.com/in?token=***&team=***"


def test_admin_pages_mask_the_sink(stored, client, superuser):
    """issue 11 item 10: the governance UI (session) shows no secret either"""
    client.force_login(superuser)
    for path in (
        "/admin/subscriptions/subscription/",
        f"/admin/subscriptions/subscription/{stored.pk}/change/",
        "/admin/",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert b"s3cret" not in response.content and b"abcdef" not in response.content, path


def test_sending_back_the_masked_sink_keeps_the_stored_one(stored, su, settings):
    """issue 11 item 10: a read-modify-write does not overwrite the secret with ***"""
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True  # hooks.example.com need not resolve to a public address here
    shown = su.get(f"/subscriptions/{stored.pk}").json()
    shown["filters"] = [{"prefix": {"subject": "/schemaGroups/"}}]
    response = su.put(
        f"/subscriptions/{stored.pk}",
        {k: shown[k] for k in ("protocol", "sink", "protocolsettings", "filters")},
        format="json",
    )
    assert response.status_code == 200, response.content
    stored.refresh_from_db()
    assert stored.sink == SECRET_SINK
    assert stored.filters == shown["filters"]


@pytest.mark.parametrize(
    "sink",
    ["http://[::1", "http://h.example:99999/", "https://x:-1/", "http://a b.example/", "http://h.example/\r\nX: y"],
)
def test_malformed_sinks_are_400_naming_sink(su, sink):
    """issue 11 item 7"""
    before = Subscription.objects.count()
    response = su.post("/subscriptions", {"protocol": "HTTP", "sink": sink}, format="json")
    assert_problem(response, 400, "sink")
    assert Subscription.objects.count() == before


@pytest.mark.parametrize(
    "address",
    [
        "100.100.100.200",
        "100.64.0.1",
        "2002:7f00:1::1",
        "::ffff:127.0.0.1",
        "64:ff9b::a9fe:a9fe",
        "2001:0:4136:e378:8000:63bf:80ff:fffe",
        "192.0.2.1",
        "198.18.0.1",
        "fd00::1",
        "169.254.169.254",
    ],
)
def test_non_global_sinks_are_refused(su, settings, address):
    """issue 11 item 11: literal addresses, so no DNS is involved"""
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = False
    host = f"[{address}]" if ":" in address else address
    response = su.post("/subscriptions", {"protocol": "HTTP", "sink": f"http://{host}/hook"}, format="json")
    assert_problem(response, 400, "sink", "not a globally routable")
    assert not Subscription.objects.exists()


def test_non_global_sink_is_refused_again_at_delivery(su, settings, django_capture_on_commit_callbacks):
    """issue 11 item 11: a stored sink that is not globally routable (stored before the rule, or its name now
    resolves elsewhere) gets no request: the attempt records the refusal"""
    from subscriptions.models import DeliveryAttempt

    settings.REGISTRY_ALLOW_PRIVATE_SINKS = False
    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    Subscription.objects.create(protocol="HTTP", sink="http://100.100.100.200/metadata", status="active")
    with django_capture_on_commit_callbacks(execute=True):
        assert su.put("/schemaGroups/g", {}, format="json").status_code == 201
    attempt = DeliveryAttempt.objects.get()
    assert "refused" in attempt.error and "not a globally routable" in attempt.error
