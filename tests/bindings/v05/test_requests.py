"""Common rules (docs/api-contract.md section 2): problem documents, bad input, limits, media types, paging, filters, auth."""

import pytest

from registry.models import Group, OutboxEvent
from tests.helpers import assert_problem

pytestmark = pytest.mark.django_db


def test_malformed_json(su):
    assert_problem(
        su.generic("POST", "/schemaGroups", "{nope", content_type="application/json"), 400, kind="malformed-json"
    )
    assert_problem(su.generic("POST", "/schemaGroups", '{"a": NaN}', content_type="application/json"), 400)
    assert_problem(su.generic("POST", "/schemaGroups", '{"id": "a", "id": "b"}', content_type="application/json"), 400)
    assert Group.objects.count() == 0


def test_non_object_and_wrong_types(su):
    assert_problem(su.generic("POST", "/schemaGroups", "[1]", content_type="application/json"), 400)
    body = assert_problem(su.post("/schemaGroups", {"id": "a", "name": 5}, format="json"), 400)
    assert "name" in body["detail"]
    body = assert_problem(su.post("/schemaGroups", {"id": "a", "tags": []}, format="json"), 400)
    assert "tags" in body["detail"]
    assert_problem(su.post("/schemaGroups", {"id": "a", "tags": {"-bad": "x"}}, format="json"), 400)
    assert Group.objects.count() == 0 and OutboxEvent.objects.count() == 0


def test_unknown_query_flag(anon):
    body = assert_problem(anon.get("/schemaGroups?frobnicate=1"), 400, kind="unknown-flag")
    assert "frobnicate" in body["detail"]


def test_body_over_limit_is_413(su, settings):
    settings.REGISTRY_MAX_BODY_BYTES = 100
    assert_problem(su.post("/schemaGroups", {"id": "a", "description": "x" * 200}, format="json"), 413)
    assert not Group.objects.exists()


def test_non_json_group_body_is_415(su):
    assert_problem(su.generic("POST", "/schemaGroups", "<a/>", content_type="application/xml"), 415)
    assert not Group.objects.exists()


def test_method_not_allowed_has_allow(su):
    response = su.post("/schemaGroups/g/schemas/s/versions", {}, format="json")
    body = assert_problem(response, 405)
    assert not Group.objects.exists()
    assert "GET" in response["Allow"] and "DELETE" in response["Allow"]
    assert body["title"]


def test_unknown_path_is_problem_404(anon):
    assert_problem(anon.get("/nothing/here"), 404)
    assert_problem(anon.get("/schemaGroups/none"), 404, kind="not-found")


def test_paging_with_link_header(su):
    for index in range(5):
        su.put(f"/schemaGroups/g{index}", {}, format="json")
    seen, url = [], "/schemaGroups?limit=2"
    while url:
        response = su.get(url)
        seen += list(response.json())
        link = response.get("Link")
        if link:
            assert link.endswith(";rel=next;count=5")
            url = link[1 : link.index(">")].replace("http://testserver", "")
        else:
            url = None
    assert seen == [f"g{i}" for i in range(5)]
    assert_problem(su.get("/schemaGroups?page=garbage"), 400)
    assert_problem(su.get("/schemaGroups?limit=0"), 400)


def test_filters(su):
    su.put("/schemaGroups/orders", {"name": "Orders", "tags": {"owner": "team-a"}}, format="json")
    su.put("/schemaGroups/ordersArchive", {"name": "Old orders", "tags": {"owner": "team-b"}}, format="json")
    su.put("/endpoints/http1", {"usage": "producer", "config": {"protocol": "HTTP"}}, format="json")
    su.put("/endpoints/mqtt1", {"usage": "consumer", "config": {"protocol": "MQTT/5.0"}}, format="json")
    assert list(su.get("/schemaGroups?filter=name=Ord*").json()) == ["orders"]
    assert list(su.get("/schemaGroups?filter=tags.owner=team-b").json()) == ["ordersArchive"]
    assert list(su.get("/schemaGroups?filter=id=orders*&filter=tags.owner=team-a").json()) == ["orders"]
    assert list(su.get("/endpoints?filter=config.protocol=mqtt*").json()) == ["mqtt1"]
    assert su.get("/schemaGroups?filter=nothing.here=x").json() == {}
    assert_problem(su.get("/schemaGroups?filter=novalue"), 400)


def test_auth_rules(anon, django_user_model, settings):
    assert_problem(anon.post("/schemaGroups", {"id": "a"}, format="json"), 401)
    user = django_user_model.objects.create_user("plain", "p@example.com", "pw")
    anon.force_authenticate(user)
    assert_problem(anon.post("/schemaGroups", {"id": "a"}, format="json"), 403)
    from django.contrib.auth.models import Permission

    user.user_permissions.add(Permission.objects.get(codename="add_group", content_type__app_label="registry"))
    anon.force_authenticate(django_user_model.objects.get(pk=user.pk))
    assert anon.post("/schemaGroups", {"id": "a"}, format="json").status_code == 201
    assert_problem(anon.delete("/schemaGroups/a"), 403)
    anon.force_authenticate(None)
    assert anon.get("/schemaGroups").status_code == 200
    settings.REGISTRY_PUBLIC_READ = False
    assert_problem(anon.get("/schemaGroups"), 401)


def test_token_authentication(su):
    assert su.post("/schemaGroups", {"id": "tok"}, format="json").json()["createdBy"] == "alice"


def test_hostile_bodies_are_4xx_and_write_nothing(su):
    import json
    import time

    su.put("/schemaGroups/g", {}, format="json")
    before = OutboxEvent.objects.count()
    big = json.dumps({"type": "object", "description": "x" * 5_000_000})
    started = time.monotonic()
    response = su.generic(
        "POST",
        "/schemaGroups/g/schemas",
        big,
        content_type="application/json",
        HTTP_REGISTRY_ID="big",
        HTTP_REGISTRY_FORMAT="JsonSchema/draft-07",
    )
    assert_problem(response, 400)
    deep = "[" * 50_000 + "]" * 50_000
    assert_problem(
        su.generic(
            "POST",
            "/schemaGroups/g/schemas",
            deep,
            content_type="application/json",
            HTTP_REGISTRY_ID="deep",
            HTTP_REGISTRY_FORMAT="JsonSchema/draft-07",
        ),
        400,
    )
    assert_problem(su.generic("PUT", "/schemaGroups/deep", '{"a": ' + deep + "}", content_type="application/json"), 400)
    bomb = "a: &a [x, x, x, x, x, x, x, x]\n" + "".join(
        f"l{i}: &l{i} [*{'a' if i == 0 else f'l{i - 1}'}, *{'a' if i == 0 else f'l{i - 1}'}, "
        f"*{'a' if i == 0 else f'l{i - 1}'}, *{'a' if i == 0 else f'l{i - 1}'}]\n"
        for i in range(20)
    )
    assert_problem(su.generic("POST", "/", bomb, content_type="application/cloudevents-registry+yaml"), 400)
    assert_problem(
        su.generic(
            "POST",
            "/schemaGroups/g/schemas",
            "message {",
            content_type="text/plain",
            HTTP_REGISTRY_ID="p",
            HTTP_REGISTRY_FORMAT="Protobuf/3",
        ),
        400,
    )
    assert time.monotonic() - started < 30
    assert OutboxEvent.objects.count() == before
    assert su.get("/schemaGroups/g").json()["schemasCount"] == 0


def test_createsuperuser_noinput_and_drf_create_token(monkeypatch, capsys):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    monkeypatch.setenv("DJANGO_SUPERUSER_USERNAME", "ops")
    monkeypatch.setenv("DJANGO_SUPERUSER_EMAIL", "ops@example.com")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a-long-password-1")
    call_command("createsuperuser", interactive=False)
    assert get_user_model().objects.get(username="ops").is_superuser
    call_command("drf_create_token", "ops")
    out = capsys.readouterr().out
    token = out.split("Generated token ", 1)[1].split()[0]
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.post("/schemaGroups", {"id": "by-token"}, format="json")
    assert response.json().get("createdBy") == "ops", (out, response.content)
