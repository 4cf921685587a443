"""Issue 24 item 3 (its URL part): a sync source's `base_url` follows the subscription sink rule. With private
addresses refused, a source on loopback is refused when saved (admin) and when run (scheduled or "Sync now"),
and the remote is never contacted: a listener on the address counts the connections."""

import socket
import threading

import pytest

from registry.models import Group
from sync.models import SyncRun, SyncSource
from sync.services import run_sync, subscribe
from tests.helpers import snapshot

pytestmark = pytest.mark.django_db


@pytest.fixture
def listener():
    """A TCP listener on loopback that counts the connections it accepts."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted = []

    def accept():
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(connection)
            connection.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    server.close()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "192.0.0.8"])
def test_a_run_from_a_private_base_url_is_refused_and_dials_nothing(settings, listener, host, superuser):
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = False
    port, accepted = listener
    # stored as an older release (or a direct database write) could have stored it: the run checks again
    source = SyncSource.objects.create(name="private", base_url=f"http://{host}:{port}", owner=superuser)
    before = snapshot()
    run = run_sync(source, trigger="admin")
    assert run.status == SyncRun.Status.FAILED
    assert "refused" in run.error and "not a globally routable address" in run.error
    assert accepted == [] and snapshot() == before and not Group.objects.exists()
    with pytest.raises(ValueError, match="refused"):
        subscribe(source, "https://registry.example.com/sync/hooks/1/secret")
    assert accepted == []


@pytest.mark.parametrize(
    ("base_url", "reason"),
    [
        ("http://127.0.0.1:8000", "not a globally routable address"),
        ("http://10.0.0.1", "not a globally routable address"),
        ("http://192.0.0.8", "IPv4 dummy address"),
        ("http://8.8.8.8@127.0.0.1", "not a globally routable"),
        ("http://registry.invalid", "does not resolve"),
        ("http://8.8.8.8/#@127.0.0.1", "fragment"),
    ],
)
def test_the_admin_refuses_a_private_base_url(settings, client, superuser, base_url, reason):
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = False
    client.force_login(superuser)
    response = client.post(
        "/admin/sync/syncsource/add/",
        {
            "name": "remote",
            "base_url": base_url,
            "token": "",
            "scope": "registry",
            "path": "",
            "interval_seconds": 300,
            "enabled": "on",
            "runs-TOTAL_FORMS": 0,
            "runs-INITIAL_FORMS": 0,
            "runs-MIN_NUM_FORMS": 0,
            "runs-MAX_NUM_FORMS": 0,
        },
    )
    assert response.status_code == 200  # the form again, with the error
    assert reason in response.content.decode()
    assert not SyncSource.objects.exists()


def test_private_base_urls_are_allowed_when_the_deployment_says_so(settings, listener, superuser):
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    port, accepted = listener
    source = SyncSource.objects.create(name="local", base_url=f"http://127.0.0.1:{port}", owner=superuser)
    run = run_sync(source)
    assert run.status == SyncRun.Status.FAILED and "refused" not in run.error  # the listener speaks no HTTP
    assert len(accepted) >= 1
