"""One stored meaning (issue 23): what either binding accepts, both export and import again without change. The demo
registry plus entities created through each binding (a message group without an envelope through 1.0, schemas
without a compatibility level through both) is exported by a binding, imported into an empty store by the same
binding, and read back through both bindings with no difference but what the server owns (times, epochs, links).
"""

import json

import pytest
from django.core.management import call_command

from registry.models import Group

from .adapters import CORE, XR10

SERVER_OWNED = {
    "self", "xid", "epoch", "createdat", "modifiedat", "createdOn", "modifiedOn", "createdBy", "modifiedBy",
    "shortself", "metaurl", "versionsurl", "versionscount", "defaultversionurl",
    # how the server checked a version when it was written: an import's are history (CONTRACT 18)
    "formatvalidated", "formatvalidatedreason", "compatibilityvalidated", "compatibilityvalidatedreason",
}  # fmt: skip


def _body(response):
    assert response.status_code == 200, response.content[:2000]
    return json.loads(b"".join(response.streaming_content) if response.streaming else response.content)


def _content(value):
    """An answer less what the server owns: identity links, counts, times and epochs."""
    if isinstance(value, dict):
        return {
            k: _content(v)
            for k, v in value.items()
            if k not in SERVER_OWNED and not k.endswith(("URL", "Count", "url", "count"))
        }
    if isinstance(value, list):
        return [_content(v) for v in value]
    return value


def _differences(before, after, path=""):
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for key in sorted(set(before) | set(after)):
            if key not in after:
                out.append(f"lost {path}/{key}")
            elif key not in before:
                out.append(f"gained {path}/{key}: {json.dumps(after[key])[:80]}")
            else:
                out += _differences(before[key], after[key], f"{path}/{key}")
        return out
    return [] if before == after else [f"changed {path}: {json.dumps(before)[:80]} -> {json.dumps(after)[:80]}"]


def _both(client) -> tuple[dict, dict]:
    return (
        _content(_body(client.get("/?inline"))),
        _content(_body(client.get("/registry/?inline=*"))),
    )


EXPORTS = {
    CORE.name: ("/?inline", {"HTTP_ACCEPT": "application/cloudevents-registry+json"}, "/", CORE),
    XR10.name: ("/registry/export", {}, "/registry/", XR10),
}


@pytest.mark.parametrize("name", EXPORTS)
def test_export_then_import_changes_nothing_through_either_binding(su, name):
    call_command("load_demo", verbosity=0)
    # what 1.0 clients create: a message group without an envelope, a schema without a compatibility level
    assert su.put("/registry/messagegroups/bare", {}, format="json").status_code == 201
    assert XR10.create_schema(su, "xr10.only", "s", b'{"type": "object"}', "JsonSchema/draft-07").status_code == 201
    assert su.put("/schemaGroups/core.only", {}, format="json").status_code == 201
    assert CORE.create_schema(su, "core.only", "s", b'{"type": "object"}', "JsonSchema/draft-07").status_code == 201
    before = _both(su)
    export_path, headers, import_path, _binding = EXPORTS[name]
    exported = _body(su.get(export_path, **headers))
    Group.objects.all().delete()
    response = su.generic("POST", import_path, json.dumps(exported), content_type="application/json")
    assert response.status_code == 200, response.content[:3000]
    after = _both(su)
    differences = _differences(before[0], after[0])
    if name == XR10.name:
        # rc4 serializes a model default like a value given (core/model.md "attributes.<STRING>.default"), so an
        # entity the 1.0 import creates holds the defaults its export showed: the 0.5 read gains them, loses nothing
        differences = [d for d in differences if not _a_model_default(d)]
    assert differences == [], "read through 0.5"
    assert _differences(before[1], after[1]) == [], "read through 1.0"


def _model_defaults() -> dict[str, set[str]]:
    """Every attribute name the rc4 model gives a default, with its defaults as JSON."""
    from registry.bindings.v10.capabilities import modelsource_json

    found: dict[str, set[str]] = {}

    def walk(node):
        if isinstance(node, dict):
            if "default" in node and isinstance(node.get("name"), str):
                found.setdefault(node["name"], set()).add(json.dumps(node["default"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(modelsource_json())
    return found


def _a_model_default(difference: str) -> bool:
    """`gained .../NAME: VALUE` where VALUE is a default the rc4 model declares for NAME (0.5 names: kebab case)."""
    if not difference.startswith("gained "):
        return False
    path, _, value = difference[len("gained ") :].partition(": ")
    name = path.rsplit("/", 1)[-1]
    defaults = _model_defaults()
    return value in defaults.get(name, set()) | defaults.get(name.replace("-", "_"), set())
