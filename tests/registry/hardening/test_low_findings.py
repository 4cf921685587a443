"""Issue 24, low findings: a NUL in the admin's search (500 on PostgreSQL for a view-only user), `OPTIONS
/api/docs/` (500: TemplateDoesNotExist), and the OpenAPI document and its UI served anonymously with
REGISTRY_PUBLIC_READ=0 (they are reads like the others)."""

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.urls import reverse

from tests.helpers import make_group

pytestmark = pytest.mark.django_db


@pytest.fixture
def viewer(client, django_user_model):
    """A staff user holding every `view_*` permission, and nothing else."""
    user = django_user_model.objects.create_user("viewer", "v@example.com", "pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    client.force_login(user)
    return client


def registry_changelists():
    return [
        reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for model, model_admin in admin.site._registry.items()
        if model_admin.search_fields or hasattr(model_admin, "search_target")
    ]


@pytest.mark.parametrize("query", ["a%00", "%00", "a%00b c", "%22%00%22"])
def test_a_nul_in_the_admin_search_is_no_error(viewer, su, query):
    make_group(su, "a.b")
    response = viewer.get(f"/admin/registry/search/?q={query}")
    assert response.status_code == 200, response.content[:300]
    for url in registry_changelists():
        response = viewer.get(f"{url}?q={query}")
        assert response.status_code == 200, (url, response.status_code)


def test_the_search_still_finds_the_words_around_a_nul(viewer, su):
    make_group(su, "alpha.group")
    response = viewer.get("/admin/registry/search/?q=alpha%00group")
    assert response.status_code == 200
    assert "alpha.group" in response.content.decode()


def test_options_on_the_api_docs_answers_allow(anon):
    response = anon.options("/api/docs/")
    assert response.status_code == 200
    assert "GET" in response["Allow"]
    assert response.content == b""


@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/"])
def test_the_openapi_document_and_its_ui_follow_the_public_read_rule(anon, su, settings, path):
    assert anon.get(path).status_code == 200
    settings.REGISTRY_PUBLIC_READ = False
    response = anon.get(path)
    assert response.status_code == 401, response.status_code
    assert response["Content-Type"].startswith("application/problem+json")
    assert su.get(path).status_code == 200  # a signed-in user still reads them
