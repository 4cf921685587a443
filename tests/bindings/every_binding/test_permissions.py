"""One permission table (registry/access/permissions.py) for every door (issue 23 item 11): the same write needs the same
model permissions through each binding (creating a resource by PUT needed `add_resource` under /registry but not
under /), a refusal is 403 naming what is missing, and nothing is written."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from rest_framework.test import APIClient

from registry.models import Resource
from tests.helpers import snapshot

from .adapters import BINDINGS

DOC = b'{"type": "object"}'
FORMAT = "JsonSchema/draft-07"


def user_with(django_user_model, name, *codenames):
    user = django_user_model.objects.create_user(name, password="pw", is_staff=True)
    for codename in codenames:
        user.user_permissions.add(Permission.objects.get(content_type__app_label="registry", codename=codename))
    client = APIClient()
    client.force_authenticate(user)
    return user, client


@pytest.fixture
def group(su, binding):
    assert su.put(binding.group("g1"), {}, format="json").status_code == 201


def test_creating_a_resource_needs_add_resource_in_every_binding(django_user_model, su, any_binding):
    """By PUT in 0.5 and 1.0, by POST of its first version in the Schema Registry binding."""
    assert su.put(any_binding.group("g1"), {}, format="json").status_code == 201
    _user, updater = user_with(django_user_model, "upd", "change_version", "add_version")
    before = snapshot()
    response = any_binding.create_schema(updater, "g1", "s1", DOC, FORMAT)
    body = any_binding.assert_problem(response, 403, "forbidden")
    assert "registry.add_resource" in body["detail"]
    assert snapshot() == before
    _user, creator = user_with(django_user_model, "cre", "add_resource", "add_version")
    assert any_binding.create_schema(creator, "g1", "s1", DOC, FORMAT).status_code == 201


def test_updating_needs_change_version_and_not_more(django_user_model, su, binding, group):
    binding.create_schema(su, "g1", "s1", DOC, FORMAT)
    _user, creator = user_with(django_user_model, "cre", "add_resource", "add_version")
    before = snapshot()
    binding.assert_problem(binding.send(creator, "PUT", binding.schema("g1", "s1"), DOC), 403, "forbidden")
    assert snapshot() == before
    _user, updater = user_with(django_user_model, "upd", "change_version")
    assert binding.send(updater, "PUT", binding.schema("g1", "s1"), DOC).status_code == 200


def test_a_document_import_needs_each_entity_s_permission(django_user_model, binding):
    _user, grouper = user_with(django_user_model, "grp", "add_group")
    document = (
        {"schemaGroups": {"g": {"schemas": {"s": {"format": FORMAT, "versions": {"1": {"schema": {}}}}}}}}
        if binding.name == "0.5"
        else {"schemagroups": {"g": {"schemas": {"s": {"versions": {"1": {"schema": {}}}}}}}}
    )
    before = snapshot()
    response = grouper.post(binding.root, document, format="json")
    binding.assert_problem(response, 403, "forbidden")
    assert snapshot() == before


def test_the_admin_offers_what_the_table_allows(django_user_model, su, client):
    su.put("/schemaGroups/g1", {}, format="json")
    BINDINGS[0].create_schema(su, "g1", "s1", DOC, FORMAT)
    from django.contrib.auth.models import Group as Team

    from registry.access.roles import VIEWERS

    user, _client = user_with(django_user_model, "viewer")
    user.groups.add(Team.objects.get(name=VIEWERS))
    client.force_login(user)
    resource = Resource.objects.get(rid="s1")
    page = client.get(reverse("admin:catalog_schema_change", args=[resource.pk]))
    assert page.status_code == 200
    refused = "You may not add entries here"
    assert refused in client.get(reverse("admin:catalog_schemagroup_add")).content.decode()
    user.user_permissions.add(Permission.objects.get(content_type__app_label="registry", codename="add_group"))
    user = django_user_model.objects.get(pk=user.pk)  # permissions are cached per user object
    client.force_login(user)
    assert refused not in client.get(reverse("admin:catalog_schemagroup_add")).content.decode()
