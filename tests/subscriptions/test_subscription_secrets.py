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


# --- issue 24 item 10: every header and property value, every query part, the fragment ----------------------

HEADER_SECRETS = {
    "Proxy-Authorization": "Basic cHJveHk6c2VjcmV0LXByb3h5",
    "Cookie": "session=secret-cookie-value",
    "X-Api-Key": "secret-api-key",
    "X-Auth-Token": "secret-auth-token",
    "X-Team": "orders",
}
SEEDED = {
    "http": {
        "protocol": "HTTP",
        "sink": "https://hooks.example.com/in?SECRETVALUELESS&sig=secret-signature&team=core",
        "protocolsettings": {"headers": {**HEADER_SECRETS, "Authorization": "Bearer secret-bearer"}},
    },
    "amqp": {
        "protocol": "AMQP",
        "sink": "amqp://mq.example.com:5672/orders",
        "protocolsettings": {"linkproperties": {"x-opt-key": "secret-link-property", "team": "core"}},
    },
    "mqtt": {
        "protocol": "MQTT5",
        "sink": "mqtt://mq.example.com:1883",
        "protocolsettings": {"topicname": "t", "userproperties": {"api-key": "secret-user-property", "team": "core"}},
    },
}
SECRET_WORDS = [
    *[v for k, v in HEADER_SECRETS.items() if k != "X-Team"],
    "secret-bearer",
    "SECRETVALUELESS",
    "secret-signature",
    "secret-link-property",
    "secret-user-property",
    "secret-fragment-token",
]


CREATED_ANSWERS: dict[str, str] = {}


@pytest.fixture
def seeded(su, settings):
    """One subscription of each kind created through the API, and one stored with a fragment (refused today,
    stored by an older release)."""
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True  # *.example.com need not resolve here
    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    ids = {}
    for name, body in SEEDED.items():
        response = su.post("/subscriptions", body, format="json")
        assert response.status_code == 201, response.content
        CREATED_ANSWERS[name] = response.content.decode()
        ids[name] = response.json()["id"]
    ids["fragment"] = Subscription.objects.create(
        protocol="HTTP", sink="https://hooks.example.com/in#access_token=secret-fragment-token", status="active"
    ).pk
    return ids


@pytest.fixture
def viewer(django_user_model):
    """A staff user with the view permission on subscriptions only."""
    user = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_subscription"))
    client = APIClient()
    client.force_authenticate(django_user_model.objects.get(pk=user.pk))
    return client


def test_view_only_users_read_no_secret(seeded, viewer):
    for name, answer in CREATED_ANSWERS.items():  # the create's answer (to its writer) shows none either
        assert not [word for word in SECRET_WORDS if word in answer], name
    pages = [viewer.get("/subscriptions")] + [viewer.get(f"/subscriptions/{sid}") for sid in seeded.values()]
    for response in pages:
        assert response.status_code == 200
        for word in SECRET_WORDS:
            assert word not in response.content.decode(), word
    shown = {sid: viewer.get(f"/subscriptions/{sid}").json() for sid in seeded.values()}
    http = shown[seeded["http"]]
    assert http["sink"] == "https://hooks.example.com/in?***&sig=***&team=***"
    assert http["protocolsettings"]["headers"] == {name: "***" for name in HEADER_SECRETS}  # Authorization: left out
    assert shown[seeded["amqp"]]["protocolsettings"]["linkproperties"] == {"x-opt-key": "***", "team": "***"}
    assert shown[seeded["mqtt"]]["protocolsettings"]["userproperties"] == {"api-key": "***", "team": "***"}
    assert shown[seeded["fragment"]]["sink"] == "https://hooks.example.com/in#***"


def test_names_listed_as_safe_are_shown(seeded, viewer, settings):
    settings.REGISTRY_SUBSCRIPTION_SAFE_NAMES = ["x-team", "TEAM", "Authorization"]  # a credential never is
    http = viewer.get(f"/subscriptions/{seeded['http']}").json()
    assert http["sink"] == "https://hooks.example.com/in?***&sig=***&team=core"
    assert http["protocolsettings"]["headers"] == {**{k: "***" for k in HEADER_SECRETS}, "X-Team": "orders"}
    amqp = viewer.get(f"/subscriptions/{seeded['amqp']}").json()
    assert amqp["protocolsettings"]["linkproperties"] == {"x-opt-key": "***", "team": "core"}
    assert "secret-bearer" not in viewer.get("/subscriptions").content.decode()


def test_what_was_read_sent_back_keeps_the_stored_secrets(seeded, su):
    before = {s.pk: (s.sink, s.protocolsettings) for s in Subscription.objects.all()}
    for name, sid in seeded.items():
        shown = su.get(f"/subscriptions/{sid}").json()
        body = {k: shown[k] for k in ("protocol", "sink", "protocolsettings") if k in shown}
        body["filters"] = [{"prefix": {"subject": "/schemaGroups/"}}]
        response = su.put(f"/subscriptions/{sid}", body, format="json")
        for word in SECRET_WORDS:
            assert word not in response.content.decode(), (name, word)  # errors name the sink as shown too
        if name == "fragment":  # stored before fragments were refused: kept as is, and refused as is
            assert_problem(response, 400, "fragment")
            assert Subscription.objects.get(pk=sid).sink == before[sid][0]
            continue
        assert response.status_code == 200, (name, response.content)
        stored = Subscription.objects.get(pk=sid)
        sink, protocolsettings = before[sid]
        assert stored.sink == sink and stored.filters == body["filters"]
        expected = {k: v for k, v in protocolsettings.items()}
        if name == "http":  # Authorization is a credential: not shown, so a PUT without it drops it (as passwords)
            expected["headers"] = {k: v for k, v in expected["headers"].items() if k != "Authorization"}
        assert {k: v for k, v in stored.protocolsettings.items() if k in expected} == expected, name


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"protocolsettings": {"headers": {"X-New": "***"}}}, "protocolsettings.headers.X-New"),
        ({"sink": "https://other.example.com/in?sig=***"}, "sink"),
    ],
)
def test_a_masked_value_with_nothing_stored_to_keep_is_refused(seeded, su, change, named):
    sid = seeded["http"]
    before = list(Subscription.objects.values())
    body = {**SEEDED["http"], **change}
    assert_problem(su.put(f"/subscriptions/{sid}", body, format="json"), 400, named, "***")
    assert_problem(su.post("/subscriptions", body, format="json"), 400, named, "***")
    assert list(Subscription.objects.values()) == before


def test_the_admin_search_is_no_oracle_for_secrets(seeded, client, superuser):
    client.force_login(superuser)
    for url in ("/admin/subscriptions/subscription/", "/admin/subscriptions/delivery/"):
        for term in ("secret-signature", "SECRETVALUELESS", "secret-fragment"):
            page = client.get(url, {"q": term}).content.decode()
            assert "0 subscriptions" in page or "0 deliveries" in page, (url, term)


def test_an_answer_that_echoes_the_request_does_not_store_its_secrets(su, settings, django_capture_on_commit_callbacks):
    """A sink's error answer echoing our headers lands in the attempt's error, which view-only users read."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from subscriptions.models import DeliveryAttempt

    class Echo(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = str(dict(self.headers)).encode()
            self.send_response(400)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    settings.REGISTRY_WEBHOOK_HANDSHAKE = False
    try:
        body = {
            "protocol": "HTTP",
            "sink": f"http://hook:secret-basic@127.0.0.1:{server.server_port}/in",
            "protocolsettings": {"headers": {"X-Api-Key": "secret-api-key", "Cookie": "c=secret-cookie"}},
        }
        assert su.post("/subscriptions", body, format="json").status_code == 201
        with django_capture_on_commit_callbacks(execute=True):
            assert su.put("/schemaGroups/echo", {}, format="json").status_code == 201
    finally:
        server.shutdown()
        server.server_close()
    error = DeliveryAttempt.objects.get().error
    assert error.startswith("HTTP 400") and "X-Api-Key" in error
    for word in ("secret-api-key", "secret-cookie", "secret-basic", "aG9vazpzZWNyZXQtYmFzaWM="):
        assert word not in error, error
