"""A read refused with 403 (public reads off, a caller with no role in the group: docs/teams.md) is described with
403 in the OpenAPI document (`/api/schema/`), in every binding: each GET it describes, and the checks' POSTs that only
read, asked of B's secret groups by a signed-in caller in no team; then the lookups that name the group in their
query (the older bindings' `?uri=`, the Message Catalog's group named `messagedefinition`, the map's `?root=`)."""

import re

import pytest

from .conftest import DOC, SECRET_DEF_GROUP, SECRET_GROUP, SECRET_SCHEMA

DEFINITIONS = re.compile(r"^/(definitionGroups|messagecatalog|registry/messagegroups)/")
POSTS_THAT_READ = [  # (described path, request path, body): the checks' POSTs that only read
    ("/schemaGroups/{gid}/schemas/{rid}/compatibility", "compatibility", DOC),
    ("/definitionGroups/{gid}/validate", "validate", b'{"specversion": "1.0", "type": "t"}'),
    ("/definitionGroups/{gid}/definitions/{did}/validate", "validate", b'{"specversion": "1.0"}'),
    ("/registry/messagegroups/{gid}/validate", "validate", b'{"specversion": "1.0", "type": "t"}'),
    ("/registry/messagegroups/{gid}/messages/{rid}/validate", "validate", b'{"specversion": "1.0"}'),
]


def in_secret_groups(template: str) -> str:
    """The described path with B's secret groups' ids (its schema's; a definition's id that need not exist: the
    group's rule is asked first)."""
    gid = SECRET_DEF_GROUP if DEFINITIONS.match(template) else SECRET_GROUP
    values = {"gid": gid, "rid": SECRET_SCHEMA, "did": "d", "vid": "1", "version": "1", "other": "1"}
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "x"), template)


@pytest.mark.django_db
def test_every_read_refused_with_403_describes_it(private, su):
    outsider = private["outsider"]
    schema = outsider.get("/api/schema/?format=json").json()["paths"]
    refused = {}  # (described path, method) -> the request's path, each answered 403
    for template, ops in schema.items():
        if "get" in ops and (response := outsider.get(in_secret_groups(template))).status_code == 403:
            refused[template, "get"] = response.wsgi_request.get_full_path()
    for template, _what, body in POSTS_THAT_READ:
        path = in_secret_groups(template)
        response = outsider.generic(
            "POST", path, body, content_type="application/json", headers={"Registry-format": "JsonSchema/draft-07"}
        )
        assert response.status_code == 403, (path, response.content)
        refused[template, "post"] = path
    uri = private["owner_b"].get(f"/schemaregistry/schemagroups/{SECRET_GROUP}/schemas/{SECRET_SCHEMA}")["uri"]
    body = {"format": "CloudEvents/1.0", "owners": {"team-b": "owner"}}
    assert su.put("/definitionGroups/messagedefinition", body, format="json").status_code == 201
    for template, query in (
        ("/schemaregistry/schema", {"uri": uri}),
        ("/messagecatalog/messagedefinition", {}),
        ("/map.svg", {"root": f"/schemaGroups/{SECRET_GROUP}"}),
    ):
        response = outsider.get(template, query)
        assert response.status_code == 403, (template, response.content)
        refused[template, "get"] = response.wsgi_request.get_full_path()

    undescribed = sorted(
        f"{method.upper()} {path}" for (path, method) in refused if "403" not in schema[path][method]["responses"]
    )
    assert not undescribed, undescribed
    # every binding's reads below a group were asked: 0.5, 1.0, the Schema Registry and Message Catalog APIs
    for prefix in (
        "/schemaGroups/",
        "/definitionGroups/",
        "/registry/schemagroups/",
        "/schemaregistry/",
        "/messagecatalog/",
    ):
        assert sum(path.startswith(prefix) for path, _m in refused) >= 4, (prefix, sorted(refused))
