"""A document kept elsewhere (a version's `resource_uri`) through every binding: the read answers the binding's
redirect (0.5 and the older Schema Registry API 307, 1.0 303: core/http.md "the HTTP body MUST be empty") with the
URI in `Location`, an empty body and no `Content-Type`, since there is no content whose type it could name (RFC 9110
8.3: a media type describes the content; Django's default `text/html` would claim an HTML body). Each route is read
twice: the second answer is the fast path's replay (registry/http/fast_reads.py)."""

import pytest
from rest_framework.test import APIClient

from tests.helpers import TEXT, make_definition_group, make_group, send

pytestmark = pytest.mark.django_db

FAR = "https://x.example/far.json"
READS = [
    ("/schemaGroups/g1/schemas/far", 307),
    ("/schemaGroups/g1/schemas/far/versions/1", 307),
    ("/registry/schemagroups/g1/schemas/far", 303),
    ("/registry/schemagroups/g1/schemas/far/versions/1", 303),
    ("/schemaregistry/schemagroups/g1/schemas/far/versions/1", 307),
]


@pytest.fixture
def far(su):
    make_group(su, "g1")
    created = send(su, "POST", "/schemaGroups/g1/schemas", b"", TEXT, id="far", format="Custom/1", schemaURI=FAR)
    assert created.status_code == 201, created.content


@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize(("path", "status"), READS)
def test_redirect_has_no_content_type(far, su, path, status, method):
    for client in (su, APIClient(), APIClient()):  # a token's, then anonymous: the full view, then the fast path's
        response = client.generic(method, path)
        assert response.status_code == status, (path, response.status_code, response.content)
        assert response["Location"] == FAR
        assert response.content == b""
        assert "Content-Type" not in response, (path, response["Content-Type"])


def test_the_message_catalog_lookup_answers_the_307_it_describes(su):
    """The Message Catalog's lookup by version URI of a definition kept elsewhere answers 307, as `/api/schema/`
    describes its GET."""
    make_definition_group(su, "dg1")
    created = send(su, "POST", "/definitionGroups/dg1/definitions", b"", TEXT, id="far", definitionURI=FAR)
    assert created.status_code == 201, created.content
    uri = su.get("/messagecatalog/dg1/messagedefinitions/far/versions/1")["uri"]
    response = su.get("/messagecatalog/messagedefinition", {"uri": uri})
    assert response.status_code == 307 and response["Location"] == FAR, response.content
    described = su.get("/api/schema/?format=json").json()["paths"]["/messagecatalog/messagedefinition"]["get"]
    assert "307" in described["responses"], sorted(described["responses"])
