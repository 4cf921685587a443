"""The query flags the OpenAPI description (`/api/schema/`) gives each operation are the flags the binding takes
there, and the 1.0 binding's `/capabilities` offers exactly the spec's flags its operations describe: all three are
made from one declaration per level and method (`RegistryView.flags`), so they cannot disagree."""

import pytest
from django.conf import settings

from registry.domain.model import registry_model

IDS = {"{gid}": "g1", "{rid}": "r1", "{vid}": "1"}
OWN_FLAGS = {"owners", "force"}  # the 1.0 import's own flags, not the spec's


def described(client, tag: str | None = None) -> dict:
    """{(path, method): the names of its query parameters} of the OpenAPI description (of the operations `tag`
    marks)."""
    schema = client.get("/api/schema/?format=json").json()
    return {
        (path, method): {p["name"] for p in op.get("parameters", []) if p["in"] == "query"}
        for path, ops in schema["paths"].items()
        for method, op in ops.items()
        if isinstance(op, dict) and "responses" in op and (tag is None or tag in op.get("tags", []))
    }


def everything(client) -> bytes:
    response = client.get("/?inline")
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.django_db
def test_every_0_5_operation_takes_the_flags_it_describes_and_refuses_others(su):
    """An unknown flag is refused (400, nothing written) naming the flags allowed there: those described, and the
    paging token `page` (given by Link headers only)."""
    plurals = {f"/{gt.plural}" for gt in registry_model.group_types}
    before = everything(su)
    checked = 0
    for (path, method), names in described(su).items():
        if path != "/" and not any(path == p or path.startswith(p + "/") for p in plurals):
            continue  # not the 0.5 binding's
        url = path
        for placeholder, value in IDS.items():
            url = url.replace(placeholder, value)
        response = su.generic(method.upper(), f"{url}?zzunknown=1", "{}", "application/json")
        assert response.status_code == 400, (method, url, response.content)
        allowed = response.json()["detail"].split("allowed here: ")[1]
        assert set(allowed.split(", ")) - {"none", "page"} == names, (method, path)
        checked += 1
    assert checked > 20
    assert everything(su) == before


@pytest.mark.django_db
def test_every_older_binding_operation_takes_the_flags_it_describes_and_refuses_others(su):
    """The Schema Registry and Message Catalog APIs as 0.5 above: an unknown flag is refused (400, nothing written)
    naming the flags allowed there, those described (a lookup is asked with its `uri`: the Message Catalog's path
    without it is a group's, which takes no flag)."""
    before = everything(su)
    checked = 0
    for (path, method), names in described(su).items():
        if not path.startswith(("/schemaregistry/", "/messagecatalog")):
            continue
        url = path
        for placeholder, value in {**IDS, "{version}": "1"}.items():
            url = url.replace(placeholder, value)
        query = "uri=urn%3Ax&zzunknown=1" if "uri" in names else "zzunknown=1"
        response = su.generic(method.upper(), f"{url}?{query}", "{}", "application/json")
        assert response.status_code == 400, (method, url, response.content)
        allowed = response.json()["detail"].split("allowed here: ")[1]
        assert set(allowed.split(", ")) - {"none", "page"} == names, (method, path)
        checked += 1
    assert (
        checked == 2 * 13 + 3
    )  # each binding's 13 operations; the Message Catalog's POST of a group, lookup's PUT, DELETE
    # (OPTIONS, the Message Catalog's features, is in no OpenAPI description: drf-spectacular leaves the method out)
    response = su.options("/messagecatalog?zzunknown=1")
    assert response.status_code == 400 and response.json()["detail"].endswith("allowed here: none")
    assert everything(su) == before


@pytest.mark.django_db
def test_the_1_0_capabilities_offer_the_flags_its_operations_describe(client):
    root = settings.REGISTRY_XR10_PATH.rstrip("/")
    offered = client.get(f"{root}/capabilities").json()["flags"]
    in_1_0 = set().union(*described(client, "xregistry-1.0").values())
    assert sorted(in_1_0 - OWN_FLAGS) == offered
    assert {"binary", "ignore", "specversion"} <= set(offered)  # taken, and offered, before they were described
    values = {"inline": "*", "filter": "schemagroupid=x", "limit": "5", "sort": "schemagroupid", "specversion": "1.0"}
    for name in described(client)[(f"{root}/schemagroups", "get")]:
        response = client.get(f"{root}/schemagroups", {name: values.get(name, "")})
        assert response.status_code == 200, (name, response.content)
