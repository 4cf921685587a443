"""The reference server's conformance checks (`xr conform`, xregistry/server `cmds/xr/ct_registry.go`, run
through `TestRegistry`; `ct_misc.go` `TestSniff`), ported to Django's test client against `/registry`.

`xr conform -s http://HOST/registry` does `GET http://HOST/registry/<path>`, so each Go `HttpDo("GET", "/x")`
is `GET /registry/x` here (Go's client follows redirects: `follow=True`). Before its first check `xr`
loads the registry (`xrlib.GetRegistry` -> `LoadRemoteRegistry`): `GET /model` and `GET /capabilities` must
answer 2xx and parse with Go's strict decoder (`common.Unmarshal`: unknown fields are errors, types must
match the structs `Model`/`GroupModel`/`ResourceModel`/`Attribute`/`Item` and `Capabilities`); otherwise it
stops with an error and runs nothing. `ObjCheck` (cmds/xr/td.go) is ported as `obj_check` with its typing
rules: an expected "" means the attribute must be a string, "ts" an RFC 3339 timestamp (REG_RFC3339), 0 an
integer (a JSON number with no fraction). Every check is in CONFORM.md with the test that asserts it.

Where the Go code skips (no capabilities, `capabilities` not available, `?inline` not a flag) the spec
(core/spec.md "available Capability": `capabilities`, `entities`, `model` MUST always be listed) and
CONTRACT section 11 (`?inline` is served) say the condition holds, so these tests assert it instead.
`xr conform` works on whatever model the server has; ours is fixed (the CloudEvents model), so the per-group
checks run over its three groups.
"""

import json
import re

import pytest

from tests.corpus import corpus

REG_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[-+]\d{2}:\d{2})$")
SPECVERSION = "1.0-rc4"  # common/const.go
CLOUDEVENTS_GROUPS = {"endpoints", "messagegroups", "schemagroups"}


# --- ports of the TD helpers (cmds/xr/td.go) ------------------------------------------------------------


def get(client, path):
    """reg.HttpDo("GET", path): the server URL is http://testserver/registry."""
    return client.get("/registry/" + path.lstrip("/"), follow=True)


def http_status_must_equal(res, exp, what):
    """td.HTTPStatusMustEqual: "'GET /x' MUST return 200"."""
    assert res.status_code == exp, f"'{what}' MUST return {exp}, got {res.status_code}: {res.content[:500]!r}"


def http_body_must_json(res, what):
    """td.HTTPBodyMustJSON: a non-empty body that decodes into a JSON object (Go: map[string]any)."""
    assert len(res.content) > 0, f"'{what}' MUST return a non-empty body"
    try:
        body = json.loads(res.content)
    except ValueError:
        body = None
    assert isinstance(body, dict), f"'{what}' MUST return a JSON body: {res.content[:500]!r}"
    return body


def _kind(exp):
    if isinstance(exp, bool):
        return "bool"
    if isinstance(exp, str):
        return "timestamp" if exp in ("ts", "YYYY-MM-DD") or REG_RFC3339.match(exp) else "string"
    if isinstance(exp, int):
        return "int"
    if isinstance(exp, float):
        return "float"
    return "any"


def _typed(value, kind):
    """The attribute's value as `kind`, or raise AssertionError as ObjCheck's type mismatch does."""
    if kind == "string":
        assert isinstance(value, str), f"{value!r} MUST be of type 'string'"
        return value
    if kind == "timestamp":
        assert isinstance(value, str) and REG_RFC3339.match(value), f"{value!r} MUST be of type 'timestamp'"
        return value
    if kind == "int":
        assert isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer(), (
            f"{value!r} MUST be of type 'int'"
        )
        return int(value)
    if kind == "bool":
        assert isinstance(value, bool), f"{value!r} MUST be of type 'bool'"
        return value
    return value


def obj_check(obj, attr, *, required=False, op="=", exp=None):
    """td.ObjCheck with must=MUST (the only level ct_registry.go uses): a missing attribute fails if
    required (or op is "exists"), passes otherwise; a present one must have exp's type and satisfy op."""
    if attr not in obj:
        assert not (required or op == "exists"), f"{attr!r} MUST be present, but is missing"
        return
    if op == "not exists":
        raise AssertionError(f"{attr!r} MUST NOT be present, but is: {obj[attr]!r}")
    kind = _kind(exp) if exp is not None else "any"
    value = _typed(obj[attr], kind)
    if op == "exists":
        return
    if kind == "timestamp" and exp in ("ts", "YYYY-MM-DD"):
        assert op == "=", "only '=' is meaningful against a timestamp placeholder"
        return
    checks = {
        "=": value == exp,
        "!=": value != exp,
        "<": value < exp,
        "<=": value <= exp,
        ">": value > exp,
        ">=": value >= exp,
    }
    assert checks[op], f"{attr!r} ({value!r}) MUST {op} {exp!r}"


def make_url(*parts):
    """common.MakeURL: the first part trimmed of '/', the others appended with '/'."""
    base, _, query = parts[0].partition("?")
    base = base.strip().strip("/")
    for part in parts[1:]:
        part = part.strip().strip("/")
        if part:
            base = f"{base}/{part}" if base else part
    return base + (f"?{query}" if query else "")


# --- ports of the strict decoders (common.ParseCapabilities, common/shared_model ParseModel) ----------

STR, BOOL, INT, ANY = "string", "bool", "int", "any"
STRMAP = ("map", STR)
STRLIST = ("list", STR)

CAPABILITIES = {  # common/capabilities.go type Capabilities (DisallowUnknownFields)
    "available": ("map", {"mutable": BOOL}),
    "compatibilities": ("map", STRLIST),
    "flags": STRLIST,
    "formats": STRLIST,
    "ignores": STRLIST,
    "pagination": BOOL,
    "shortself": BOOL,
    "specversions": STRLIST,
    "versionmodes": STRLIST,
}
ITEM: dict = {"type": STR, "target": STR, "namecharset": STR}
ATTRIBUTE: dict = {
    "name": STR,
    "type": STR,
    "target": STR,
    "namecharset": STR,
    "description": STR,
    "enum": ("list", ANY),
    "strict": BOOL,
    "matchversions": BOOL,
    "readonly": BOOL,
    "immutable": BOOL,
    "required": BOOL,
    "default": ANY,
}
ITEM.update({"attributes": ("map", ATTRIBUTE), "item": ITEM})
ATTRIBUTE.update(
    {"attributes": ("map", ATTRIBUTE), "item": ITEM, "ifvalues": ("map", {"siblingattributes": ("map", ATTRIBUTE)})}
)
RESOURCE = {
    "sid": STR,
    "plural": STR,
    "singular": STR,
    "description": STR,
    "documentation": STR,
    "icon": STR,
    "labels": STRMAP,
    "modelversion": STR,
    "modelcompatiblewith": STR,
    "maxversions": INT,
    "setversionid": BOOL,
    "hasdocument": BOOL,
    "versionmode": STR,
    "singleversionroot": BOOL,
    "validateformat": BOOL,
    "validatecompatibility": BOOL,
    "strictvalidation": BOOL,
    "typemap": STRMAP,
    "ximportorigin": STR,
    "attributes": ("map", ATTRIBUTE),
    "resourceattributes": ("map", ATTRIBUTE),
    "metaattributes": ("map", ATTRIBUTE),
}
GROUP = {
    "sid": STR,
    "plural": STR,
    "singular": STR,
    "description": STR,
    "documentation": STR,
    "icon": STR,
    "labels": STRMAP,
    "modelversion": STR,
    "modelcompatiblewith": STR,
    "attributes": ("map", ATTRIBUTE),
    "ximportresources": STRLIST,
    "constraints": ("map", {"default": ANY, "enum": ("list", ANY), "equals": STR}),
    "resources": ("map", RESOURCE),
}
MODEL = {
    "source": STR,
    "description": STR,
    "documentation": STR,
    "labels": STRMAP,
    "attributes": ("map", ATTRIBUTE),
    "groups": ("map", GROUP),
}


def strict_decode(value, shape, path="$"):
    """What Go's json.Decoder with DisallowUnknownFields accepts for `shape`; returns the problems.
    null decodes into any field (pointer, map, slice, or a zero value)."""
    if value is None or shape == ANY:
        return []
    if shape == STR:
        return [] if isinstance(value, str) else [f"{path}: {value!r} is not a string"]
    if shape == BOOL:
        return [] if isinstance(value, bool) else [f"{path}: {value!r} is not a boolean"]
    if shape == INT:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer()
        return [] if ok else [f"{path}: {value!r} is not an integer"]
    if isinstance(shape, tuple):
        kind, inner = shape
        if kind == "map":
            if not isinstance(value, dict):
                return [f"{path}: {type(value).__name__} is not an object"]
            return [p for k, v in value.items() for p in strict_decode(v, inner, f"{path}.{k}")]
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__} is not an array"]
        return [p for i, v in enumerate(value) for p in strict_decode(v, inner, f"{path}[{i}]")]
    if not isinstance(value, dict):
        return [f"{path}: {type(value).__name__} is not an object"]
    problems = [f"{path}: unknown field {k!r}" for k in value if k not in shape]
    return problems + [p for k, v in value.items() if k in shape for p in strict_decode(v, shape[k], f"{path}.{k}")]


def parse_capabilities(body: bytes) -> dict:
    caps = json.loads(body)
    problems = strict_decode(caps, CAPABILITIES)
    assert not problems, f"Parsing capabilities MUST work (xr's decoder refuses: {problems})"
    return caps


def parse_model(body: bytes) -> dict:
    model = json.loads(body)
    assert isinstance(model, dict), "Parsing model MUST work: not a JSON object"
    model.pop("$schema", None)  # RemoveSchema
    problems = strict_decode(model, MODEL)
    assert not problems, f"Parsing model MUST work (xr's decoder refuses: {problems})"
    return model


@pytest.fixture
def loaded(anon):
    """xrlib.GetRegistry -> LoadRemoteRegistry: /model and /capabilities read before any check. The strict
    parse that `xr` also does here is test_load_registry_parses_model_and_capabilities; this fixture only
    needs JSON, so that each check below reports its own finding (xr itself stops at the first)."""
    model_res = anon.get("/registry/model")
    assert model_res.status_code // 100 == 2, f"xr cannot read /model: {model_res.status_code}"
    caps_res = anon.get("/registry/capabilities")
    assert caps_res.status_code // 100 == 2, f"xr cannot read /capabilities: {caps_res.status_code}"
    return {"model": json.loads(model_res.content), "capabilities": json.loads(caps_res.content)}


# --- LoadRemoteRegistry (before the first check) ----------------------------------------------------------


def test_load_registry_parses_model_and_capabilities(anon):
    """Rows L1, L2: GET /model and GET /capabilities answer 2xx and parse with xr's strict decoders; if
    not, `xr conform` stops before its first check."""
    model_res = anon.get("/registry/model")
    assert model_res.status_code // 100 == 2, f"xr cannot read /model: {model_res.status_code}"
    model = parse_model(model_res.content)
    assert set(model.get("groups") or {}) == CLOUDEVENTS_GROUPS  # the fixed CloudEvents model
    caps_res = anon.get("/registry/capabilities")
    assert caps_res.status_code // 100 == 2, f"xr cannot read /capabilities: {caps_res.status_code}"
    parse_capabilities(caps_res.content)


# --- TestSniff (ct_misc.go) -------------------------------------------------------------------------------


def test_sniff_get_root(loaded, anon):
    """Rows 3-6."""
    res = get(anon, "")
    http_status_must_equal(res, 200, "GET /")
    http_body_must_json(res, "GET /")


# --- TestCapabilities ------------------------------------------------------------------------------------


def test_capabilities_are_available(loaded):
    """The Go test skips when the server has no capabilities or `capabilities` is not in `available`; the
    spec says `capabilities`, `entities` and `model` (not mutable) MUST always be listed, so we assert it."""
    available = loaded["capabilities"].get("available") or {}
    for key in ("capabilities", "entities", "model"):
        assert key in available, f"'available' MUST list {key!r}: {available}"
    assert available["model"] == {"mutable": False}


def test_capabilities_get(loaded, anon):
    """Rows 9-11 and 21: GET /capabilities is 200, a JSON object, and parses ("Capabilities successfully
    parsed")."""
    res = get(anon, "/capabilities")
    http_status_must_equal(res, 200, "GET /capabilities")
    http_body_must_json(res, "GET /capabilities")
    parse_capabilities(res.content)


def test_capabilities_not_in_root_without_inline(loaded, anon):
    """Rows 12-15."""
    res = get(anon, "/")
    http_status_must_equal(res, 200, "GET /")
    root = http_body_must_json(res, "GET /")
    assert "capabilities" not in root, "'GET /' MUST NOT include 'capabilities' attribute"


def test_capabilities_inline_equals_capabilities(loaded, anon):
    """Rows 16-20: with the `inline` flag (CONTRACT 11 serves ?inline; the Go test skips without it),
    GET /?inline=capabilities carries the same JSON as GET /capabilities."""
    assert "inline" in (loaded["capabilities"].get("flags") or []), "the 'inline' flag is served"
    res1 = get(anon, "/capabilities")
    caps = http_body_must_json(res1, "GET /capabilities")
    res2 = get(anon, "/?inline=capabilities")
    http_status_must_equal(res2, 200, "GET /?inline=capabilities")
    root = http_body_must_json(res2, "GET /?inline=capabilities")
    assert "capabilities" in root, '"capabilities" MUST be present, but is missing'
    assert root["capabilities"] == caps, "/capabilities MUST = ?inline=capabilities"


# --- TestModel -------------------------------------------------------------------------------------------


def test_model_get(loaded, anon):
    """Rows 25-27 and "Parsing model MUST work"."""
    res = get(anon, "/model")
    http_status_must_equal(res, 200, "GET /model")
    http_body_must_json(res, "GET /model")
    parse_model(res.content)


# --- TestRoot --------------------------------------------------------------------------------------------


@pytest.fixture
def root(loaded, anon):
    """Rows 32-34: GET / is 200 and a JSON object."""
    res = get(anon, "/")
    http_status_must_equal(res, 200, "GET /")
    return http_body_must_json(res, "GET /")


def test_root_specversion(root):
    """Row 35: ObjReqMustGt(specversion, "1.0") (a string comparison); the server speaks 1.0-rc4."""
    obj_check(root, "specversion", required=True, op=">", exp="1.0")
    assert root["specversion"] == SPECVERSION


def test_root_registryid_and_self(root):
    """Rows 36-37."""
    obj_check(root, "registryid", required=True, op="!=", exp="")
    obj_check(root, "self", required=True, op="!=", exp="")


def test_root_shortself_follows_capability(root, loaded):
    """Row 38: shortself present and non-empty iff the `shortself` capability is true."""
    if loaded["capabilities"].get("shortself"):
        obj_check(root, "shortself", required=True, op="!=", exp="")
    else:
        obj_check(root, "shortself", op="not exists")


def test_root_xid_and_epoch(root):
    """Rows 39-40."""
    obj_check(root, "xid", required=True, op="=", exp="/")
    obj_check(root, "epoch", required=True, op=">=", exp=0)


def test_root_optional_attributes(root):
    """Rows 41-45: name/description/documentation strings if present; icon a non-empty string if present;
    labels may be there."""
    for attr in ("name", "description", "documentation"):
        obj_check(root, attr, op="exists", exp="") if attr in root else None
    obj_check(root, "icon", op="!=", exp="")
    if "labels" in root:
        assert isinstance(root["labels"], dict | type(None))


def test_root_timestamps(root):
    """Rows 46-47."""
    obj_check(root, "createdat", required=True, op="=", exp="ts")
    obj_check(root, "modifiedat", required=True, op="=", exp="ts")


def test_root_has_no_capabilities_model_modelsource(root):
    """Rows 48-50."""
    for attr in ("capabilities", "model", "modelsource"):
        obj_check(root, attr, op="not exists")


@pytest.mark.parametrize("plural", sorted(CLOUDEVENTS_GROUPS))
def test_root_group_collections(root, loaded, plural):
    """Rows 51-56: for every group type of the model, <plural>count (an integer) and
    <plural>url == MakeURL(self, plural)."""
    assert plural in (loaded["model"].get("groups") or {})
    obj_check(root, plural + "count", op="exists", exp=0)
    obj_check(root, plural + "url", required=True, op="=", exp=make_url(root["self"], plural))


def test_root_group_collections_count_content(writer):
    """Rows 51-56 again on a store with content (one rc4 document imported): the counts are the numbers of
    groups, and each url lists them."""
    from .conftest import post_json

    doc = json.loads(corpus("rc4", "contoso-erp-jsons07.xreg.json").read_text())
    assert post_json(writer, "/registry/", doc).status_code == 200
    res = get(writer, "/")
    http_status_must_equal(res, 200, "GET /")
    root = http_body_must_json(res, "GET /")
    for plural in sorted(CLOUDEVENTS_GROUPS):
        obj_check(root, plural + "count", op="=", exp=len(doc.get(plural, {})))
        url = root[plural + "url"]
        assert url == make_url(root["self"], plural)
        listing = writer.get(url.replace("http://testserver", ""), follow=True)
        assert listing.status_code == 200
        assert set(listing.json()) == set(doc.get(plural, {}))
