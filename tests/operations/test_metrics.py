"""`/metrics` in process: off by default, a bearer token, the request figures by route and status, and the
backlogs read from the database (operations/metrics.py). Several gunicorn workers: test_servers.py."""

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers import PROBLEM_TYPE, make_group, post_schema

TOKEN = "scrape-token-0123456789"


def scrape(client) -> dict:
    """{(sample name, frozenset of labels): value} of one authorised scrape."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_metrics_are_off_without_a_token(client, db, settings):
    settings.REGISTRY_METRICS_TOKEN = ""
    response = client.get("/metrics")
    assert response.status_code == 404
    assert "REGISTRY_METRICS_TOKEN" in response.json()["detail"]


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token", f"Token {TOKEN}", f"Basic {TOKEN}"])
def test_metrics_refuse_a_scraper_without_the_token(client, db, settings, authorization):
    settings.REGISTRY_METRICS_TOKEN = TOKEN
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}
    response = client.get("/metrics", **headers)
    assert response.status_code == 401
    assert response["Content-Type"] == PROBLEM_TYPE
    assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert b"registry_http_requests" not in response.content


def test_requests_counted_by_route_method_and_status(client, su, db, settings):
    settings.REGISTRY_METRICS_TOKEN = TOKEN
    before = scrape(client)
    route = "/schemaGroups/<str:gid>"
    make_group(su, "metrics-g")
    for _ in range(3):
        assert client.get("/schemaGroups/metrics-g").status_code == 200
    assert client.get("/schemaGroups/nope").status_code == 404
    assert client.get("/no/such/route").status_code == 404
    assert su.generic("BREW", "/schemaGroups").status_code == 405  # any method: one series, OTHER
    after = scrape(client)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("registry_http_requests_total", route=route, method="GET", status="200") == 3
    assert delta("registry_http_requests_total", route=route, method="GET", status="404") == 1
    assert delta("registry_http_requests_total", route="/schemaGroups", method="POST", status="201") == 1
    assert delta("registry_http_requests_total", route="unmatched", method="GET", status="404") == 1
    assert delta("registry_http_requests_total", route="/schemaGroups", method="OTHER", status="405") == 1
    assert not [labels for name, labels in after if ("method", "BREW") in labels]
    assert delta("registry_http_request_duration_seconds_count", route=route, method="GET", status="200") == 3
    assert delta("registry_http_request_duration_seconds_sum", route=route, method="GET", status="200") > 0
    # the buckets are cumulative: all three answers took less than a minute
    assert (
        delta("registry_http_request_duration_seconds_bucket", route=route, method="GET", status="200", le="60.0") == 3
    )


def seed_backlog():
    """Unrelayed outbox events, deliveries of two protocols in several states, and import runs."""
    from pipeline.models import ImportRun
    from registry.models import OutboxEvent
    from subscriptions.models import Delivery, Subscription

    now = timezone.now()
    hour_ago = now - timedelta(hours=1)
    http = Subscription.objects.create(protocol="HTTP", sink="https://sink.example/h", status="active")
    mqtt = Subscription.objects.create(protocol="MQTT", sink="mqtt://broker.example/t", status="active")
    old = OutboxEvent.objects.create(type="t", source="/", subject="/a", time=hour_ago)
    OutboxEvent.objects.filter(pk=old.pk).update(created_at=hour_ago)  # committed an hour ago, never relayed
    relayed = OutboxEvent.objects.create(type="t", source="/", subject="/b", time=now, relayed_at=now)
    for sub, status, count in ((http, "delivered", 3), (http, "dead", 2), (http, "retrying", 1), (mqtt, "dead", 1)):
        for _ in range(count):
            event = OutboxEvent.objects.create(type="t", source="/", subject="/c", time=now, relayed_at=now)
            Delivery.objects.create(
                event=event, subscription=sub, status=status, next_attempt_at=now, deadline=now + timedelta(days=1)
            )
    del relayed
    ImportRun.objects.create(source="/data/a.json", status="done", finished_at=hour_ago)
    ImportRun.objects.create(source="/data/b.json", status="failed", finished_at=now)
    ImportRun.objects.create(source="/data/c.json", status="running")
    return now


def test_backlogs_come_from_the_database(client, db, settings):
    settings.REGISTRY_METRICS_TOKEN = TOKEN
    empty = scrape(client)
    assert value(empty, "registry_database_up") == 1
    assert value(empty, "registry_outbox_backlog_events") == 0
    assert value(empty, "registry_outbox_oldest_event_age_seconds") == 0
    assert value(empty, "registry_import_runs", status="failed") == 0
    assert value(empty, "registry_import_last_finished_timestamp_seconds") == 0

    now = seed_backlog()
    samples = scrape(client)
    assert value(samples, "registry_outbox_backlog_events") == 1
    assert 3590 < value(samples, "registry_outbox_oldest_event_age_seconds") < 3700
    assert value(samples, "registry_deliveries", status="delivered", protocol="HTTP") == 3
    assert value(samples, "registry_deliveries", status="dead", protocol="HTTP") == 2
    assert value(samples, "registry_deliveries", status="retrying", protocol="HTTP") == 1
    assert ("registry_deliveries", frozenset({"status": "pending", "protocol": "MQTT"}.items())) in samples  # zeros too
    assert value(samples, "registry_deliveries", status="dead", protocol="MQTT") == 1
    assert value(samples, "registry_dead_letters", protocol="HTTP") == 2
    assert value(samples, "registry_dead_letters", protocol="MQTT") == 1
    assert value(samples, "registry_import_runs", status="done") == 1
    assert value(samples, "registry_import_runs", status="failed") == 1
    assert value(samples, "registry_import_runs", status="running") == 1
    assert value(samples, "registry_import_runs", status="queued") == 0
    assert value(samples, "registry_import_last_finished_timestamp_seconds") == pytest.approx(now.timestamp(), abs=1)


def test_caches_report_entries_bytes_hits_and_misses(client, su, db, settings):
    """Every per-process cache is one bounded type (registry/store/bounded_cache.py) whose size and use are in /metrics:
    `GET /?inline` read twice without a change is rendered once (a miss, a part per group type kept) and then served
    from the whole answer kept (a hit); the kept entries and bytes are the cache's."""
    from registry.store.bounded_cache import caches

    settings.REGISTRY_METRICS_TOKEN = TOKEN
    make_group(su, "cached-g")
    before = scrape(client)
    first = client.get("/?inline")
    rendered = b"".join(first.streaming_content)  # rendered and streamed, kept at its end
    second = client.get("/?inline")
    assert first.status_code == second.status_code == 200 and second.content == rendered
    after = scrape(client)

    def delta(name, cache):
        return value(after, name, cache=cache) - value(before, name, cache=cache)

    assert delta("registry_cache_misses_total", "rendered_answers") == 1
    assert delta("registry_cache_hits_total", "rendered_answers") == 1
    assert value(after, "registry_cache_entries", cache="rendered_answers") == len(caches["rendered_answers"]) >= 1
    assert value(after, "registry_cache_bytes", cache="rendered_answers") == caches["rendered_answers"].size
    assert caches["rendered_answers"].size >= len(second.content)
    assert delta("registry_cache_misses_total", "rendered_groups") >= 1  # each group's part rendered the first time
    for name in ("fast_read_answers", "fast_read_paths", "basic_auth_pairs", "url_resolutions", "rendered_groups"):
        assert name in caches and ("registry_cache_entries", frozenset({("cache", name)})) in after, name


def test_the_caches_of_a_version_check_report_their_use(client, su, db, settings):
    """A new version's checks go through the caches of issue 40's second half (registry/store/bounded_cache.py):
    its document's verdict, the parsed documents and the verdicts of a transitive compatibility check, the frontier
    of the earlier versions; on PostgreSQL the earlier documents too. Each is counted in /metrics by its name, and
    its entries are its own. The other caches' use is shown beside their own tests (`tests.helpers.cache_use`)."""
    from registry.store.bounded_cache import caches

    settings.REGISTRY_METRICS_TOKEN = TOKEN
    schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z]+$"}}}
    make_group(su, "cache-g")
    assert su.put("/schemaGroups/cache-g", {"compatibility": "backward_transitive"}, format="json").status_code == 200
    before = scrape(client)
    post_schema(su, "cache-g", "s", json.dumps(schema).encode(), "application/json", "JsonSchema/draft-07")
    for note in ("two", "three", "four"):
        body = json.dumps({**schema, "description": note}).encode()
        response = su.post("/schemaGroups/cache-g/schemas/s", body, content_type="application/json")
        assert response.status_code == 201, response.content
    after = scrape(client)

    def delta(name, cache):
        return value(after, name, cache=cache) - value(before, name, cache=cache)

    used = ["schema_verdicts", "compatibility_verdicts", "parsed_schemas", "compatibility_frontiers"]
    if connection.vendor == "postgresql":
        used.append("earlier_documents")
    for name in used:
        assert delta("registry_cache_misses_total", name) >= 1, name
        assert value(after, "registry_cache_entries", cache=name) == len(caches[name]) >= 1, name
    for name in ("parsed_schemas", "compatibility_frontiers"):  # the next check reuses them
        assert delta("registry_cache_hits_total", name) >= 1, name
    if connection.vendor == "postgresql":
        assert delta("registry_cache_hits_total", "earlier_documents") >= 2  # the third and fourth versions' reads
