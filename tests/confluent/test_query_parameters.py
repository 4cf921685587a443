"""The Confluent API's query parameters: each operation's are declared once by its view (`flags`), and that one
declaration is both what the OpenAPI description (`/api/schema/`) gives the operation and the only parameters the
view can read; they are read as Confluent's REST server (Jersey) reads them: the first value of a parameter given
twice, a blank boolean or integer as absent, a parameter the operation does not take ignored."""

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.urls import resolve
from rest_framework.test import APIRequestFactory

from confluent.api.base import ConfluentView, answer, flag
from registry.http.requests import declared_flags
from registry.models import AuditRecord, Version

USER = '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}]}'
USER_2 = (
    '{"type": "record", "name": "User", "fields": [{"name": "name", "type": "string"}, '
    '{"name": "age", "type": "int", "default": 0}]}'
)
# a value for each path parameter of the routes (confluent.api.urls), to resolve a described path to its view
SAMPLES = {
    "{subject}": "s",
    "{version}": "1",
    "{schema_id}": "1",
    "{guid}": "g",
    "{name}": "k",
    "{namespace}": "-",
    "{resource_id}": "r",
}
API = Path(__file__).resolve().parents[2] / "confluent" / "api"


@pytest.mark.django_db
def test_every_operation_describes_exactly_the_flags_its_view_declares(anon):
    document = anon.get("/api/schema/?format=json").json()
    checked = 0
    for path, operations in document["paths"].items():
        if not path.startswith("/confluent/"):
            continue
        url = path
        for placeholder, value in SAMPLES.items():
            url = url.replace(placeholder, value)
        view = resolve(url).func.view_class
        for method, op in operations.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            described = {p["name"] for p in op.get("parameters", []) if p["in"] == "query"}
            assert described == set(view.flags.get(method, ())), (method, path)
            assert all(p.get("description") for p in op["parameters"] if p["in"] == "query"), (method, path)
            checked += 1
    assert checked >= 56


def test_the_views_read_the_query_string_only_through_the_declared_readers():
    """`confluent.api.base.query`, `queries`, `flag` and `page` refuse a parameter the view does not declare: no view
    reads `request.GET` (or DRF's `query_params`) around them."""
    for source in API.glob("*.py"):
        if source.name != "base.py":
            text = source.read_text(encoding="utf-8")
            assert ".GET" not in text and "query_params" not in text, source.name


@pytest.mark.django_db
def test_a_view_reading_a_flag_it_does_not_declare_fails_loudly():
    class Reader(ConfluentView):
        flags = declared_flags(get="deleted")
        reads = "deleted"

        def get(self, request):
            return answer({self.reads: flag(request, self.reads)})

    class Sneaky(Reader):
        reads = "permanent"

    assert Reader.as_view()(APIRequestFactory().get("/confluent/x", {"deleted": "true"})).status_code == 200
    with pytest.raises(ImproperlyConfigured, match=r"Sneaky\.get reads \?permanent without declaring it"):
        Sneaky.as_view()(APIRequestFactory().get("/confluent/x", {"permanent": "true"}))


@pytest.fixture
def subject(su):
    """The subject `s` with versions 1 (soft-deleted) and 2."""
    for text in (USER, USER_2):
        assert su.post("/confluent/subjects/s/versions", {"schema": text}, format="json").status_code == 200
    assert su.delete("/confluent/subjects/s/versions/1").json() == 1
    return "s"


@pytest.mark.django_db
def test_of_a_parameter_given_twice_the_first_value_counts_as_confluents_server_reads_it(subject, anon):
    before = (Version.objects.count(), AuditRecord.objects.count())
    versions = f"/confluent/subjects/{subject}/versions"
    assert anon.get(f"{versions}?deleted=true&deleted=false").json() == [1, 2]
    assert anon.get(f"{versions}?deleted=false&deleted=true").json() == [2]
    assert anon.get(f"{versions}?deleted=true&limit=1&limit=5").json() == [1]
    assert anon.get(f"{versions}?deleted=true&offset=1&offset=0").json() == [2]
    assert anon.get(f"{versions}/1?deleted=true&deleted=no").json()["version"] == 1
    assert anon.get("/confluent/subjects?subjectPrefix=s&subjectPrefix=x").json() == ["s"]
    assert anon.get("/confluent/subjects?subjectPrefix=x&subjectPrefix=s").json() == []
    # a bad value counts only where it is the one read
    assert anon.get(f"{versions}?deleted=maybe&deleted=true").status_code == 400
    assert anon.get(f"{versions}?deleted=true&deleted=maybe").json() == [1, 2]
    assert (Version.objects.count(), AuditRecord.objects.count()) == before


@pytest.mark.django_db
def test_a_blank_boolean_or_integer_is_absent_and_an_unknown_parameter_is_ignored(subject, anon):
    versions = f"/confluent/subjects/{subject}/versions"
    for query in ("deleted=", "deleted=%20", "deleted=%20%20&limit=%20", "offset=", "zzunknown=1", "Deleted=true"):
        response = anon.get(f"{versions}?{query}")
        assert response.status_code == 200 and response.json() == [2], (query, response.content)
    refused = anon.get(f"{versions}?deleted=yes")
    assert refused.status_code == 400 and refused.json() == {
        "error_code": 400,
        "message": "query parameter deleted must be true or false, not 'yes'",
    }
