"""The rules of the 1.0 binding at `/registry` (CONTRACT section 11, core/http.md), one test per rule."""

import base64
import json

from django.contrib.auth.models import User

from registry.models import Group, OutboxEvent, Resource, Version

from .conftest import post_json

SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}}
SPEC = "https://github.com/xregistry/spec/blob/main/core/spec.md#"


def put_schema(client, gid="g1", sid="s1", doc=SCHEMA, fmt="JsonSchema/draft-07"):
    return client.put(
        f"/registry/schemagroups/{gid}/schemas/{sid}",
        data=json.dumps(doc).encode(),
        content_type="application/json",
        HTTP_XREGISTRY_FORMAT=fmt,
    )


def test_discovery_points_to_the_binding(client, db):
    data = client.get("/.well-known/xregistry").json()
    assert data["xregistry"][0]["url"] == "http://testserver/registry/"
    assert data["xregistry"][0]["specversions"] == ["1.0-rc4"]


def test_root_has_the_registry_attributes_and_a_root_link(client, db):
    response = client.get("/registry/")
    data = response.json()
    assert data["specversion"] == "1.0-rc4" and data["xid"] == "/" and data["self"] == "http://testserver/registry/"
    for plural in ("endpoints", "messagegroups", "schemagroups"):
        assert data[f"{plural}url"] == f"http://testserver/registry/{plural}" and data[f"{plural}count"] == 0
    assert "<http://testserver/registry/>;rel=xregistry-root" in response["Link"]
    assert client.get("/registry").status_code == 200


def test_model_is_the_cloudevents_model_and_cannot_change(writer):
    model = writer.get("/registry/model").json()
    assert set(model["groups"]) == {"endpoints", "messagegroups", "schemagroups"}
    assert model["groups"]["messagegroups"]["resources"]["messages"]["hasdocument"] is False
    assert "messageid" in model["groups"]["messagegroups"]["resources"]["messages"]["attributes"]
    source = writer.get("/registry/modelsource").json()
    response = post_json(writer, "/registry/modelsource", source, "put")
    assert response.status_code == 400 and response.json()["type"] == SPEC + "model_error"
    assert writer.get("/registry/modelsource").json() == source


def test_capabilities_are_stated_and_changes_refused(writer):
    caps = writer.get("/registry/capabilities").json()
    assert caps["specversions"] == ["1.0-rc4"] and "inline" in caps["flags"] and caps["pagination"] is True
    assert caps["available"]["entities"] == {"mutable": True}
    response = post_json(writer, "/registry/capabilities", {"specversions": ["0.9"]}, "patch")
    assert response.status_code == 400 and response.json()["type"] == SPEC + "capability_value"
    response = post_json(writer, "/registry/capabilities", {"bogus": True}, "patch")
    assert response.json()["type"] == SPEC + "capability_unknown"
    assert writer.get("/registry/capabilities").json() == caps
    assert set(writer.get("/registry/capabilitiesoffered").json()) == set(caps)


def test_group_put_get_epoch_and_delete(writer):
    response = post_json(writer, "/registry/schemagroups/g1", {"description": "d", "labels": {"team": "a"}}, "put")
    assert response.status_code == 201
    group = response.json()
    assert group["schemagroupid"] == "g1" and group["xid"] == "/schemagroups/g1" and group["epoch"] == 1
    assert group["labels"] == {"team": "a"} and group["schemascount"] == 0
    assert Group.objects.get(gid="g1").tags == {"team": "a"}  # one store: 0.5 `tags`
    assert writer.get("/schemaGroups/g1").json()["tags"] == {"team": "a"}
    updated = post_json(writer, "/registry/schemagroups/g1", {"description": "e", "epoch": 1}, "put").json()
    assert updated["epoch"] == 2 and updated["description"] == "e" and "labels" not in updated
    stale = post_json(writer, "/registry/schemagroups/g1", {"description": "f", "epoch": 1}, "put")
    assert stale.status_code == 400 and stale.json()["type"] == SPEC + "mismatched_epoch"
    assert writer.get("/registry/schemagroups/g1").json()["description"] == "e"
    patched = post_json(writer, "/registry/schemagroups/g1", {"name": "N"}, "patch").json()
    assert patched["name"] == "N" and patched["description"] == "e"
    assert writer.delete("/registry/schemagroups/g1").status_code == 204
    missing = writer.get("/registry/schemagroups/g1")
    assert missing.status_code == 404 and missing["Content-Type"] == "application/problem+json"
    assert missing.json()["type"] == SPEC + "not_found" and missing.json()["subject"] == "/schemagroups/g1"


def test_schema_document_and_details(writer):
    assert put_schema(writer).status_code == 201  # the group is created implicitly
    response = writer.get("/registry/schemagroups/g1/schemas/s1")
    assert response.status_code == 200 and json.loads(response.content) == SCHEMA
    assert response["xRegistry-schemaid"] == "s1" and response["xRegistry-versionid"] == "1"
    assert response["xRegistry-format"] == "JsonSchema/draft-07" and response["xRegistry-isdefault"] == "true"
    details = writer.get("/registry/schemagroups/g1/schemas/s1$details").json()
    assert details["versionid"] == "1" and details["metaurl"].endswith("/schemas/s1/meta")
    assert details["versionscount"] == 1 and "schema" not in details
    inlined = writer.get("/registry/schemagroups/g1/schemas/s1$details?inline=schema").json()
    assert inlined["schema"] == SCHEMA
    # the 0.5 binding serves the same document
    assert json.loads(writer.get("/schemaGroups/g1/schemas/s1").content) == SCHEMA


def test_document_headers_in_the_resource_and_the_version_form(writer):
    """core/http.md: a resource's document carries the resource's self and xid with its metaurl, versionsurl and
    versionscount (Content-Location the default version); a version's carries its own and no resource-level
    attribute; contenttype is the Content-Type; Content-Disposition names the resource"""
    created = put_schema(writer)
    base = "http://testserver/registry/schemagroups/g1/schemas/s1"
    assert created.status_code == 201 and created["Location"] == base
    assert created["xRegistry-self"] == base and created["Content-Location"] == base + "/versions/1"
    resource = writer.get("/registry/schemagroups/g1/schemas/s1")
    assert resource["xRegistry-self"] == base and resource["xRegistry-xid"] == "/schemagroups/g1/schemas/s1"
    assert resource["xRegistry-versionid"] == "1" and resource["xRegistry-versionscount"] == "1"
    assert resource["xRegistry-metaurl"] == base + "/meta" and resource["xRegistry-versionsurl"] == base + "/versions"
    assert resource["Content-Location"] == base + "/versions/1" and resource["Content-Disposition"] == "s1"
    assert resource["Content-Type"] == "application/json" and not resource.has_header("xRegistry-contenttype")
    version = writer.get("/registry/schemagroups/g1/schemas/s1/versions/1")
    assert version["xRegistry-self"] == base + "/versions/1"
    assert version["xRegistry-xid"] == "/schemagroups/g1/schemas/s1/versions/1"
    assert version["xRegistry-schemaid"] == "s1" and version["xRegistry-isdefault"] == "true"
    assert version["Content-Disposition"] == "s1"
    for resource_level in (
        "xRegistry-metaurl",
        "xRegistry-versionsurl",
        "xRegistry-versionscount",
        "xRegistry-contenttype",
    ):
        assert not version.has_header(resource_level), resource_level
    v2 = writer.put(
        "/registry/schemagroups/g1/schemas/s1/versions/2",
        data=json.dumps({"type": "object"}).encode(),
        content_type="application/json",
        HTTP_XREGISTRY_FORMAT="JsonSchema/draft-07",
    )
    assert v2.status_code == 201 and v2["Location"] == base + "/versions/2"
    assert v2["xRegistry-self"] == base + "/versions/2" and not v2.has_header("xRegistry-versionscount")


def test_versions_ancestor_default_and_sticky_meta(writer):
    put_schema(writer)
    v2 = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
    created = post_json(
        writer, "/registry/schemagroups/g1/schemas/s1$details", {"schema": v2, "format": "JsonSchema/draft-07"}
    )
    assert created.status_code == 201
    assert created.json()["versionid"] == "2" and created.json()["ancestorid"] == "1"
    versions = writer.get("/registry/schemagroups/g1/schemas/s1/versions").json()
    assert [versions["1"]["isdefault"], versions["2"]["isdefault"]] == [False, True]
    meta = post_json(writer, "/registry/schemagroups/g1/schemas/s1/meta", {"defaultversionid": "1"}, "patch").json()
    assert meta["defaultversionid"] == "1" and meta["defaultversionsticky"] is True
    assert json.loads(writer.get("/registry/schemagroups/g1/schemas/s1").content) == SCHEMA
    encoded = base64.b64encode(json.dumps({"type": "object"}).encode()).decode()
    put = post_json(
        writer,
        "/registry/schemagroups/g1/schemas/s1/versions/3$details",
        {"schemabase64": encoded, "format": "JsonSchema/draft-07"},
        "put",
    )
    assert put.status_code == 201 and put.json()["isdefault"] is False  # sticky default stays
    unstick = post_json(writer, "/registry/schemagroups/g1/schemas/s1/meta", {"defaultversionsticky": False}, "patch")
    assert unstick.json()["defaultversionid"] == "3"
    assert writer.delete("/registry/schemagroups/g1/schemas/s1/versions/3").status_code == 204
    assert writer.get("/registry/schemagroups/g1/schemas/s1/meta").json()["defaultversionid"] == "2"


def test_meta_compatibility_is_the_level_that_applies_and_can_be_set(writer):
    put_schema(writer)
    assert writer.get("/registry/schemagroups/g1/schemas/s1/meta").json()["compatibility"] == "backward_transitive"
    post_json(writer, "/registry/schemagroups/g1/schemas/s1/meta", {"compatibility": "none"}, "patch")
    incompatible = {"type": "string"}
    response = post_json(
        writer,
        "/registry/schemagroups/g1/schemas/s1$details",
        {"schema": incompatible, "format": "JsonSchema/draft-07"},
    )
    assert response.status_code == 201
    post_json(writer, "/registry/schemagroups/g1/schemas/s1/meta", {"compatibility": "backward"}, "patch")
    refused = post_json(
        writer,
        "/registry/schemagroups/g1/schemas/s1$details",
        {"schema": {"type": "object"}, "format": "JsonSchema/draft-07"},
    )
    assert refused.status_code == 400 and refused.json()["type"] == SPEC + "compatibility_violation"
    assert Version.objects.filter(resource__rid="s1").count() == 2


def test_message_written_in_10_is_a_05_definition(writer):
    body = {
        "envelope": "CloudEvents/1.0",
        "messages": {
            "m1": {
                "envelope": "CloudEvents/1.0",
                "envelopemetadata": {"type": {"value": "com.example.a"}},
                "dataschemaformat": "JsonSchema/draft-07",
                "dataschemauri": "/schemagroups/g1/schemas/s1",
            }
        },
    }
    put_schema(writer)
    assert post_json(writer, "/registry/messagegroups/mg", body, "put").status_code == 201
    definition = writer.get("/definitionGroups/mg/definitions/m1").json()
    assert definition["format"] == "CloudEvents/1.0"
    assert definition["metadata"] == {"attributes": {"type": {"value": "com.example.a"}}}
    assert definition["schemaurl"] == "#/schemaGroups/g1/schemas/s1"
    message = writer.get("/registry/messagegroups/mg/messages/m1").json()
    # rc4's model defaults of the CloudEvents `type` attribute are shown, not stored (the 0.5 read above)
    assert message["envelopemetadata"] == {"type": {"value": "com.example.a", "type": "string", "required": True}}
    assert message["dataschemauri"] == "/schemagroups/g1/schemas/s1" and message["messageid"] == "m1"
    group = writer.get("/registry/messagegroups/mg?inline=messages").json()
    assert group["envelope"] == "CloudEvents/1.0" and set(group["messages"]) == {"m1"}


def test_message_without_envelope_or_protocol_is_accepted_in_10(writer):
    assert post_json(writer, "/registry/messagegroups/plain", {}, "put").status_code == 201
    response = post_json(writer, "/registry/messagegroups/plain/messages/m", {"description": "x"}, "put")
    assert response.status_code == 201, response.content
    assert writer.get("/registry/messagegroups/plain/messages/m").json()["description"] == "x"


def test_invalid_message_is_refused_naming_the_attribute_and_nothing_written(writer):
    post_json(writer, "/registry/messagegroups/mg", {"envelope": "CloudEvents/1.0"}, "put")
    before = OutboxEvent.objects.count()
    response = post_json(
        writer,
        "/registry/messagegroups/mg/messages/bad",
        {"envelope": "CloudEvents/1.0", "envelopemetadata": {"type": {"required": False}}},
        "put",
    )
    assert response.status_code == 400
    assert "type" in response.json()["detail"] and "/messagegroups/mg" in response.json()["detail"]
    assert "definitionGroups" not in response.json()["detail"]
    assert not Resource.objects.filter(rid="bad").exists() and OutboxEvent.objects.count() == before


def test_05_attribute_names_are_refused_by_name(writer):
    post_json(writer, "/registry/messagegroups/mg", {"envelope": "CloudEvents/1.0"}, "put")
    response = post_json(writer, "/registry/messagegroups/mg/messages/m", {"format": "CloudEvents/1.0"}, "put")
    assert response.status_code == 400 and "'format'" in response.json()["detail"]
    response = post_json(writer, "/registry/schemagroups/g", {"tags": {"a": "b"}}, "put")
    assert response.status_code == 400 and "labels" in response.json()["detail"]
    assert not Group.objects.filter(gid="g").exists()
    assert not Resource.objects.filter(rid="m").exists()


def test_unknown_flag_is_a_bad_flag_error(client, db):
    response = client.get("/registry/?bogus=1")
    assert response.status_code == 400 and response.json()["type"] == SPEC + "bad_flag"


def test_inline_paths(writer):
    put_schema(writer)
    shallow = writer.get("/registry/?inline=schemagroups").json()
    assert "schemas" not in shallow["schemagroups"]["g1"] and shallow["schemagroups"]["g1"]["schemascount"] == 1
    deep = writer.get("/registry/?inline=schemagroups.schemas").json()
    assert set(deep["schemagroups"]["g1"]["schemas"]) == {"s1"}
    everything = writer.get("/registry/?inline=*").json()
    assert "versions" in everything["schemagroups"]["g1"]["schemas"]["s1"]
    assert "model" not in everything
    assert "model" in writer.get("/registry/?inline=model").json()


def test_writes_need_credentials_and_basic_auth_is_accepted(client, db):
    response = post_json(client, "/registry/schemagroups/g1", {}, "put")
    assert response.status_code in (401, 403) and not Group.objects.exists()
    User.objects.create_superuser("basic", "b@example.com", "secret")
    token = base64.b64encode(b"basic:secret").decode()
    response = client.put(
        "/registry/schemagroups/g1", data="{}", content_type="application/json", HTTP_AUTHORIZATION=f"Basic {token}"
    )
    assert response.status_code == 201 and Group.objects.get(gid="g1").created_by == "basic"


def test_a_write_through_10_emits_the_same_change_event(writer):
    post_json(writer, "/registry/schemagroups/g1", {}, "put")
    event = OutboxEvent.objects.latest("created_at")
    assert event.subject == "/schemaGroups/g1" and event.type.endswith("updated.v1")


def test_whole_registry_answers_are_kept_but_never_stale(writer):
    first = writer.get("/registry/export")
    assert writer.get("/registry/export", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert "g9" not in first.json()["schemagroups"]
    post_json(writer, "/registry/schemagroups/g9", {"description": "new"}, "put")
    second = writer.get("/registry/export")
    assert second["ETag"] != first["ETag"] and second.json()["schemagroups"]["g9"]["description"] == "new"
    assert "g9" in writer.get("/registry/?inline=schemagroups").json()["schemagroups"]


def test_filter_sort_and_ignore_in_10_names(writer):
    for gid, label in (("b", "x"), ("a", "y"), ("c", "x")):
        post_json(writer, f"/registry/schemagroups/{gid}", {"labels": {"team": label}, "name": gid.upper()}, "put")
    found = writer.get("/registry/schemagroups?filter=labels.team=x").json()
    assert set(found) == {"b", "c"}
    assert set(writer.get("/registry/schemagroups?filter=schemagroupid=a").json()) == {"a"}
    assert list(writer.get("/registry/schemagroups?sort=name=desc").json()) == ["c", "b", "a"]
    refused = writer.get("/registry/schemagroups/a?sort=name")
    assert refused.status_code == 400 and refused.json()["type"].endswith("#sort_noncollection")
    # an exported group (stale epoch inside) written back with ?ignore=epoch
    stale = post_json(writer, "/registry/schemagroups/a?ignore=epoch", {"epoch": 99, "description": "back"}, "put")
    assert stale.status_code == 200 and stale.json()["description"] == "back"
    assert writer.get("/registry/schemagroups?ignore=bogus").status_code == 400


def test_filter_keeps_only_the_matching_versions(writer):
    """core/spec.md "Filter Flag": a versions collection is filtered like any other (it was answered whole)."""
    for n in range(3):
        doc = {**SCHEMA, "description": f"v{n}"}
        post_json(writer, "/registry/schemagroups/g/schemas/s/versions", {str(n + 1): {"schema": doc}}, "patch")
    assert Version.objects.count() == 3
    versions = "/registry/schemagroups/g/schemas/s/versions"
    assert set(writer.get(f"{versions}?filter=versionid=2").json()) == {"2"}
    assert set(writer.get(f"{versions}?filter=versionid=9").json()) == set()
    assert set(writer.get(f"{versions}?filter=versionid!=2").json()) == {"1", "3"}
    assert set(writer.get(f"{versions}").json()) == {"1", "2", "3"}


def test_sort_comes_before_paging(writer):
    """pagination/spec.md: each page is a slice of the sorted collection, not a sorted slice of id order"""
    post_json(writer, "/registry/schemagroups/s", {"name": "U"}, "put")
    for gid, name in (("a", "Z"), ("b", "Y"), ("c", "X"), ("d", "W"), ("e", "V")):
        post_json(writer, f"/registry/schemagroups/{gid}", {"name": name}, "put")
        post_json(
            writer,
            f"/registry/schemagroups/s/schemas/{gid}$details",
            {"name": name, "format": "JsonSchema/draft-07", "schema": {}},
            "put",
        )
    for collection, ids in (
        ("/registry/schemagroups", ["s", "e", "d", "c", "b", "a"]),
        ("/registry/schemagroups/s/schemas", ["e", "d", "c", "b", "a"]),
    ):
        pages, url = [], f"{collection}?sort=name&limit=2"
        while url:
            answer = writer.get(url)
            assert answer.status_code == 200
            pages.append(list(answer.json()))
            following = [link for link in answer["Link"].split(", ") if link.endswith(f";rel=next;count={len(ids)}")]
            url = following[0].split(">")[0].lstrip("<") if following else None
            assert len(pages) <= 3
        assert pages == [ids[i : i + 2] for i in range(0, len(ids), 2)]
        assert list(writer.get(f"{collection}?sort=name=desc&limit=3").json()) == ids[::-1][:3]


def test_a_versions_collection_is_paged_and_names_each_ancestor(writer):
    """Issue 40: `?limit` pages a resource's versions (oldest first) with a `Link` to the next page, as groups and
    resources; each version's `ancestorid` is the one created before it (the collection is rendered in one pass)."""
    for n in range(1, 6):
        answer = writer.put(
            f"/registry/schemagroups/g/schemas/s/versions/v{n}",
            data=json.dumps({"title": f"v{n}"}).encode(),
            content_type="application/json",
            HTTP_XREGISTRY_FORMAT="JsonSchema/draft-07",
        )
        assert answer.status_code in (200, 201), answer.content
    pages, url = [], "/registry/schemagroups/g/schemas/s/versions?limit=2"
    while url:
        answer = writer.get(url)
        assert answer.status_code == 200
        pages.append({vid: version["ancestorid"] for vid, version in answer.json().items()})
        following = [link for link in answer.get("Link", "").split(", ") if link.endswith(";rel=next;count=5")]
        url = following[0].split(">")[0].lstrip("<") if following else None
        assert len(pages) <= 3
    assert pages == [{"v1": "v1", "v2": "v1"}, {"v3": "v2", "v4": "v3"}, {"v5": "v4"}]
    assert len(writer.get("/registry/schemagroups/g/schemas/s/versions").json()) == 5  # the default page holds 100
    assert list(writer.get("/registry/schemagroups/g/schemas/s/versions?sort=versionid=desc&limit=2").json()) == [
        "v5",
        "v4",
    ]


def test_whole_registry_answers_are_refused_above_the_limit_naming_the_pages(writer, settings):
    """Issue 40: the export and `?inline` of the registry root hold every entity; above REGISTRY_MAX_INLINE_ENTITIES
    they are refused (too_large) with the paged collections named, never rendered into a worker's memory."""
    put_schema(writer)  # a group, a schema, a version: 3 entities
    settings.REGISTRY_MAX_INLINE_ENTITIES = 2
    for path in ("/registry/export", "/registry/?inline=*", "/registry/?inline=schemagroups.schemas.versions"):
        refused = writer.get(path)
        assert refused.status_code == 406, (path, refused.content)
        problem = refused.json()
        assert problem["type"].endswith("#too_large")
        assert "http://testserver/registry/schemagroups?limit=100" in problem["alternatives"]
        assert "?limit=100" in problem["detail"] and "rel=next" in problem["detail"]
    assert writer.get("/registry/?inline=schemagroups.schemas").status_code == 200  # the group and its schema: 2
    assert writer.get("/registry/schemagroups?limit=1").status_code == 200


def test_a_large_export_is_streamed_as_the_whole_one(writer, settings, monkeypatch):
    """Above views.STREAM_ABOVE entities the export is written group by group as it is read (a worker's memory bounded
    by a group's part), the same bytes as the whole answer, which is kept for the next read when it fits."""
    from registry.bindings.v10 import views

    for gid in ("g1", "g2", "g3"):
        put_schema(writer, gid=gid)
    assert not writer.get("/registry/export").streaming
    monkeypatch.setattr(views, "STREAM_ABOVE", 2)
    put_schema(writer, gid="g4")  # a change: what was kept is not answered again
    streamed = writer.get("/registry/export")
    assert streamed.streaming
    body = b"".join(streamed.streaming_content)
    assert sorted(json.loads(body)["schemagroups"]) == ["g1", "g2", "g3", "g4"]
    again = writer.get("/registry/export")  # kept once streamed to its end
    assert not again.streaming and again.content == body
    monkeypatch.setattr(views, "STREAM_ABOVE", 10**6)
    settings.REGISTRY_RENDERED_ANSWER_BYTES = 10**6  # forgets what was kept: rendered whole again
    assert writer.get("/registry/export").content == body


def test_collections_flag_answers_only_the_collections_and_reimports(writer):
    """core/spec.md "Collections Flag": no attribute of the registry or group, every nested collection inlined;
    the answer of the registry's is a document that POST / imports (here: the registry's own, unchanged)"""
    put_schema(writer)
    root = writer.get("/registry/?collections")
    assert root.status_code == 200
    assert set(root.json()) == {"endpoints", "messagegroups", "schemagroups"}
    schema = root.json()["schemagroups"]["g1"]["schemas"]["s1"]
    assert schema["versions"]["1"]["schema"] == SCHEMA and "meta" in schema
    group = writer.get("/registry/schemagroups/g1?collections").json()
    assert set(group) == {"schemas"} and set(group["schemas"]["s1"]["versions"]) == {"1"}
    assert post_json(writer, "/registry/", root.json()).status_code == 200
    assert writer.get("/registry/schemagroups/g1/schemas/s1/versions").json().keys() == {"1"}
    for path in (
        "/registry/schemagroups?collections",
        "/registry/schemagroups/g1/schemas/s1?collections",
        "/registry/model?collections",
    ):
        refused = writer.get(path)
        assert refused.status_code == 400 and refused.json()["type"].endswith("#bad_flag"), path
        assert refused.json()["subject"] == path.removeprefix("/registry").split("?")[0]
        assert refused.json()["args"] == {"flag": "collections"}
        assert refused.json()["title"] == (
            f"The specified flag (collections) is not allowed in this context: {refused.json()['subject']}."
        )


def test_doc_collections_and_binary_are_on_unless_false(writer):
    """1.0 reads `?doc`, `?collections` and `?binary` as on unless the value is `false`, so "0" and "no" turn them
    on (the binding's declaration: Binding.on_unless_false); its `?force`, and the 0.5 binding's `?inline`, read as
    every other flag: "0" is off"""
    put_schema(writer)
    assert set(writer.get("/registry/?collections=0").json()) == {"endpoints", "messagegroups", "schemagroups"}
    assert "registryid" in writer.get("/registry/?collections=FALSE").json()
    details = "/registry/schemagroups/g1/schemas/s1$details?inline=schema"
    assert "schemabase64" in writer.get(f"{details}&binary=no").json()
    assert "schema" in writer.get(f"{details}&binary=false").json()
    assert writer.get("/registry/schemagroups/g1/schemas/s1?doc=0")["Content-Type"].startswith("application/json")
    assert writer.get("/registry/schemagroups/g1/schemas/s1?doc=false")["Content-Type"] == "application/json"
    assert "xRegistry-schemaid" in writer.get("/registry/schemagroups/g1/schemas/s1?doc=false")
    assert "schemas" not in writer.get("/schemaGroups/g1?inline=0").json()
    assert "schemas" in writer.get("/schemaGroups/g1?inline").json()
    writer.put("/registry/schemagroups/g2", data=b"{}", content_type="application/json")
    assert writer.delete("/registry/schemagroups/g2?force=0").status_code == 204


def test_errors_carry_the_spec_title_subject_and_args(writer):
    """core/spec.md "Error Processing": each error's Title with its substitution values filled, its Subject (the
    request path, the entity's xid or the fixed path the error names) and its Args"""
    put_schema(writer)
    cases = [
        (
            writer.get("/registry/schemagroups?bogus=1"),
            "bad_flag",
            "/schemagroups",
            {"flag": "bogus"},
            "The specified flag (bogus) is not allowed in this context: /schemagroups.",
        ),
        (
            writer.get("/registry/schemagroups?sort=name=up"),
            "bad_sort",
            "/schemagroups",
            {"value": "name=up", "error_detail": "expected ATTRIBUTE[=asc|desc]"},
            'For "/schemagroups", an error was found in "sort" value (name=up): expected ATTRIBUTE[=asc|desc].',
        ),
        (
            writer.get("/registry/schemagroups/g1?sort=name"),
            "sort_noncollection",
            "/schemagroups/g1",
            None,
            "Can't sort on a non-collection result set. Query path: /schemagroups/g1.",
        ),
        (
            writer.get("/registry/?specversion=0.9"),
            "unsupported_specversion",
            "/",
            {"specversion": "0.9", "list": "1.0-rc4"},
            'The specified "specversion" value (0.9) is not supported. Supported versions: 1.0-rc4.',
        ),
        (
            post_json(writer, "/registry/schemagroups/g1", {"schemagroupid": "other"}, "put"),
            "mismatched_id",
            "/schemagroups/g1",
            {"singular": "schemagroup", "invalid_id": "other", "expected_id": "g1"},
            'The specified "schemagroupid" value (other) for "/schemagroups/g1" needs to be "g1".',
        ),
        (
            post_json(writer, "/registry/schemagroups/g1/schemas/s1/meta", {"colour": "red"}, "patch"),
            "unknown_attribute",
            "/schemagroups/g1/schemas/s1/meta",
            {"name": "colour"},
            'An unknown attribute (colour) was specified for "/schemagroups/g1/schemas/s1/meta".',
        ),
        (
            post_json(writer, "/registry/capabilities", {"flying": True}, "patch"),
            "capability_unknown",
            "/capabilities",
            {"field": "flying"},
            "Unknown capability specified: flying.",
        ),
        (post_json(writer, "/registry/model", {}, "put"), "model_error", "/model", None, None),
        (  # a lone surrogate is not stored text: the kernel's reader refuses the body for every binding
            post_json(writer, "/registry/schemagroups/g1/schemas/s1/meta", {"\ud800": 1}, "patch"),
            "parsing_data",
            "/schemagroups/g1/schemas/s1/meta",
            {"error_detail": "the body: '\\ud800' contains an unpaired surrogate (not valid Unicode)"},
            "There was an error parsing the data: the body: '\\ud800' contains an unpaired surrogate (not valid "
            "Unicode).",
        ),
    ]
    for response, error, subject, args, title in cases:
        body = response.json()
        assert response.status_code == 400 and body["type"].endswith(f"#{error}"), body
        assert body["subject"] == subject, body
        if args is not None:
            assert body["args"] == args, body
        assert body["title"] == (
            title or f"There was an error in the model definition provided: {body['args']['error_detail']}."
        ), body


def test_the_registry_epoch_moves_when_a_group_is_added_or_removed_only(writer):
    """core/spec.md "epoch": a nested collection's additions and removals update it, changes of its entities do not"""

    def registry():
        return writer.get("/registry/").json()

    start = registry()
    assert post_json(writer, "/registry/schemagroups/g1", {"description": "a"}, "put").status_code == 201
    added = registry()
    assert added["epoch"] == start["epoch"] + 1 and added["modifiedat"] >= start["modifiedat"]
    assert post_json(writer, "/registry/schemagroups/g1", {"description": "b"}, "put").status_code == 200
    assert put_schema(writer, gid="g1").status_code == 201
    assert post_json(writer, "/schemaGroups/g1", {"description": "c"}, "put").status_code == 200  # the 0.5 door too
    assert registry()["epoch"] == added["epoch"] and registry()["modifiedat"] == added["modifiedat"]
    assert writer.delete("/registry/schemagroups/g1?force=true").status_code == 204
    removed = registry()
    assert removed["epoch"] == added["epoch"] + 1 and removed["createdat"] == start["createdat"]
    assert writer.get("/registry/?inline=schemagroups").json()["epoch"] == removed["epoch"]


def test_binary_flag_inlines_documents_as_base64(writer):
    put_schema(writer)
    plain = writer.get("/registry/schemagroups/g1/schemas/s1$details?inline=schema").json()
    assert plain["schema"] == SCHEMA and "schemabase64" not in plain
    binary = writer.get("/registry/schemagroups/g1/schemas/s1$details?inline=schema&binary").json()
    assert "schema" not in binary
    assert json.loads(base64.b64decode(binary["schemabase64"])) == SCHEMA
    assert "schema" in writer.get("/registry/schemagroups/g1/schemas/s1$details?inline=schema").json()
