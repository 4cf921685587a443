"""rc4's document view (core/spec.md "Doc Flag", core/http.md "GET /export"), issue 39 item 7: `/registry/export`
is `?doc&inline=*,capabilities,modelsource`, Resources do not repeat their default version's attributes, `metaurl`
is there, links to what the answer holds are `#` JSON Pointers from its root; `?doc` on a Resource answers its
metadata and inlines only what `?inline` asks. An export of each rc4 sample imports into an empty registry and
exports again unchanged."""

import json

import pytest

from tests.corpus import cases, corpus

from .conftest import post_json

# core/spec.md: "When a Resource is serialized as xRegistry metadata without the inherited default Version
# attributes, such as when the `doc` flag is used, it MUST adhere to the following"
RESOURCE_IN_DOC_VIEW = {"self", "xid", "metaurl", "meta", "versionsurl", "versionscount", "versions"}
LINKS = ("self", "metaurl", "defaultversionurl")
RC4_NAMES = cases(lambda: sorted(p.name for p in corpus("rc4").glob("*.xreg.json")))


@pytest.fixture(autouse=True)
def no_compatibility_checks(settings):
    """The rc4 documents make no compatibility statement (watchkam's version 2 breaks its version 1)."""
    settings.REGISTRY_DEFAULT_COMPATIBILITY = "none"


def rc4(name: str) -> dict:
    return json.loads(corpus("rc4", name).read_text())


def import_all(client) -> None:
    for path in sorted(corpus("rc4").glob("*.xreg.json")):
        response = post_json(client, "/registry/", json.loads(path.read_text()))
        assert response.status_code == 200, (path.name, response.content[:2000])


def resolve(document, reference: str):
    """The member of `document` a `#/...` reference (RFC 6901 JSON Pointer in a URI fragment) points at."""
    assert reference.startswith("#/"), reference
    node = document
    for token in reference[2:].split("/") if reference != "#/" else []:
        node = node[token.replace("~1", "/").replace("~0", "~")]
    return node


def resources_of(document: dict):
    """(group type, gid, resource type, rid, resource) of every resource in a registry document."""
    for gplural, groups in document.items():
        if not isinstance(groups, dict) or gplural in ("capabilities", "modelsource", "model"):
            continue
        for gid, group in groups.items():
            for rplural, resources in group.items():
                if rplural in ("messages", "schemas") and isinstance(resources, dict):
                    for rid, resource in resources.items():
                        yield gplural, gid, rplural, rid, resource


def entities(node):
    """Every entity (an object with `xid` and `self`) of a document view answer, walking the model's members."""
    if isinstance(node, dict):
        if isinstance(node.get("xid"), str) and isinstance(node.get("self"), str):
            yield node
        for key, value in node.items():
            if isinstance(value, dict) and key not in ("capabilities", "modelsource", "schema", "envelopemetadata"):
                yield from entities(value)


def test_export_resources_do_not_repeat_their_default_version(writer):
    import_all(writer)
    exported = writer.get("/registry/export").json()
    seen = 0
    for _gplural, _gid, rplural, rid, resource in resources_of(exported):
        singular = rplural[:-1]
        extra = set(resource) - RESOURCE_IN_DOC_VIEW - {f"{singular}id"}
        assert not extra, (rid, sorted(extra))
        assert resource[f"{singular}id"] == rid
        default = resource["meta"]["defaultversionid"]
        assert resource["versions"][default]["isdefault"] is True  # what the resource left out is there
        seen += 1
    assert seen > 50


def test_export_resources_have_their_metaurl_pointing_at_their_meta(writer):
    import_all(writer)
    exported = writer.get("/registry/export").json()
    for gplural, gid, rplural, rid, resource in resources_of(exported):
        assert resource["metaurl"] == f"#/{gplural}/{gid}/{rplural}/{rid}/meta", resource.get("metaurl")
        assert resolve(exported, resource["metaurl"]) is not None
        assert resolve(exported, resource["metaurl"])["xid"] == f"/{gplural}/{gid}/{rplural}/{rid}/meta"


def test_every_link_of_the_export_points_inside_it(writer):
    """`self`, `metaurl`, `defaultversionurl` of every entity are `#` JSON Pointers to that entity; an inlined
    collection carries no absolute `<COLLECTION>url` (OPTIONAL in document view, left out)."""
    import_all(writer)
    exported = writer.get("/registry/export").json()
    text = json.dumps(exported)
    assert "http://testserver/registry" not in text
    checked = 0
    for entity in entities(exported):
        for name in LINKS:
            if name in entity:
                target = resolve(exported, entity[name])
                expected = entity["xid"] if name == "self" else target["xid"]
                assert target["xid"] == expected, (entity["xid"], name, entity[name])
                checked += 1
        assert "formatvalidated" not in entity and "compatibilityvalidated" not in entity, entity["xid"]
    assert exported["self"] == "#/"
    assert checked > 500


@pytest.mark.corpus
@pytest.mark.parametrize("name", RC4_NAMES)
def test_an_export_reimported_into_an_empty_registry_exports_the_same(writer, name):
    """Each rc4 sample through POST /registry/, its export into an empty registry in `xr import`'s request shape
    (no Content-Type), exported again: the same document, the times of creation aside."""
    from registry.models import Group

    assert post_json(writer, "/registry/", rc4(name)).status_code == 200
    first = writer.get("/registry/export").json()
    for gplural in ("endpoints", "messagegroups", "schemagroups"):
        for gid in first.get(gplural, {}):
            assert writer.delete(f"/registry/{gplural}/{gid}?force=true").status_code == 204
    assert not Group.objects.exists()
    response = writer.generic("POST", "/registry/", json.dumps(first).encode(), content_type="")
    assert response.status_code == 200, response.content[:2000]
    second = writer.get("/registry/export").json()

    def without_times(node):
        if isinstance(node, dict):
            return {k: without_times(v) for k, v in node.items() if k not in ("createdat", "modifiedat", "epoch")}
        return node

    assert without_times(second) == without_times(first)
    assert second["epoch"] >= first["epoch"]


def test_doc_on_a_document_resource_answers_its_metadata_and_inlines_only_what_is_asked(writer):
    import_all(writer)
    path = "/registry/schemagroups/Fabrikam.Lumen/schemas/Fabrikam.Lumen.TurnedOnEventData"
    response = writer.get(f"{path}?doc")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body == {
        "schemaid": "Fabrikam.Lumen.TurnedOnEventData",
        "self": "#/",
        "xid": path.removeprefix("/registry"),
        "metaurl": f"http://testserver{path}/meta",
        "versionsurl": f"http://testserver{path}/versions",
        "versionscount": 1,
    }
    # a version too: its metadata, not its document
    version = writer.get(f"{path}/versions/1?doc").json()
    assert version["self"] == "#/" and version["versionid"] == "1" and version["format"] == "Avro/1.11"
    assert "schema" not in version
    assert writer.get(f"{path}/versions/1?doc&inline=schema").json()["schema"]["name"] == "TurnedOnEventData"


def test_doc_on_a_resource_inlines_meta_when_asked_with_links_inside_only(writer):
    import_all(writer)
    path = "/registry/messagegroups/Fabrikam.Lumen/messages/Fabrikam.Lumen.TurnedOn"
    body = writer.get(f"{path}?doc&inline=meta").json()
    assert set(body) == {"messageid", "self", "xid", "metaurl", "meta", "versionsurl", "versionscount"}
    assert body["self"] == "#/" and body["metaurl"] == "#/meta" and body["meta"]["self"] == "#/meta"
    # the default version is not in the answer: its link stays absolute ("if, and only if, ... included")
    assert body["meta"]["defaultversionurl"] == f"http://testserver{path}/versions/1"
    both = writer.get(f"{path}?doc&inline=meta,versions").json()
    assert both["meta"]["defaultversionurl"] == "#/versions/1"
    assert both["versions"]["1"]["self"] == "#/versions/1" and "versionsurl" not in both
    assert both["versions"]["1"]["dataschemaformat"] == "Avro/1.11" and "dataschemaformat" not in both


def test_doc_links_are_pointers_from_the_root_of_the_answer(writer):
    """core/spec.md's table: the same schema's `self` as seen from each level it is asked from."""
    import_all(writer)
    sid = "Fabrikam.Lumen.TurnedOnEventData"
    expected = {
        "/registry/?doc&inline=schemagroups.schemas": f"#/schemagroups/Fabrikam.Lumen/schemas/{sid}",
        "/registry/schemagroups?doc&inline=schemas": f"#/Fabrikam.Lumen/schemas/{sid}",
        "/registry/schemagroups/Fabrikam.Lumen?doc&inline=schemas": f"#/schemas/{sid}",
        "/registry/schemagroups/Fabrikam.Lumen/schemas?doc": f"#/{sid}",
        f"/registry/schemagroups/Fabrikam.Lumen/schemas/{sid}?doc": "#/",
    }
    for url, self_url in expected.items():
        answer = writer.get(url).json()
        found = [e for e in entities(answer) if e["xid"] == f"/schemagroups/Fabrikam.Lumen/schemas/{sid}"]
        assert [e["self"] for e in found] == [self_url], url
        assert resolve(answer, self_url)["xid"] == found[0]["xid"]
    group = writer.get("/registry/schemagroups/Fabrikam.Lumen?doc").json()
    assert group["self"] == "#/" and "schemas" not in group  # nothing inlined unless asked
    assert group["schemasurl"] == "http://testserver/registry/schemagroups/Fabrikam.Lumen/schemas"


def test_an_inline_flag_on_the_export_overrides_its_default(writer):
    """core/http.md "GET /export": "any `?inline` flag specified MUST override the default value defined above"."""
    import_all(writer)
    exported = writer.get("/registry/export?inline=schemagroups").json()
    assert "capabilities" not in exported and "modelsource" not in exported
    assert "endpoints" not in exported and exported["endpointsurl"] == "http://testserver/registry/endpoints"
    group = exported["schemagroups"]["Fabrikam.Lumen"]
    assert group["self"] == "#/schemagroups/Fabrikam.Lumen" and "schemas" not in group
    assert group["schemasurl"] == "http://testserver/registry/schemagroups/Fabrikam.Lumen/schemas"
    assert "schemagroupsurl" not in exported  # inlined: its link and count are left out
    whole = writer.get("/registry/export").json()
    assert {"capabilities", "modelsource", "endpoints", "messagegroups", "schemagroups"} <= set(whole)
