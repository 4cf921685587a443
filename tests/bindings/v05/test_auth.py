"""Authentication and permissions (docs/api-contract.md section 2): writes need a user with the Django permission."""

import pytest
from django.contrib.auth.models import Permission
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from registry.models import Group
from tests.helpers import TEXT, assert_problem, make_group, post_schema, send, send_json, snapshot

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def user_with(django_user_model, name, *codenames):
    user = django_user_model.objects.create_user(name, f"{name}@example.com", "pw")
    for codename in codenames:
        app, code = codename.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app, codename=code))
    return user


def test_anonymous_writes_are_401(anon, su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    before = snapshot()
    cases = [
        send_json(anon, "POST", "/schemaGroups", {"id": "g2"}),
        send_json(anon, "PUT", "/schemaGroups/g1", {"description": "x"}),
        anon.delete("/schemaGroups/g1"),
        anon.delete("/schemaGroups"),
        send(anon, "POST", "/schemaGroups/g1/schemas", b"x", TEXT, id="s2"),
        send(anon, "POST", "/schemaGroups/g1/schemas/s1", b"x", TEXT),
        send(anon, "PUT", "/schemaGroups/g1/schemas/s1/versions/1", b"x", TEXT),
        anon.delete("/schemaGroups/g1/schemas/s1/versions"),
        send_json(anon, "POST", "/", {"specversion": "0.5-wip"}),
    ]
    for response in cases:
        assert_problem(response, 401)
    assert snapshot() == before


def test_bad_token_is_401(db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_problem(send_json(client, "POST", "/schemaGroups", {"id": "g1"}), 401)
    assert not Group.objects.exists()


def test_authenticated_without_permission_is_403(django_user_model, su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    nobody = client_for(user_with(django_user_model, "bob"))
    before = snapshot()
    cases = [
        send_json(nobody, "POST", "/schemaGroups", {"id": "g2"}),
        send_json(nobody, "PUT", "/schemaGroups/g1", {"description": "x"}),
        nobody.delete("/schemaGroups/g1"),
        send(nobody, "POST", "/schemaGroups/g1/schemas", b"x", TEXT, id="s2"),
        send(nobody, "PUT", "/schemaGroups/g1/schemas/s1", b"x", TEXT),
        nobody.delete("/schemaGroups/g1/schemas/s1"),
    ]
    for response in cases:
        assert_problem(response, 403)
    assert snapshot() == before
    # reads are fine
    assert nobody.get("/schemaGroups/g1").status_code == 200


def test_add_group_permission_is_enough_to_create_a_group(django_user_model):
    creator = client_for(user_with(django_user_model, "carol", "registry.add_group"))
    response = send_json(creator, "POST", "/schemaGroups", {"id": "g1"})
    assert response.status_code == 201, response.content
    assert response.json()["createdBy"] == "carol"
    # but not to delete it, nor to add a schema
    assert_problem(creator.delete("/schemaGroups/g1"), 403)
    assert_problem(send(creator, "POST", "/schemaGroups/g1/schemas", b"x", TEXT, id="s1"), 403)
    assert Group.objects.filter(gid="g1").exists()


def test_schema_permissions(django_user_model, su):
    make_group(su, "g1")
    su = client_for(user_with(django_user_model, "dave", "registry.add_resource", "registry.add_version"))
    response = send(su, "POST", "/schemaGroups/g1/schemas", b"x", TEXT, id="s1", format="Custom/1")
    assert response.status_code == 201, response.content
    assert response["Registry-createdBy"] == "dave"


def test_session_authentication_works(client, superuser):
    client.force_login(superuser)
    response = client.post("/schemaGroups", {"id": "g1"}, content_type="application/json")
    assert response.status_code == 201


def test_public_reads_by_default(anon, su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    for path in (
        "/",
        "/?model",
        "/schemaGroups",
        "/schemaGroups/g1",
        "/schemaGroups/g1/schemas/s1",
        "/schemaGroups/g1/schemas/s1/versions",
    ):
        assert anon.get(path).status_code == 200, path


def test_public_read_off_makes_anonymous_reads_401(anon, su, settings):
    make_group(su, "g1")
    post_schema(su, "g1", "s1")
    settings.REGISTRY_PUBLIC_READ = False
    for path in (
        "/",
        "/?model",
        "/schemaGroups",
        "/schemaGroups/g1",
        "/schemaGroups/g1/schemas/s1",
        "/schemaGroups/g1/schemas/s1/versions/1",
    ):
        assert_problem(anon.get(path), 401)
    assert anon.head("/schemaGroups/g1").status_code == 401
    assert su.get("/schemaGroups/g1").status_code == 200


def test_tokens_are_judged_as_drf_judges_them(django_user_model):
    """The token authentication with its query built once (registry/http/token_auth.py) answers as DRF's own: the
    same user and token, the same 401 for an unknown token and for an inactive user's, and nothing written then."""
    from rest_framework import authentication, exceptions

    from registry.http.token_auth import TokenAuthentication

    active = Token.objects.create(user=django_user_model.objects.create_superuser("ann", "a@example.com", "pw")).key
    inactive_user = django_user_model.objects.create_superuser("ben", "b@example.com", "pw")
    inactive_user.is_active = False
    inactive_user.save()
    inactive = Token.objects.create(user=inactive_user).key
    ours, drfs = TokenAuthentication(), authentication.TokenAuthentication()
    user, token = ours.authenticate_credentials(active)
    assert (user, token) == drfs.authenticate_credentials(active) and user.username == "ann" and token.key == active
    for key in (inactive, "not-a-real-token"):
        with pytest.raises(exceptions.AuthenticationFailed) as expected:
            drfs.authenticate_credentials(key)
        with pytest.raises(exceptions.AuthenticationFailed) as refused:
            ours.authenticate_credentials(key)
        assert refused.value.detail == expected.value.detail
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        response = send_json(client, "POST", "/schemaGroups", {"id": "g1"})
        assert_problem(response, 401)
        assert str(expected.value.detail) in response.json()["detail"]
    assert not Group.objects.exists()
    written = APIClient()
    written.credentials(HTTP_AUTHORIZATION=f"Token {active}")
    assert send_json(written, "POST", "/schemaGroups", {"id": "g1"}).status_code == 201
