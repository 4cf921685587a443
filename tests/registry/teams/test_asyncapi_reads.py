"""The AsyncAPI export with public reads off (issue 27): the groups and endpoints an export names are read by their
rule (403 naming the group), and what they lead to in groups the caller may not read (an endpoint's message groups, an
endpoint that references a group, a payload schema) is left out of the document."""

import pytest

HIDDEN_DEFS, HIDDEN_SCHEMAS, HIDDEN_ENDPOINT = "hidden-msgs-b-31", "hidden-schemas-b-32", "hidden-endpoint-b-33"
OWNERS = {"owners": {"team-b": "owner"}}
# what must not be in an export for a caller who may not read B's groups (an open message's own reference to the
# hidden schema, its `dataschemauri`, is that message's attribute and stays: the schema it names does not come along)
SECRETS = (HIDDEN_DEFS, HIDDEN_ENDPOINT, "HiddenPayloadB34", "hidden.type.b35")


def definition(event_type: str, schema: str) -> dict:
    return {
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"value": event_type}}},
        "schemaurl": f"#/schemaGroups/{schema}/schemas/payload",
        "schemaformat": "JsonSchema/draft-07",
    }


@pytest.fixture
def catalog(teams, su, settings):
    """An open endpoint referencing an open and a hidden message group; the hidden group's payload schema hidden; a
    hidden endpoint referencing the open group."""

    def put(path, body):
        response = su.put(path, body, format="json")
        assert response.status_code == 201, (path, response.content)

    def schema(gid, title):
        response = su.generic(
            "PUT",
            f"/schemaGroups/{gid}/schemas/payload",
            b'{"type": "object", "title": "%s"}' % title.encode(),
            content_type="application/json",
            headers={"Registry-format": "JsonSchema/draft-07"},
        )
        assert response.status_code == 201, response.content

    put(f"/schemaGroups/{HIDDEN_SCHEMAS}", OWNERS)
    schema(HIDDEN_SCHEMAS, "HiddenPayloadB34")
    put("/schemaGroups/open-schemas", {})
    schema("open-schemas", "OpenPayload")
    put(f"/definitionGroups/{HIDDEN_DEFS}", {"format": "CloudEvents/1.0", **OWNERS})
    put(f"/definitionGroups/{HIDDEN_DEFS}/definitions/d", definition("hidden.type.b35", HIDDEN_SCHEMAS))
    put("/definitionGroups/open-msgs", {"format": "CloudEvents/1.0"})
    put("/definitionGroups/open-msgs/definitions/d", definition("open.type", "open-schemas"))
    put("/definitionGroups/open-msgs/definitions/e", definition("open.type.e", HIDDEN_SCHEMAS))
    endpoint = {"usage": "producer", "config": {"protocol": "HTTP", "endpoints": ["https://example.com/in"]}}
    put(
        "/endpoints/open-ep",
        {**endpoint, "definitionGroups": ["#/definitionGroups/open-msgs", f"#/definitionGroups/{HIDDEN_DEFS}"]},
    )
    put(f"/endpoints/{HIDDEN_ENDPOINT}", {**endpoint, **OWNERS, "definitionGroups": ["#/definitionGroups/open-msgs"]})
    settings.REGISTRY_PUBLIC_READ = False
    return teams


def body(response) -> str:
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


PATHS = [
    "/registry/endpoints/open-ep/asyncapi",
    "/registry/messagegroups/open-msgs/asyncapi",
    "/registry/asyncapi?messagegroup=open-msgs&endpoint=open-ep",
]


@pytest.mark.parametrize("path", PATHS)
def test_exports_leave_out_what_the_caller_may_not_read(catalog, path):
    text = body(catalog["outsider"].get(path))
    for secret in SECRETS:
        assert secret not in text, (secret, text[:3000])
    assert "open.type" in text
    shown = body(catalog["owner_b"].get(path))
    assert any(secret in shown for secret in SECRETS), shown[:3000]


@pytest.mark.parametrize(
    "path",
    [
        f"/registry/asyncapi?messagegroup={HIDDEN_DEFS}",
        f"/registry/asyncapi?endpoint={HIDDEN_ENDPOINT}",
        f"/registry/messagegroups/{HIDDEN_DEFS}/asyncapi",
        f"/registry/endpoints/{HIDDEN_ENDPOINT}/asyncapi",
    ],
)
def test_exports_naming_a_hidden_group_are_refused(catalog, path):
    response = catalog["outsider"].get(path)
    assert response.status_code == 403, response.content
    assert "hidden.type.b35" not in response.content.decode()
    assert catalog["owner_b"].get(path).status_code == 200
