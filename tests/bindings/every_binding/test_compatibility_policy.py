"""One compatibility policy (issue 23 item 3): a schema created without a level gets the registry's default
(REGISTRY_DEFAULT_COMPATIBILITY), whichever binding created it, and every reader shows that level."""

import json

import pytest
from django.urls import reverse

from registry.models import Resource, Version
from tests.helpers import snapshot

from .adapters import BINDINGS, CORE, XR10

V1 = json.dumps({"type": "object", "properties": {"id": {"type": "string"}}}).encode()
V2_BREAKS = json.dumps({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}).encode()
FORMAT = "JsonSchema/draft-07"


def _create(su, creator, gid="g1"):
    su.put(creator.group(gid), {}, format="json")
    assert creator.create_schema(su, gid, "s1", V1, FORMAT).status_code == 201


@pytest.mark.parametrize("creator", BINDINGS, ids=[b.name for b in BINDINGS])
def test_an_incompatible_version_is_refused_by_default_whichever_binding_created_the_schema(su, creator, binding):
    _create(su, creator)
    before = snapshot()
    response = binding.send(su, "POST", binding.schema("g1", "s1"), V2_BREAKS)
    expected = 409 if binding is CORE else 400
    binding.assert_problem(response, expected, "incompatible-version")
    assert snapshot() == before


@pytest.mark.parametrize("creator", BINDINGS, ids=[b.name for b in BINDINGS])
def test_every_reader_shows_the_level_that_applies(su, creator, client, superuser):
    _create(su, creator)
    assert su.get("/registry/schemagroups/g1/schemas/s1/meta").json()["compatibility"] == "backward_transitive"
    model = su.get("/registry/model").json()
    meta = model["groups"]["schemagroups"]["resources"]["schemas"]["metaattributes"]["compatibility"]
    assert meta["default"] == "backward_transitive"
    check = su.post("/schemaGroups/g1/schemas/s1/compatibility", V2_BREAKS, content_type="application/json")
    assert check.json()["level"] == "backward_transitive"
    client.force_login(superuser)
    resource = Resource.objects.get(rid="s1")
    page = client.get(reverse("admin:catalog_schema_change", args=[resource.pk])).content.decode()
    assert "backward_transitive" in page


def test_the_registry_default_is_a_setting(su, settings, binding):
    settings.REGISTRY_DEFAULT_COMPATIBILITY = "none"
    _create(su, binding)
    assert "compatibility" not in su.get("/registry/schemagroups/g1/schemas/s1/meta").json()  # no level: none shown
    assert binding.send(su, "POST", binding.schema("g1", "s1"), V2_BREAKS).status_code == 201
    assert Version.objects.filter(resource__rid="s1").count() == 2


def test_meta_sent_back_as_read_keeps_inheriting(su):
    """1.0 shows the effective level; a client that PUTs back the meta it read stores no level of its own, so a
    later change of the group's level still applies."""
    _create(su, XR10)
    meta = su.get("/registry/schemagroups/g1/schemas/s1/meta").json()
    assert su.put("/registry/schemagroups/g1/schemas/s1/meta", meta, format="json").status_code == 200
    assert "compatibility" not in Resource.objects.get(rid="s1").extensions
    su.put("/schemaGroups/g1", {"compatibility": "none"}, format="json")
    assert "compatibility" not in su.get("/registry/schemagroups/g1/schemas/s1/meta").json()  # no level: none shown
