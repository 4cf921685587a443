"""`/healthz` and `/readyz` in process: what a kubelet or a load balancer sees (operations/views.py).

The server-level cases (migrations not applied, the database going away) are in test_servers.py.
"""

import pytest

from tests.harness.services import free_port
from tests.helpers import PROBLEM_TYPE


def test_healthz_is_alive_without_touching_the_database(client):
    # no `db` fixture: any query would fail the test (pytest-django blocks database access)
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "alive"}
    assert response["Cache-Control"] == "no-store"
    assert len(response["X-Request-ID"]) >= 16


def test_probes_answer_a_pod_address_and_plain_http_the_site_refuses(client, settings, db):
    # a kubelet probes http://POD-IP:8000/healthz: a Host that DJANGO_ALLOWED_HOSTS refuses, over plain HTTP
    settings.ALLOWED_HOSTS = ["registry.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    for path in ("/healthz", "/readyz"):
        assert client.get(path, HTTP_HOST="10.1.2.3:8000").status_code == 200, path
    refused = client.get("/", HTTP_HOST="10.1.2.3:8000")  # the site itself still refuses it, as a problem document
    assert refused.status_code == 400 and refused["Content-Type"] == PROBLEM_TYPE
    assert "DJANGO_ALLOWED_HOSTS" in refused.json()["detail"]
    redirected = client.get("/schemaGroups", HTTP_HOST="registry.example.com")
    assert redirected.status_code == 301
    assert redirected["Location"] == "https://registry.example.com/schemaGroups"


def test_probes_answer_get_and_head_only(client, db):
    response = client.post("/readyz")
    assert response.status_code == 405
    assert response["Content-Type"] == PROBLEM_TYPE
    assert response["Allow"] == "GET, HEAD"
    assert client.head("/healthz").status_code == 200


def test_readyz_is_ready_with_database_and_migrations_and_no_broker(client, db):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "migrations": "ok", "broker": "not configured"},
    }


@pytest.mark.redis
def test_readyz_checks_a_configured_broker(client, db, settings, redis_url):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = redis_url
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.content
    assert ready.json()["checks"]["broker"] == "ok"

    port = free_port()  # nothing listens there
    settings.CELERY_BROKER_URL = f"redis://broker-user:broker-secret@localhost:{port}/0"
    down = client.get("/readyz")
    assert down.status_code == 503
    assert down["Content-Type"] == PROBLEM_TYPE
    body = down.json()
    assert body["type"].endswith(":service-unavailable")
    assert body["detail"].startswith("broker unreachable (") and "the server's log has the error" in body["detail"]
    assert body["checks"] == {"database": "ok", "migrations": "ok", "broker": "failed"}
    # anyone may probe: the answer names the component, not where it is or who signs in to it
    for secret in (str(port), "localhost", "127.0.0.1", "broker-user", "broker-secret", "redis"):
        assert secret not in down.content.decode(), secret


def test_request_id_from_the_proxy_is_kept_and_a_malformed_one_replaced(client, db):
    kept = client.get("/healthz", HTTP_X_REQUEST_ID="f00dfeed-1234")
    assert kept["X-Request-ID"] == "f00dfeed-1234"
    replaced = client.get("/schemaGroups", HTTP_X_REQUEST_ID="bad id\twith spaces")
    assert replaced.status_code == 200
    assert replaced["X-Request-ID"] != "bad id\twith spaces"
    assert replaced["X-Request-ID"].isalnum()
