"""Issue 38: a plain webhook receiver (one that knows nothing of the CloudEvents abuse-protection handshake) gets its
subscription answered 201 with `"status": "failed"`. The answer's `statusReason` says what the sink answered and the
answer it must give: 2xx to the OPTIONS request that carries `WebHook-Request-Origin`, with `WebHook-Allowed-Origin`
naming this registry (or `*`), then revalidate. The subscription is kept (failed), as before; the README shows the
receiver's reply (examples/webhook_receiver.py)."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

HOW = (
    "The CloudEvents webhook abuse-protection handshake: the receiver answers an OPTIONS request carrying "
    "'WebHook-Request-Origin: 127.0.0.1' with a 2xx status and the header 'WebHook-Allowed-Origin: 127.0.0.1' "
    "(or '*'); then POST /subscriptions/{id}/revalidate"
)


@pytest.mark.parametrize(
    ("answer", "what"),
    [
        ("refuse", "the sink's answer to the handshake's OPTIONS request (HTTP 200) has no WebHook-Allowed-Origin"),
        (405, "the sink answered the handshake's OPTIONS request with HTTP 405"),
        ("other", "the sink's WebHook-Allowed-Origin 'elsewhere.example' does not name this registry ('127.0.0.1')"),
    ],
)
def test_the_created_subscription_says_what_the_receiver_must_answer(su, private_sinks, sink, settings, answer, what):
    settings.REGISTRY_BASE_URL = "http://127.0.0.1:8000"
    sink.handshake = answer
    response = su.post("/subscriptions", {"protocol": "HTTP", "sink": sink.url}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "failed"
    assert body["statusReason"] == f"handshake refused: {what}. " + HOW.format(id=body["id"])
    options = [r for r in sink.requests if r["method"] == "OPTIONS"]
    assert [r["headers"]["webhook-request-origin"] for r in options] == ["127.0.0.1"]
    # the receiver that follows the reason is accepted
    sink.handshake = "allow"
    again = su.post(f"/subscriptions/{body['id']}/revalidate")
    assert again.status_code == 200 and again.json()["status"] == "active" and "statusReason" not in again.json()
