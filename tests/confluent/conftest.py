"""Fixtures of the Confluent API tests: a live server (pytest-django's, over the suite's database: SQLite, or
PostgreSQL with REGISTRY_TEST_DB=postgres) and confluent-kafka's own SchemaRegistryClient pointed at it."""

import pytest

from tests.harness.services import ServiceUnavailable, require_services, start_kafka

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fresh_kms_clients():
    """Each test starts as a new client process: Tink keeps the KMS clients the encryption executor registers in
    one process-wide list and reuses the first that takes a `local-kms://` URI, so a client keyed by an earlier
    test's secret (tests/confluent/test_data_contracts_doc.py runs the guide's producer with its own) would wrap
    this test's DEKs."""
    from tink import _kms_clients

    _kms_clients.reset_kms_clients()  # Tink's own reset (its tests use it); not re-exported at the package's top
    yield
    _kms_clients.reset_kms_clients()


@pytest.fixture
def writer(db, django_user_model):
    """A superuser `carol` with password `pw` (HTTP Basic, as the clients send it)."""
    return django_user_model.objects.create_superuser("carol", "carol@example.com", "pw")


@pytest.fixture
def base_url(live_server):
    return f"{live_server.url}/confluent"


@pytest.fixture
def registry(base_url, writer):
    """confluent-kafka's client with Basic credentials in the URL (`http://user:pass@host`)."""
    from confluent_kafka.schema_registry import SchemaRegistryClient

    client = SchemaRegistryClient({"url": base_url.replace("http://", "http://carol:pw@"), "max.retries": 0})
    yield client
    client.close()


@pytest.fixture
def http(base_url, writer):
    """A plain HTTP client for what the Confluent client does not expose (raw bodies, bad paths)."""
    import httpx

    with httpx.Client(base_url=base_url, auth=("carol", "pw"), timeout=30) as client:
        yield client


@pytest.fixture
def core(live_server, writer):
    """A plain HTTP client of the registry's other bindings (0.5 at /, 1.0 at /registry), as the same user."""
    import httpx

    with httpx.Client(base_url=live_server.url, auth=("carol", "pw"), timeout=30) as client:
        yield client


@pytest.fixture(autouse=True)
def clients_rule_registry():
    """confluent-kafka's global rule registry as it was before the test: an executor a test registers is configured
    by the first serializer that meets it with that test's client configuration, and another test's serializers,
    configured otherwise, would meet it ("executor already configured")."""
    from confluent_kafka.schema_registry.rule_registry import RuleRegistry

    rules = RuleRegistry.get_global_instance()
    saved = [dict(getattr(rules, name)) for name in ("_rule_executors", "_rule_actions", "_rule_overrides")]
    yield
    for name, value in zip(("_rule_executors", "_rule_actions", "_rule_overrides"), saved, strict=True):
        getattr(rules, name).clear()
        getattr(rules, name).update(value)


@pytest.fixture(scope="module")
def kafka():
    """A Kafka broker (Tansu) for the module's tests, started by the harness; skipped where none can run (failed
    with REQUIRE_SERVICES=1)."""
    try:
        service = start_kafka()
    except ServiceUnavailable as exc:
        if require_services():
            pytest.fail(f"REQUIRE_SERVICES=1 but {exc}")
        pytest.skip(str(exc))
    yield service
    service.stop()
