"""A group written with the resources it holds creates them through every binding (issue 23 item 6: the 0.5
binding answered 201 and dropped them), and a reference into the registry must name something (item 7)."""

import json

from registry.models import Resource
from tests.helpers import snapshot

from .adapters import XR10

DEFINITION = {"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "com.example.x"}}}}
MESSAGE = {"envelope": "CloudEvents/1.0", "envelopemetadata": {"type": {"value": "com.example.x"}}}


def test_a_group_put_with_its_resources_creates_them(su, binding):
    if binding is XR10:
        body = {"messages": {"m1": MESSAGE}}
        response = su.put("/registry/messagegroups/g", body, format="json")
        count = response.json()["messagescount"]
    else:
        body = {"format": "CloudEvents/1.0", "definitions": {"m1": DEFINITION}}
        response = su.put("/definitionGroups/g", body, format="json")
        count = response.json()["definitionsCount"]
    assert response.status_code == 201, response.content
    assert count == 1 and Resource.objects.filter(rid="m1").exists()


def test_an_invalid_nested_resource_refuses_the_whole_put(su):
    before = snapshot()
    body = {"format": "CloudEvents/1.0", "definitions": {"m1": {"format": "CloudEvents/1.0", "metadata": 5}}}
    response = su.put("/definitionGroups/g", body, format="json")
    assert response.status_code == 400 and "m1" in json.dumps(response.json()), response.content
    assert snapshot() == before


def test_a_schema_reference_to_nothing_is_refused(su, binding):
    su.put("/schemaGroups/com.acme.payments", {}, format="json")
    before = snapshot()
    if binding is XR10:
        body = {**MESSAGE, "dataschemaformat": "JsonSchema/draft-07",
                "dataschemauri": "/schemagroups/com.acme.payments/schemas/Nope"}  # fmt: skip
        response = su.put("/registry/messagegroups/g/messages/m", body, format="json")
    else:
        su.put("/definitionGroups/g", {"format": "CloudEvents/1.0"}, format="json")
        before = snapshot()
        doc = {**DEFINITION, "schemaformat": "JsonSchema/draft-07",
               "schemaurl": "#/schemaGroups/com.acme.payments/schemas/Nope"}  # fmt: skip
        response = su.put("/definitionGroups/g/definitions/m", doc, format="json")
    binding.assert_problem(response, 400, "invalid-attribute")
    assert "Nope" in response.json()["detail"]
    assert snapshot() == before


def test_a_reference_left_dangling_by_a_forced_delete_is_kept_on_edit(su):
    su.put("/schemaGroups/s", {}, format="json")
    su.generic("PUT", "/schemaGroups/s/schemas/x", b"{}", "application/json", headers={"Registry-format": "Custom/1"})
    su.put("/definitionGroups/g", {"format": "CloudEvents/1.0"}, format="json")
    doc = {**DEFINITION, "schemaformat": "Custom/1", "schemaurl": "#/schemaGroups/s/schemas/x"}
    assert su.put("/definitionGroups/g/definitions/m", doc, format="json").status_code == 201
    assert su.delete("/schemaGroups/s?force=true").status_code == 200
    edited = su.put("/definitionGroups/g/definitions/m", {**doc, "description": "still here"}, format="json")
    assert edited.status_code == 200, edited.content
