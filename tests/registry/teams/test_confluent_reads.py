"""The Confluent API's reads with public reads off (issue 27): a subject lives in its context's schema group, so a
caller whose teams hold no role in a group with owners gets no subject, context or schema id of it: the lists leave
them out, a read naming one is 403 (40301) naming the group, a schema id only its hidden subjects have is 40403 as an
unknown one; registry admins and the group's teams read them."""

import pytest

SECRET_CONTEXT, SECRET_SUBJECT = "secret-ctx-b-61", "hidden-subject-b-27"
HIDDEN = f":.{SECRET_CONTEXT}:{SECRET_SUBJECT}"
SCHEMA = '{"type": "record", "name": "HiddenRecordB93", "fields": [{"name": "f", "type": "string"}]}'
SHARED = '{"type": "record", "name": "SharedRecord", "fields": [{"name": "g", "type": "string"}]}'


@pytest.fixture
def contexts(teams, su, settings):
    """B's secret context (a schema group owned by team-b) with a subject, the open context C with one, and a schema
    both share; public reads off."""
    assert su.put(f"/schemaGroups/{SECRET_CONTEXT}", {"owners": {"team-b": "owner"}}, format="json").status_code == 201
    ids = {}
    for subject, schema in ((HIDDEN, SCHEMA), (":.C:open", SHARED), (f":.{SECRET_CONTEXT}:shared", SHARED)):
        response = su.post(f"/confluent/subjects/{subject}/versions", {"schema": schema}, format="json")
        assert response.status_code == 200, response.content
        ids[subject] = response.json()["id"]
    settings.REGISTRY_PUBLIC_READ = False
    return ids


def body(response) -> str:
    return response.content.decode()


def assert_hidden(text: str) -> None:
    for secret in (SECRET_CONTEXT, SECRET_SUBJECT, "HiddenRecordB93"):
        assert secret not in text, (secret, text)


@pytest.mark.parametrize("path", ["/confluent/subjects", "/confluent/contexts", "/confluent/subjects?deleted=true"])
def test_lists_leave_hidden_contexts_out(teams, contexts, path):
    for name in ("outsider", "reader_a"):
        response = teams[name].get(path)
        assert response.status_code == 200, response.content
        assert_hidden(body(response))
    assert SECRET_CONTEXT in body(teams["owner_b"].get(path))
    assert SECRET_CONTEXT in body(teams["admin"].get(path))
    assert "C" in body(teams["outsider"].get(path))


READS = [
    ("GET", f"/confluent/subjects/{HIDDEN}/versions"),
    ("GET", f"/confluent/subjects/{HIDDEN}/versions/latest"),
    ("GET", f"/confluent/subjects/{HIDDEN}/versions/1/schema"),
    ("GET", f"/confluent/subjects/{HIDDEN}/versions/1/referencedby"),
    ("GET", f"/confluent/config/{HIDDEN}"),
    ("GET", f"/confluent/mode/:.{SECRET_CONTEXT}:"),
    ("POST", f"/confluent/subjects/{HIDDEN}"),
    ("POST", f"/confluent/compatibility/subjects/{HIDDEN}/versions/latest"),
]


@pytest.mark.parametrize(("method", "path"), READS, ids=[f"{m} {p.split(':')[-1]}" for m, p in READS])
def test_reads_of_a_hidden_subject_are_refused(teams, contexts, method, path):
    kwargs = {"data": {"schema": SCHEMA}, "format": "json"} if method == "POST" else {}
    response = getattr(teams["outsider"], method.lower())(path, **kwargs)
    assert response.status_code == 403, response.content
    assert response.json()["error_code"] == 40301
    assert "the role reader" in response.json()["message"] and "HiddenRecordB93" not in body(response)
    allowed = getattr(teams["owner_b"], method.lower())(path, **kwargs)
    assert allowed.status_code != 403, allowed.content


def test_schema_ids_show_only_readable_subjects(teams, contexts):
    hidden, shared = contexts[HIDDEN], contexts[":.C:open"]
    assert contexts[f":.{SECRET_CONTEXT}:shared"] == shared  # one id for the same schema in both contexts
    for path in (f"/confluent/schemas/ids/{hidden}", f"/confluent/schemas/ids/{hidden}/schema"):
        response = teams["outsider"].get(path)
        assert response.status_code == 404 and response.json()["error_code"] == 40403, response.content
        assert_hidden(body(response))
        assert teams["owner_b"].get(path).status_code == 200
    for suffix in ("subjects", "versions"):
        response = teams["outsider"].get(f"/confluent/schemas/ids/{hidden}/{suffix}")
        assert response.status_code == 404, response.content
        response = teams["outsider"].get(f"/confluent/schemas/ids/{shared}/{suffix}")
        assert response.status_code == 200 and ":.C:open" in body(response), response.content
        assert_hidden(body(response))
        assert SECRET_CONTEXT in body(teams["admin"].get(f"/confluent/schemas/ids/{shared}/{suffix}"))
    assert teams["outsider"].get(f"/confluent/schemas/ids/{shared}").status_code == 200


def test_public_reads_show_every_context(teams, contexts, settings, anon):
    settings.REGISTRY_PUBLIC_READ = True
    assert SECRET_SUBJECT in body(anon.get("/confluent/subjects"))
    assert anon.get(f"/confluent/subjects/{HIDDEN}/versions").status_code == 200


def test_referenced_by_leaves_out_hidden_referrers(teams, contexts, su, settings):
    settings.REGISTRY_PUBLIC_READ = True
    referrer = {
        "schema": '{"type": "record", "name": "HiddenRefB", "fields": [{"name": "x", "type": "SharedRecord"}]}',
        "references": [{"name": "SharedRecord", "subject": ":.C:open", "version": 1}],
    }
    response = su.post(f"/confluent/subjects/:.{SECRET_CONTEXT}:referrer/versions", referrer, format="json")
    assert response.status_code == 200, response.content
    hidden_id = response.json()["id"]
    settings.REGISTRY_PUBLIC_READ = False
    path = "/confluent/subjects/:.C:open/versions/1/referencedby"
    assert teams["admin"].get(path).json() == [hidden_id]
    assert teams["owner_b"].get(path).json() == [hidden_id]
    assert teams["outsider"].get(path).json() == []
