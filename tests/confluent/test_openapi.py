"""The Confluent API (`/confluent`) in the registry's public OpenAPI document (`/api/schema/`, shown at
`/api/docs/`): every route with its methods, query and path parameters, request bodies, answers in Confluent's media
type and its `{"error_code", "message"}` error document; and answers of the running API keep to what it says."""

import json

import pytest
from jsonschema import Draft202012Validator

from confluent.models import SchemaId
from registry.models import AuditRecord, Resource, Version

MEDIA = "application/vnd.schemaregistry.v1+json"
USER = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'
# every route of confluent/api/urls.py, as the document names it, with its methods
ROUTES = {
    "/confluent/": {"get"},
    "/confluent/subjects": {"get"},
    "/confluent/subjects/{subject}": {"post", "delete"},
    "/confluent/subjects/{subject}/metadata": {"get", "post", "delete"},
    "/confluent/subjects/{subject}/versions": {"get", "post"},
    "/confluent/subjects/{subject}/versions/{version}": {"get", "delete"},
    "/confluent/subjects/{subject}/versions/{version}/schema": {"get"},
    "/confluent/subjects/{subject}/versions/{version}/referencedby": {"get"},
    "/confluent/schemas/types": {"get"},
    "/confluent/schemas/ids/{schema_id}": {"get"},
    "/confluent/schemas/ids/{schema_id}/schema": {"get"},
    "/confluent/schemas/ids/{schema_id}/subjects": {"get"},
    "/confluent/schemas/ids/{schema_id}/versions": {"get"},
    "/confluent/schemas/guids/{guid}": {"get"},
    "/confluent/config": {"get", "put", "delete"},
    "/confluent/config/{subject}": {"get", "put", "delete"},
    "/confluent/mode": {"get", "put"},  # the global mode is never deleted (405)
    "/confluent/mode/{subject}": {"get", "put", "delete"},
    "/confluent/compatibility/subjects/{subject}/versions": {"post"},
    "/confluent/compatibility/subjects/{subject}/versions/{version}": {"post"},
    "/confluent/contexts": {"get"},
    "/confluent/associations": {"post"},
    "/confluent/associations/subjects/{subject}": {"get"},
    "/confluent/associations/resources/{namespace}/{name}": {"get"},
    "/confluent/associations/resources/{resource_id}": {"get", "put", "delete"},
    "/confluent/dek-registry/v1/keks": {"get", "post"},
    "/confluent/dek-registry/v1/keks/{name}": {"get", "put", "delete"},
    "/confluent/dek-registry/v1/keks/{name}/undelete": {"post"},
    "/confluent/dek-registry/v1/keks/{name}/test": {"post"},
    "/confluent/dek-registry/v1/keks/{name}/deks": {"get", "post"},
    "/confluent/dek-registry/v1/keks/{name}/deks/{subject}": {"get", "post", "delete"},
    "/confluent/dek-registry/v1/keks/{name}/deks/{subject}/undelete": {"post"},
    "/confluent/dek-registry/v1/keks/{name}/deks/{subject}/versions": {"get"},
    "/confluent/dek-registry/v1/keks/{name}/deks/{subject}/versions/{version}": {"get", "delete"},
    "/confluent/dek-registry/v1/keks/{name}/deks/{subject}/versions/{version}/undelete": {"post"},
}
METHODS = {"get", "put", "post", "delete", "patch"}


@pytest.fixture
def document(anon):
    response = anon.get("/api/schema/?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def answer_schema(document: dict, operation: dict, status: int) -> Draft202012Validator:
    """A validator of the answer the document gives for this status, in Confluent's media type."""
    schema = operation["responses"][str(status)]["content"][MEDIA]["schema"]
    return Draft202012Validator({**schema, "components": document["components"]})


def test_every_route_of_the_confluent_api_is_in_the_public_schema_with_its_methods(document):
    described = {path: set(item) & METHODS for path, item in document["paths"].items() if path.startswith("/confluent")}
    assert described == ROUTES
    for path, methods in ROUTES.items():
        for method in methods:
            operation = document["paths"][path][method]
            assert operation["tags"] == ["confluent"] and operation["summary"], (method, path)
            for status, response in operation["responses"].items():
                # every refusal is Confluent's error document in its media type, but those the server writes before
                # the API sees the request (a request line or headers over its limits: config/gunicorn_worker.py)
                if status.startswith(("4", "5")) and status not in ("414", "431"):
                    schema = response["content"][MEDIA]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ConfluentError"}, (method, path, status)
    error = document["components"]["schemas"]["ConfluentError"]
    assert error["properties"]["error_code"]["type"] == "integer" and error["properties"]["message"]["type"] == "string"
    assert set(error["required"]) == {"error_code", "message"}


def test_parameters_bodies_and_answers_are_described(document):
    paths = document["paths"]

    def parameters(path, method):
        return {(p["in"], p["name"]): p["schema"] for p in paths[path][method]["parameters"]}

    listed = parameters("/confluent/subjects", "get")
    assert listed[("query", "subjectPrefix")]["type"] == "string"
    # a query boolean or number, or empty (the server reads an empty value as absent)
    assert listed[("query", "deleted")]["anyOf"] == [{"type": "boolean"}, {"const": ""}]
    assert listed[("query", "offset")]["anyOf"] == [{"type": "integer"}, {"const": ""}]
    assert parameters("/confluent/schemas/ids/{schema_id}", "get")[("path", "schema_id")]["type"] == "integer"
    assert ("query", "permanent") in parameters("/confluent/subjects/{subject}/versions/{version}", "delete")
    register = paths["/confluent/subjects/{subject}/versions"]["post"]
    body = register["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["schema"] and body["properties"]["references"]["items"]["required"] == [
        "name",
        "subject",
        "version",
    ]
    assert {"200", "401", "404", "409", "422"} <= set(register["responses"])
    # the POSTs that only read are as public as reads (REGISTRY_PUBLIC_READ); a registration needs a caller
    assert {} in paths["/confluent/subjects/{subject}"]["post"]["security"]
    assert {} in paths["/confluent/compatibility/subjects/{subject}/versions"]["post"]["security"]
    assert {} not in register["security"] and {"bearerAuth": []} in register["security"]
    mode = paths["/confluent/mode"]["put"]["requestBody"]["content"]["application/json"]["schema"]
    assert mode["required"] == ["mode"]


@pytest.mark.django_db(transaction=True)
def test_answers_of_the_api_keep_to_the_document(document, su, anon):
    paths = document["paths"]
    registered = su.post("/confluent/subjects/users-value/versions", {"schema": USER}, format="json", HTTP_ACCEPT=MEDIA)
    assert registered.status_code == 200 and registered["content-type"] == MEDIA
    answer_schema(document, paths["/confluent/subjects/{subject}/versions"]["post"], 200).validate(registered.json())
    read = anon.get("/confluent/subjects/users-value/versions/latest")
    answer_schema(document, paths["/confluent/subjects/{subject}/versions/{version}"]["get"], 200).validate(read.json())
    by_id = anon.get(f"/confluent/schemas/ids/{registered.json()['id']}")
    answer_schema(document, paths["/confluent/schemas/ids/{schema_id}"]["get"], 200).validate(by_id.json())

    # a refusal, in the shape and media type the document gives, with nothing written
    before = (Resource.objects.count(), Version.objects.count(), SchemaId.objects.count(), AuditRecord.objects.count())
    refused = su.post(
        "/confluent/subjects/users-value/versions", {"schema": "{not avro"}, format="json", HTTP_ACCEPT=MEDIA
    )
    assert refused.status_code == 422 and refused["content-type"] == MEDIA
    answer_schema(document, paths["/confluent/subjects/{subject}/versions"]["post"], 422).validate(refused.json())
    assert refused.json()["error_code"] == 42201
    missing = anon.get("/confluent/subjects/nobody/versions")
    assert missing.status_code == 404 and missing.json()["error_code"] == 40401
    answer_schema(document, paths["/confluent/subjects/{subject}/versions"]["get"], 404).validate(missing.json())
    after = (Resource.objects.count(), Version.objects.count(), SchemaId.objects.count(), AuditRecord.objects.count())
    assert after == before


def test_the_docs_page_reads_the_schema_that_holds_the_confluent_api(anon, document):
    page = anon.get("/api/docs/")
    assert page.status_code == 200 and b"/api/schema/" in page.content
    assert "/confluent/subjects/{subject}/versions" in document["paths"]


def test_the_undocumented_method_and_parameter_values_are_refused(anon, su):
    # the global mode is never deleted: 405, in Confluent's words, with an Allow header that matches the document
    refused = su.delete("/confluent/mode")
    assert refused.status_code == 405 and refused.json()["error_code"] == 405
    assert "DELETE" not in refused["Allow"] and {"GET", "PUT"} <= set(refused["Allow"].replace(" ", "").split(","))
    assert "DELETE" not in su.options("/confluent/mode")["Allow"]
    # a query boolean is read wherever the document names it (it was ignored on the global config and mode)
    for path in ("/confluent/config", "/confluent/mode"):
        answer = anon.get(path, {"defaultToGlobal": "null"})
        assert answer.status_code == 400 and answer.json()["error_code"] == 400, path
        assert anon.get(path, {"defaultToGlobal": "TRUE"}).status_code == 200
