"""The DEK registry at /confluent/dek-registry/v1 (issue 41 item 3; docs/data-contracts.md), driven by confluent-kafka's
own DekRegistryClient against a live server where the client has the operation (register and read KEKs and DEKs),
by plain HTTP for the rest of Confluent's API (list, update, delete, undelete, which the Python client lacks), and by
the clients' own local KMS driver and Cryptor for the key material: KEKs shared and not, DEKs per subject, version and
algorithm, the registry's own DEKs of a shared KEK (which the clients' local KMS unwraps), Confluent's error codes for
every refusal (and nothing written), owners' roles, the audit trail, and key material nowhere but in the answers to
authorised callers."""

from __future__ import annotations

import base64
import json

import httpx
import pytest
from django.core.management import call_command

from confluent.dek_models import Dek, Kek
from registry.models import AuditRecord, OutboxEvent
from tests.registry.teams.conftest import people, teams  # noqa: F401 - the fixtures: teams and their people

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "a-local-kms-secret-for-the-tests"
AVRO = '{"type": "record", "name": "r", "fields": [{"name": "a", "type": "string"}]}'


@pytest.fixture(autouse=True)
def local_kms(settings):
    settings.REGISTRY_LOCAL_KMS_SECRET = SECRET


@pytest.fixture
def deks(base_url, writer):
    """confluent-kafka's DekRegistryClient, as the superuser `carol` (Basic credentials in the URL)."""
    from confluent_kafka.schema_registry.rules.encryption.dek_registry.dek_registry_client import DekRegistryClient

    client = DekRegistryClient({"url": base_url.replace("http://", "http://carol:pw@"), "max.retries": 0})
    yield client
    client._rest_client.session.close()


@pytest.fixture
def anonymous(base_url):
    with httpx.Client(base_url=base_url, timeout=30) as client:
        yield client


def client_aead(secret: str = SECRET):
    """The clients' local KMS (their driver's client), as a producer configured with `secret` has it."""
    from confluent_kafka.schema_registry.rules.encryption.localkms.local_client import LocalKmsClient
    from tink import aead, daead

    aead.register()  # as the clients' encryption executor does before it uses a KMS
    daead.register()
    return LocalKmsClient(secret).get_aead("local-kms://any")


def cryptor(algorithm: str):
    from confluent_kafka.schema_registry.rules.encryption.dek_registry.dek_registry_client import DekAlgorithm
    from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import Cryptor

    return Cryptor(DekAlgorithm(algorithm))


def client_wrapped_dek(algorithm: str = "AES256_GCM") -> str:
    """A DEK as a producer makes it for a KEK not shared: a key of the algorithm, wrapped by its own KMS."""
    raw = cryptor(algorithm).generate_key()
    return base64.b64encode(client_aead().encrypt(raw, b"")).decode()


def refused(response: httpx.Response, status: int, code: int) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error_code"] == code, body
    return body


def state():
    """What a refused write must leave as it was: the keys and the audit trail."""
    return (
        sorted(Kek.objects.values_list("name", "deleted", "shared", "doc", "ts")),
        sorted(Dek.objects.values_list("kek__name", "subject", "algorithm", "version", "deleted", "ts")),
        AuditRecord.objects.count(),
    )


def register_subject(http, subject: str):
    response = http.post(f"/subjects/{subject}/versions", json={"schema": AVRO})
    assert response.status_code == 200, response.text


# --- KEKs ---------------------------------------------------------------------------------------------------------


def test_kek_lifecycle(deks, http):
    """Create and read through the client; list, update, soft delete, undelete and permanent delete over HTTP."""
    register_subject(http, "orders")  # the default context's schema group, which owns the KEK
    kek = deks.register_kek("orders_kek", "local-kms", "key-1", kms_props={"region": "eu"}, doc="the orders' key")
    assert (kek.name, kek.kms_type, kek.kms_key_id, kek.shared, kek.deleted) == (
        "orders_kek",
        "local-kms",
        "key-1",
        False,
        False,
    )
    assert kek.kms_props.properties == {"region": "eu"} and kek.doc == "the orders' key" and kek.ts > 0
    deks._kek_cache.clear()
    assert deks.get_kek("orders_kek") == kek
    assert http.get("/dek-registry/v1/keks").json() == ["orders_kek"]

    # update: kmsProps, doc, shared (members not sent are kept)
    body = http.put("/dek-registry/v1/keks/orders_kek", json={"doc": "rotated yearly", "shared": True}).json()
    assert (body["doc"], body["shared"], body["kmsProps"]) == ("rotated yearly", True, {"region": "eu"})
    body = http.put("/dek-registry/v1/keks/orders_kek", json={"kmsProps": {}}).json()
    assert (body["doc"], body["shared"], body["kmsProps"]) == ("rotated yearly", True, {})

    # permanent delete only after a soft delete
    refused(http.delete("/dek-registry/v1/keks/orders_kek", params={"permanent": "true"}), 404, 40471)
    assert http.delete("/dek-registry/v1/keks/orders_kek").status_code == 204
    refused(http.get("/dek-registry/v1/keks/orders_kek"), 404, 40470)
    assert http.get("/dek-registry/v1/keks/orders_kek", params={"deleted": "true"}).json()["deleted"] is True
    assert http.get("/dek-registry/v1/keks").json() == []
    assert http.get("/dek-registry/v1/keks", params={"deleted": "true"}).json() == ["orders_kek"]
    refused(http.put("/dek-registry/v1/keks/orders_kek", json={"doc": "x"}), 404, 40470)
    assert http.post("/dek-registry/v1/keks/orders_kek/undelete").status_code == 204
    assert http.get("/dek-registry/v1/keks/orders_kek").json()["deleted"] is False
    assert http.delete("/dek-registry/v1/keks/orders_kek").status_code == 204
    assert http.delete("/dek-registry/v1/keks/orders_kek", params={"permanent": "true"}).status_code == 204
    refused(http.get("/dek-registry/v1/keks/orders_kek", params={"deleted": "true"}), 404, 40470)
    assert not Kek.objects.exists()

    rows = AuditRecord.objects.filter(path="/confluent/dek-registry/keks/orders_kek").order_by("id")
    assert [r.operation for r in rows] == ["create", "update", "update", "update", "update", "update", "delete"]
    assert {(r.actor, r.door) for r in rows} == {("carol", "confluent")}


def test_kek_list_filters_and_pages(deks, http):
    register_subject(http, "orders")
    register_subject(http, "payments")
    for name in ("k_a", "k_b", "k_c"):
        deks.register_kek(name, "local-kms", name)
    deks.register_dek("k_a", "orders", client_wrapped_dek())
    deks.register_dek("k_b", "payments", client_wrapped_dek())
    assert http.get("/dek-registry/v1/keks").json() == ["k_a", "k_b", "k_c"]
    assert http.get("/dek-registry/v1/keks", params={"subjectPrefix": "ord"}).json() == ["k_a"]
    both = http.get("/dek-registry/v1/keks", params=[("subjectPrefix", "ord"), ("subjectPrefix", "pay")])
    assert both.json() == ["k_a", "k_b"]
    assert http.get("/dek-registry/v1/keks", params={"offset": 1, "limit": 1}).json() == ["k_b"]


def test_kek_names_are_confluent_s(http):
    register_subject(http, "orders")
    before = state()
    for name in ("1abc", "a b", "a/b", "a" * 257, ""):
        body = refused(
            http.post("/dek-registry/v1/keks", json={"name": name, "kmsType": "local-kms", "kmsKeyId": "k"}), 422, 42271
        )
        assert "'name'" in body["message"]
    refused(http.post("/dek-registry/v1/keks", json={"name": "k", "kmsType": "local-kms"}), 422, 42271)
    refused(http.post("/dek-registry/v1/keks", json={"name": "k", "kmsKeyId": "x"}), 422, 42271)
    refused(
        http.post(
            "/dek-registry/v1/keks", json={"name": "k", "kmsType": "local-kms", "kmsKeyId": "x", "kmsProps": {"a": 1}}
        ),
        422,
        42271,
    )
    assert state() == before
    ok = http.post("/dek-registry/v1/keks", json={"name": "_k-1", "kmsType": "AWS", "kmsKeyId": "arn:aws:kms:x"})
    assert ok.status_code == 200 and ok.json()["kmsType"] == "aws-kms"  # normalized as Confluent does


def test_a_kek_twice_is_40971_and_writes_nothing(deks, http):
    register_subject(http, "orders")
    deks.register_kek("k1", "local-kms", "key-1")
    before = state()
    body = {"name": "k1", "kmsType": "local-kms", "kmsKeyId": "key-1"}
    refused(http.post("/dek-registry/v1/keks", json=body), 409, 40971)
    refused(http.post("/dek-registry/v1/keks", json={**body, "kmsKeyId": "key-2"}), 409, 40971)
    assert state() == before
    # a soft-deleted KEK created again with the same attributes is undeleted (as Confluent does); not with others
    assert http.delete("/dek-registry/v1/keks/k1").status_code == 204
    refused(http.post("/dek-registry/v1/keks", json={**body, "kmsKeyId": "key-2"}), 409, 40971)
    assert http.post("/dek-registry/v1/keks", json=body).json()["deleted"] is False


def test_kmsprops_credentials_are_kept_never_answered(http):
    register_subject(http, "orders")
    props = {"token.id": "vault-token-5f2", "secret": "s-77", "namespace": "ns"}
    body = {"name": "vault_kek", "kmsType": "hcvault", "kmsKeyId": "https://vault/transit/keys/k", "kmsProps": props}
    created = http.post("/dek-registry/v1/keks", json=body).json()
    assert created["kmsProps"] == {"namespace": "ns"}
    assert http.get("/dek-registry/v1/keks/vault_kek").json()["kmsProps"] == {"namespace": "ns"}
    # an update sending back what it read keeps the credentials
    http.put("/dek-registry/v1/keks/vault_kek", json={"kmsProps": {"namespace": "ns2"}})
    assert Kek.objects.get().kms_props == {"namespace": "ns2", "secret": "s-77", "token.id": "vault-token-5f2"}
    assert "vault-token-5f2" not in json.dumps(list(AuditRecord.objects.values()), default=str)


def test_the_audit_trail_says_what_a_key_s_change_changed_never_its_secrets(http, deks):
    """Issue 37 item 9: each key's audit row says what changed; KMS properties named, their values never shown; a
    DEK's key material only as set."""
    register_subject(http, "orders")
    props = {"token.id": "vault-token-9a3", "namespace": "ns-4c1"}
    body = {"name": "vault_kek", "kmsType": "hcvault", "kmsKeyId": "https://vault/transit/keys/k", "kmsProps": props}
    assert http.post("/dek-registry/v1/keks", json=body).status_code == 200
    http.put("/dek-registry/v1/keks/vault_kek", json={"kmsProps": {"namespace": "ns-8e0"}, "doc": "rotated"})
    deks.register_kek("k1", "local-kms", "key-1")
    wrapped = client_wrapped_dek()
    deks.register_dek("k1", "orders", wrapped)
    rows = {(r.path, r.operation): r.changes for r in AuditRecord.objects.filter(path__startswith="/confluent/")}
    kek = "/confluent/dek-registry/keks/vault_kek"
    assert rows[(kek, "create")]["kmsProps"] == {"after": {"namespace": "***", "token.id": "***"}}
    assert rows[(kek, "update")] == {
        "doc": {"after": "rotated"},
        "kmsProps": {
            "before": {"namespace": "***", "token.id": "***"},
            "after": {"namespace": "***", "token.id": "***"},
        },
    }
    dek = "/confluent/dek-registry/keks/k1/deks/orders/versions/1/AES256_GCM"
    assert rows[(dek, "create")] == {"deleted": {"after": False}, "encryptedKeyMaterial": {"after": "***"}}
    trail = json.dumps(list(AuditRecord.objects.values()), default=str)
    assert not any(secret in trail for secret in ("vault-token-9a3", "ns-4c1", "ns-8e0", wrapped))


def test_a_shared_kek_needs_a_kms_the_registry_reaches(http, settings):
    register_subject(http, "orders")
    before = state()
    body = {"name": "k", "kmsType": "aws-kms", "kmsKeyId": "arn:aws:kms:eu:1:key/x", "shared": True}
    assert "only the local KMS" in refused(http.post("/dek-registry/v1/keks", json=body), 422, 42271)["message"]
    settings.REGISTRY_LOCAL_KMS_SECRET = ""
    body = {"name": "k", "kmsType": "local-kms", "kmsKeyId": "x", "shared": True}
    assert "REGISTRY_LOCAL_KMS_SECRET" in refused(http.post("/dek-registry/v1/keks", json=body), 422, 42271)["message"]
    assert state() == before


# --- DEKs ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["AES128_GCM", "AES256_GCM", "AES256_SIV"])
def test_a_client_s_dek_is_kept_as_given(deks, http, algorithm):
    """A KEK not shared: the producer wraps its DEK itself; the registry keeps the material as given and answers
    it to the consumer, who unwraps it with its own KMS."""
    from confluent_kafka.schema_registry.rules.encryption.dek_registry.dek_registry_client import DekAlgorithm

    register_subject(http, "orders")
    deks.register_kek("k1", "local-kms", "key-1")
    wrapped = client_wrapped_dek(algorithm)
    dek = deks.register_dek("k1", "orders", wrapped, DekAlgorithm(algorithm))
    assert (dek.kek_name, dek.subject, dek.version, dek.algorithm.value) == ("k1", "orders", 1, algorithm)
    assert dek.encrypted_key_material == wrapped and dek.key_material is None
    deks._dek_cache.clear()
    read = deks.get_dek("k1", "orders", DekAlgorithm(algorithm))
    assert read.encrypted_key_material == wrapped and read.key_material is None
    raw = client_aead().decrypt(base64.b64decode(read.encrypted_key_material), b"")
    ciphertext = cryptor(algorithm).encrypt(raw, b"card 4111", b"")
    assert cryptor(algorithm).decrypt(raw, ciphertext, b"") == b"card 4111"
    assert Dek.objects.get().encrypted_key_material == wrapped


def test_dek_versions_subjects_and_latest(deks, http):
    from confluent_kafka.schema_registry.rules.encryption.dek_registry.dek_registry_client import DekAlgorithm

    register_subject(http, "orders")
    register_subject(http, "payments")
    deks.register_kek("k1", "local-kms", "key-1")
    v1 = deks.register_dek("k1", "orders", client_wrapped_dek(), version=1)
    v2 = deks.register_dek("k1", "orders", client_wrapped_dek(), version=2)  # a rotation
    deks.register_dek("k1", "orders", client_wrapped_dek("AES256_SIV"), DekAlgorithm.AES256_SIV)
    deks.register_dek("k1", "payments", client_wrapped_dek())
    assert http.get("/dek-registry/v1/keks/k1/deks").json() == ["orders", "payments"]
    assert http.get("/dek-registry/v1/keks/k1/deks", params={"limit": 1}).json() == ["orders"]
    assert http.get("/dek-registry/v1/keks/k1/deks/orders/versions").json() == [1, 2]
    siv = http.get("/dek-registry/v1/keks/k1/deks/orders/versions", params={"algorithm": "AES256_SIV"})
    assert siv.json() == [1]
    deks._dek_cache.clear()
    assert deks.get_dek("k1", "orders", version=-1).encrypted_key_material == v2.encrypted_key_material
    latest = http.get("/dek-registry/v1/keks/k1/deks/orders/versions/latest").json()
    assert latest["version"] == 2
    assert http.get("/dek-registry/v1/keks/k1/deks/orders").json()["version"] == 1  # Confluent: this route is v1
    assert http.get("/dek-registry/v1/keks/k1/deks/orders").json()["encryptedKeyMaterial"] == v1.encrypted_key_material
    refused(http.get("/dek-registry/v1/keks/k1/deks/orders/versions/0"), 422, 42202)
    refused(http.get("/dek-registry/v1/keks/k1/deks/orders/versions/3"), 404, 40470)
    refused(http.get("/dek-registry/v1/keks/k1/deks/orders", params={"algorithm": "DES"}), 422, 42271)
    rows = AuditRecord.objects.filter(path__startswith="/confluent/dek-registry/keks/k1/deks/").order_by("id")
    assert [r.path.split("/deks/")[1] for r in rows] == [
        "orders/versions/1/AES256_GCM",
        "orders/versions/2/AES256_GCM",
        "orders/versions/1/AES256_SIV",
        "payments/versions/1/AES256_GCM",
    ]
    assert {r.operation for r in rows} == {"create"}


@pytest.mark.parametrize("algorithm", ["AES128_GCM", "AES256_GCM", "AES256_SIV"])
def test_a_shared_kek_s_dek_is_made_by_the_registry(deks, http, anonymous, algorithm):
    """A shared KEK: the registry makes the DEK, wraps it with the local KMS (which the clients' local driver
    unwraps with the same secret) and answers the plain key to its authorised caller, never to an anonymous one."""
    from confluent_kafka.schema_registry.rules.encryption.dek_registry.dek_registry_client import DekAlgorithm

    register_subject(http, "orders")
    deks.register_kek("shared_kek", "local-kms", "key-1", shared=True)
    dek = deks.register_dek("shared_kek", "orders", None, DekAlgorithm(algorithm))
    assert dek.encrypted_key_material and dek.key_material
    raw = dek.get_key_material_bytes()
    assert client_aead().decrypt(dek.get_encrypted_key_material_bytes(), b"") == raw
    ciphertext = cryptor(algorithm).encrypt(raw, b"card 4111", b"")
    assert cryptor(algorithm).decrypt(raw, ciphertext, b"") == b"card 4111"
    deks._dek_cache.clear()
    assert deks.get_dek("shared_kek", "orders", DekAlgorithm(algorithm)).key_material == dek.key_material
    seen = anonymous.get(f"/dek-registry/v1/keks/shared_kek/deks/orders/versions/1?algorithm={algorithm}").json()
    assert seen["encryptedKeyMaterial"] == dek.encrypted_key_material and "keyMaterial" not in seen
    # the plain key is never stored, and nowhere in the audit trail
    assert Dek.objects.get().encrypted_key_material == dek.encrypted_key_material
    assert_no_material([dek.key_material, dek.encrypted_key_material])


def test_a_shared_kek_takes_client_material_its_kms_unwraps(deks, http):
    register_subject(http, "orders")
    deks.register_kek("shared_kek", "local-kms", "key-1", shared=True)
    before = state()
    other = base64.b64encode(client_aead("another secret").encrypt(cryptor("AES256_GCM").generate_key(), b"")).decode()
    body = {"subject": "orders", "encryptedKeyMaterial": other}
    refused(http.post("/dek-registry/v1/keks/shared_kek/deks/orders", json=body), 422, 42271)
    refused(http.post("/dek-registry/v1/keks/shared_kek/deks/orders", json={"encryptedKeyMaterial": "%%%"}), 422, 42271)
    assert state() == before
    mine = client_wrapped_dek()
    response = http.post("/dek-registry/v1/keks/shared_kek/deks/orders", json={"encryptedKeyMaterial": mine})
    assert response.headers["Cache-Control"] == "no-store"  # it carries a plain key
    answer = response.json()
    assert answer["encryptedKeyMaterial"] == mine
    assert base64.b64decode(answer["keyMaterial"]) == client_aead().decrypt(base64.b64decode(mine), b"")


def test_dek_deletes_and_undeletes(deks, http):
    register_subject(http, "orders")
    deks.register_kek("k1", "local-kms", "key-1")
    for version in (1, 2):
        deks.register_dek("k1", "orders", client_wrapped_dek(), version=version)
    base = "/dek-registry/v1/keks/k1/deks/orders"
    refused(http.delete(f"{base}/versions/2", params={"permanent": "true"}), 404, 40471)
    assert http.delete(f"{base}/versions/2").status_code == 204
    refused(http.get(f"{base}/versions/2"), 404, 40470)
    assert http.get(f"{base}/versions/2", params={"deleted": "true"}).json()["deleted"] is True
    assert http.get(f"{base}/versions").json() == [1]
    assert http.get(f"{base}/versions", params={"deleted": "true"}).json() == [1, 2]
    assert http.post(f"{base}/versions/2/undelete").status_code == 204
    assert http.get(f"{base}/versions").json() == [1, 2]

    # the KEK: not deleted while DEKs use it (42272); a DEK not undeleted while its KEK is soft-deleted (40472)
    refused(http.delete("/dek-registry/v1/keks/k1"), 422, 42272)
    assert http.delete(base).status_code == 204  # every version
    assert http.get(f"{base}/versions").json() == []
    assert http.delete("/dek-registry/v1/keks/k1").status_code == 204
    refused(http.delete("/dek-registry/v1/keks/k1", params={"permanent": "true"}), 422, 42272)
    refused(http.post(f"{base}/undelete"), 404, 40472)
    refused(http.post(f"{base}/versions/1/undelete"), 404, 40472)
    assert http.post("/dek-registry/v1/keks/k1/undelete").status_code == 204
    assert http.post(f"{base}/undelete").status_code == 204
    assert http.get(f"{base}/versions").json() == [1, 2]
    assert http.delete(base).status_code == 204
    assert http.delete(base, params={"permanent": "true"}).status_code == 204
    assert not Dek.objects.exists()
    assert http.delete("/dek-registry/v1/keks/k1").status_code == 204
    assert http.delete("/dek-registry/v1/keks/k1", params={"permanent": "true"}).status_code == 204
    ops = list(
        AuditRecord.objects.filter(
            path="/confluent/dek-registry/keks/k1/deks/orders/versions/2/AES256_GCM"
        ).values_list("operation", flat=True)
    )
    assert ops == ["create", "update", "update", "update", "update", "update", "delete"]


def test_dek_refusals_write_nothing(deks, http):
    register_subject(http, "orders")
    deks.register_kek("k1", "local-kms", "key-1")
    deks.register_dek("k1", "orders", client_wrapped_dek())
    before = state()
    material = client_wrapped_dek()
    cases = [
        ("/dek-registry/v1/keks/nokek/deks/orders", {"encryptedKeyMaterial": material}, 404, 40470),
        ("/dek-registry/v1/keks/k1/deks/orders", {"encryptedKeyMaterial": material}, 409, 40971),  # version 1 exists
        ("/dek-registry/v1/keks/k1/deks/orders", {"version": 2}, 422, 42271),  # not shared: the client wraps
        ("/dek-registry/v1/keks/k1/deks/orders", {"version": 0, "encryptedKeyMaterial": material}, 422, 42271),
        (
            "/dek-registry/v1/keks/k1/deks/orders",
            {"version": 2, "algorithm": "DES", "encryptedKeyMaterial": material},
            422,
            42271,
        ),
        ("/dek-registry/v1/keks/k1/deks/orders", {"version": 2, "encryptedKeyMaterial": "not base64!"}, 422, 42271),
        ("/dek-registry/v1/keks/k1/deks/:.other:orders", {"encryptedKeyMaterial": material}, 422, 42271),
    ]
    for path, body, status, code in cases:
        refused(http.post(path, json=body), status, code)
    refused(http.delete("/dek-registry/v1/keks/nokek"), 404, 40470)
    refused(http.delete("/dek-registry/v1/keks/k1/deks/nosubject"), 404, 40470)
    refused(http.post("/dek-registry/v1/keks/k1/deks/nosubject/undelete"), 404, 40470)
    refused(http.get("/dek-registry/v1/keks/nokek/deks"), 404, 40470)
    assert state() == before


# --- contexts, owners and roles -----------------------------------------------------------------------------------


def test_a_kek_serves_its_context(deks, http):
    """`?context=.ctx` (as the clients send it for a subject `:.ctx:S`) gives the KEK to that context's group."""
    register_subject(http, ":.team:orders")
    kek = deks.register_kek("team_kek", "local-kms", "key-1", context=".team")
    assert kek.name == "team_kek" and Kek.objects.get().group.gid == "team"
    deks._kek_cache.clear()
    assert deks.get_kek("team_kek", context=".team").name == "team_kek"
    refused(http.get("/dek-registry/v1/keks/team_kek", params={"context": ".other"}), 404, 40470)
    assert deks.register_dek("team_kek", ":.team:orders", client_wrapped_dek()).subject == ":.team:orders"
    body = refused(
        http.post("/dek-registry/v1/keks/team_kek/deks/orders", json={"encryptedKeyMaterial": client_wrapped_dek()}),
        422,
        42271,
    )
    assert "serves the subjects of the schema group 'team'" in body["message"]


def test_a_kek_of_a_context_without_a_group_is_the_admins(people, live_server):  # noqa: F811
    """No schema group, no owners to ask: registry admins alone create the KEK (and manage it after its group is
    deleted)."""
    editor = httpx.Client(
        base_url=f"{live_server.url}/confluent", headers={"Authorization": f"Token {token(people, 'outsider')}"}
    )
    admin = httpx.Client(
        base_url=f"{live_server.url}/confluent", headers={"Authorization": f"Token {token(people, 'admin')}"}
    )
    body = {"name": "k", "kmsType": "local-kms", "kmsKeyId": "x"}
    before = state()
    refused(editor.post("/dek-registry/v1/keks", params={"context": ".nogroup"}, json=body), 403, 40301)
    assert state() == before
    assert admin.post("/dek-registry/v1/keks", params={"context": ".nogroup"}, json=body).status_code == 200
    assert Kek.objects.get().group is None and Kek.objects.get().context == "nogroup"

    # a group's KEK outlives the group (its DEKs protect data already written), and is then the admins'
    assert editor.post("/subjects/:.gone:s/versions", json={"schema": AVRO}).status_code == 200
    assert (
        editor.post("/dek-registry/v1/keks", params={"context": ".gone"}, json={**body, "name": "g"}).status_code == 200
    )
    assert editor.put("/dek-registry/v1/keks/g", json={"doc": "mine"}).status_code == 200
    with httpx.Client(base_url=live_server.url, headers=editor.headers) as core:
        assert core.delete("/schemaGroups/gone").status_code == 200
    assert Kek.objects.get(name="g").group is None
    before = state()
    refused(editor.put("/dek-registry/v1/keks/g", json={"doc": "still mine?"}), 403, 40301)
    assert state() == before
    assert admin.put("/dek-registry/v1/keks/g", json={"doc": "the admins'"}).status_code == 200


def token(clients, name: str) -> str:
    return clients[name]._credentials["HTTP_AUTHORIZATION"].split()[1]


def test_owners_roles_apply(teams, live_server):  # noqa: F811
    """In the group A with owners: the owner makes the KEK, an editor its DEKs, a reader reads the plain key of a
    shared KEK's DEK; a user without a role in A (with every model permission) can do none of it; nothing refused
    is written."""
    base = f"{live_server.url}/confluent"
    client = {
        name: httpx.Client(base_url=base, headers={"Authorization": f"Token {token(teams, name)}"}, timeout=30)
        for name in ("owner_a", "editor_a", "reader_a", "outsider", "owner_b")
    }
    assert client["editor_a"].post("/subjects/:.A:orders/versions", json={"schema": AVRO}).status_code == 200
    kek = {"name": "a_kek", "kmsType": "local-kms", "kmsKeyId": "key-a", "shared": True}
    before = state()
    for who in ("editor_a", "reader_a", "outsider", "owner_b"):
        body = refused(client[who].post("/dek-registry/v1/keks", params={"context": ".A"}, json=kek), 403, 40301)
        assert "the role owner" in body["message"]
    assert state() == before
    assert client["owner_a"].post("/dek-registry/v1/keks", params={"context": ".A"}, json=kek).status_code == 200

    before = state()
    for who in ("reader_a", "outsider", "owner_b"):
        refused(client[who].post("/dek-registry/v1/keks/a_kek/deks/:.A:orders", json={}), 403, 40301)
        refused(client[who].put("/dek-registry/v1/keks/a_kek", json={"doc": "mine"}), 403, 40301)
        refused(client[who].delete("/dek-registry/v1/keks/a_kek"), 403, 40301)
    refused(client["editor_a"].put("/dek-registry/v1/keks/a_kek", json={"doc": "mine"}), 403, 40301)
    assert state() == before
    made = client["editor_a"].post("/dek-registry/v1/keks/a_kek/deks/:.A:orders", json={})
    assert made.status_code == 200 and made.json()["keyMaterial"]
    path = "/dek-registry/v1/keks/a_kek/deks/:.A:orders/versions/1"
    assert client["reader_a"].get(path).json()["keyMaterial"] == made.json()["keyMaterial"]
    for who in ("outsider", "owner_b"):  # public reads: they see the DEK, not its plain key
        seen = client[who].get(path).json()
        assert seen["encryptedKeyMaterial"] and "keyMaterial" not in seen
    before = state()
    refused(client["reader_a"].delete("/dek-registry/v1/keks/a_kek/deks/:.A:orders"), 403, 40301)
    assert state() == before
    assert client["editor_a"].delete("/dek-registry/v1/keks/a_kek/deks/:.A:orders").status_code == 204
    assert [
        r.actor for r in AuditRecord.objects.filter(path__startswith="/confluent/dek-registry/").order_by("id")
    ] == ["owner_a", "editor_a", "editor_a"]


# --- key material nowhere else ------------------------------------------------------------------------------------


def assert_no_material(materials: list[str]):
    rows = json.dumps(list(AuditRecord.objects.values()), default=str)
    events = json.dumps(list(OutboxEvent.objects.values()), default=str)
    for material in materials:
        assert material not in rows and material not in events


def test_key_material_stays_out_of_audit_events_exports_and_the_admin(deks, http, core, tmp_path, admin_client):
    register_subject(http, "orders")
    events = OutboxEvent.objects.count()
    deks.register_kek("shared_kek", "local-kms", "key-1", shared=True)
    dek = deks.register_dek("shared_kek", "orders", None)
    deks.register_kek("k1", "local-kms", "key-1")
    wrapped = client_wrapped_dek()
    deks.register_dek("k1", "orders", wrapped)
    materials = [dek.key_material, dek.encrypted_key_material, wrapped]
    assert OutboxEvent.objects.count() == events  # keys are no registry entities: no change event
    assert_no_material(materials)
    exported = core.get("/registry/export").text + core.get("/", params={"inline": ""}).text
    out = tmp_path / "export.json"
    call_command("export_registry", "--output", str(out))
    exported += out.read_text()
    for material in materials:
        assert material not in exported
    for page in (
        "/admin/confluent/kek/",
        "/admin/confluent/dek/",
        f"/admin/confluent/dek/{Dek.objects.first().pk}/change/",
    ):
        response = admin_client.get(page)
        assert response.status_code == 200, page
        text = response.content.decode()
        assert "shared_kek" in text or "orders" in text
        for material in materials:
            assert material not in text


# --- the clients' ENCRYPT rule against this registry --------------------------------------------------------------

PAYMENT = {
    "type": "record",
    "name": "Payment",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "card", "type": "string", "confluent:tags": ["PII"]},
    ],
}


def encrypted_round_trip(registry, rule_conf: dict, subject: str = "payments-value") -> tuple[bytes, dict]:
    """AvroSerializer and AvroDeserializer with an ENCRYPT rule on the PII field (the clients' field encryption
    executor and local KMS driver, their DEK registry client pointed at this server)."""
    from confluent_kafka.schema_registry import Schema
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import FieldEncryptionExecutor
    from confluent_kafka.schema_registry.rules.encryption.localkms.local_driver import LocalKmsDriver
    from confluent_kafka.schema_registry.schema_registry_client import Rule, RuleKind, RuleMode, RuleParams, RuleSet
    from confluent_kafka.serialization import MessageField, SerializationContext

    FieldEncryptionExecutor.register()
    LocalKmsDriver.register()
    params = {"encrypt.kek.name": "payments_kek", "encrypt.kms.type": "local-kms", "encrypt.kms.key.id": "pay-key"}
    rule = Rule(
        "encrypt-pii", "", RuleKind.TRANSFORM, RuleMode.WRITEREAD, "ENCRYPT", ["PII"], RuleParams(params),
        None, None, "ERROR,NONE", False,
    )  # fmt: skip
    registry.register_schema(subject, Schema(json.dumps(PAYMENT), "AVRO", [], None, RuleSet(None, [rule])))
    context = SerializationContext(subject.removesuffix("-value"), MessageField.VALUE)  # the topic-name strategy
    conf = {"auto.register.schemas": False, "use.latest.version": True}
    serializer = AvroSerializer(registry, schema_str=None, conf=conf, rule_conf=rule_conf)
    raw = serializer({"id": "p1", "card": "4111 1111 1111 1111"}, context)
    assert b"4111" not in raw  # encrypted on the client
    return raw, AvroDeserializer(registry, rule_conf=rule_conf)(raw, context)


@pytest.mark.parametrize("subject", ["payments-value", ":.team:payments-value"])
def test_the_clients_encrypt_rule_with_a_kek_they_make(registry, deks, subject):
    """The producer's executor makes the KEK (not shared) and the DEK with its local KMS; the registry keeps them;
    the consumer's executor reads them and decrypts. A subject of a context: the executor names the context
    (`?context=.team`), and the KEK is the context's group's."""
    _raw, back = encrypted_round_trip(registry, {"secret": SECRET}, subject)
    assert back == {"id": "p1", "card": "4111 1111 1111 1111"}
    kek = Kek.objects.get()
    group = "team" if subject.startswith(":.team:") else "confluent"
    assert (kek.name, kek.kms_type, kek.kms_key_id, kek.shared, kek.context, kek.group.gid) == (
        "payments_kek",
        "local-kms",
        "pay-key",
        False,
        group,
        group,
    )
    dek = Dek.objects.get()
    assert (dek.subject, dek.version, dek.algorithm) == (subject, 1, "AES256_GCM")
    assert client_aead().decrypt(base64.b64decode(dek.encrypted_key_material), b"")  # the client's KMS wrapped it


def test_the_clients_encrypt_rule_with_a_shared_kek_needs_no_kms_on_the_clients(registry, deks, http):
    """A shared KEK: the registry makes the DEK and gives its plain key to the (authorised) producer and consumer,
    which hold no KMS secret at all."""
    register_subject(http, "orders")  # the default context's group, which the KEK belongs to
    deks.register_kek("payments_kek", "local-kms", "pay-key", shared=True)
    _raw, back = encrypted_round_trip(registry, {})
    assert back == {"id": "p1", "card": "4111 1111 1111 1111"}
    dek = Dek.objects.get()
    assert client_aead().decrypt(base64.b64decode(dek.encrypted_key_material), b"")  # the local KMS wrapped it


def test_with_public_reads_off_a_group_s_keys_are_its_readers(teams, live_server, settings):  # noqa: F811
    """Public reads off: a KEK of a group the caller may not read is not found and not listed; an anonymous caller
    reads nothing."""
    base = f"{live_server.url}/confluent"
    client = {
        name: httpx.Client(base_url=base, headers={"Authorization": f"Token {token(teams, name)}"}, timeout=30)
        for name in ("owner_a", "reader_a", "owner_b")
    }
    assert client["owner_a"].post("/subjects/:.A:orders/versions", json={"schema": AVRO}).status_code == 200
    kek = {"name": "a_kek", "kmsType": "local-kms", "kmsKeyId": "key-a", "shared": True}
    assert client["owner_a"].post("/dek-registry/v1/keks", params={"context": ".A"}, json=kek).status_code == 200
    assert client["owner_a"].post("/dek-registry/v1/keks/a_kek/deks/:.A:orders", json={}).status_code == 200
    settings.REGISTRY_PUBLIC_READ = False
    assert client["reader_a"].get("/dek-registry/v1/keks").json() == ["a_kek"]
    assert client["reader_a"].get("/dek-registry/v1/keks/a_kek/deks/:.A:orders/versions/1").json()["keyMaterial"]
    assert client["owner_b"].get("/dek-registry/v1/keks").json() == []
    refused(client["owner_b"].get("/dek-registry/v1/keks/a_kek"), 404, 40470)
    refused(client["owner_b"].get("/dek-registry/v1/keks/a_kek/deks"), 404, 40470)
    with httpx.Client(base_url=base, timeout=30) as anonymous:
        refused(anonymous.get("/dek-registry/v1/keks"), 401, 40101)
        refused(anonymous.get("/dek-registry/v1/keks/a_kek/deks/:.A:orders/versions/1"), 401, 40101)
