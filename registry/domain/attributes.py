"""The common attributes of every entity: their names, types and rules (docs/api-contract.md section 2).

`split_attributes` separates what a client sent into common attributes, server-owned ones (ignored or
checked) and extension attributes (handed to the type's validator).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from collections.abc import Set as AbstractSet
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .errors import Problem, at
from .extension_attributes import registered, resource_attributes
from .limits import MAX_DEPTH, nested_deeper_than
from .model import registry_model

if TYPE_CHECKING:
    from .model import GroupType, ResourceType

# An entity's attributes or a body's members, as a JSON object: name -> JSON value (each value is checked where it is
# used: `check_common`, the types' validators)
Attributes = dict[str, object]
# A group's owners: team name -> role (registry/access/owners.py checks them on every write)
Owners = dict[str, str]

# RFC 3986 segment-nz-nc: unreserved / pct-encoded / sub-delims / "@"
ID_PATTERN = re.compile(r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=@]|%[0-9A-Fa-f]{2})+$")
ID_MAX_LENGTH = 128
ATTRIBUTE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
TAG_KEY_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9\-_.]{0,62}$")
# docs: an http(s) URL, or a relative reference (no scheme: no ':' at all); the OpenAPI document says the same
DOCS_PATTERN = re.compile(r"^(?:[Hh][Tt][Tt][Pp][Ss]?:[\s\S]*|[^:]*)$")

# attributes that pages show as links (docs, a resource's URI): these schemes or none (a relative reference), never
# javascript:, data: or another scheme a browser would run or open in the page's origin
LINK_SCHEMES = ("http", "https")

COMMON = ("id", "name", "description", "tags", "docs")
SERVER_OWNED = ("epoch", "self", "createdBy", "createdOn", "modifiedBy", "modifiedOn", "specVersion", "version")
# xRegistry 1.0 names of attributes the 0.5-wip shape (the store's names) names otherwise (the 0.5 name, or None when
# server-owned), declared once: refused in a 0.5 body rather than stored as extensions that the 1.0 binding would
# show in place of the real ones; the 1.0 binding's `?filter` names (bindings/v10/flags.FILTER_NAMES) and the
# server-owned attributes it ignores in a body (`V10_SERVER_OWNED`) are read from it
V10_NAMES = {
    "documentation": "docs",
    "labels": "tags",
    "createdat": "createdOn",
    "modifiedat": "modifiedOn",
    "xid": None,
}
# the other way, each store (0.5-wip) name of an attribute every entity has that xRegistry 1.0 does not show as it is ->
# its 1.0 name (None: 1.0 shows none): the 1.0 binding's names (bindings/v10/mapping.NAMES), and the 0.5 names it
# refuses in a body naming its own
V05_TO_V10: dict[str, str | None] = {
    **{stored: name for name, stored in V10_NAMES.items() if stored is not None},
    "createdBy": None,
    "modifiedBy": None,
    "specVersion": "specversion",
}
# the 1.0 names of attributes the server owns among those (its timestamps, `xid`)
V10_SERVER_OWNED = frozenset(name for name, stored in V10_NAMES.items() if stored is None or stored in SERVER_OWNED)
# the group attribute naming its owners (registry/access/owners.py, docs/teams.md)
OWNERS = "owners"
# what the 0.5-wip shape calls a resource's and a version's attributes beyond the common ones, whatever their type:
# the resource's `meta` (registry/services/meta.py) and its versions' collection (`...Url` in documents)
RESOURCE_NAMES = (
    "compatibility",
    "defaultversionid",
    "defaultversionsticky",
    "versions",
    "versionsURL",
    "versionsUrl",
    "versionsCount",
)


def check_id(value, what: str = "id") -> str:
    """An id per docs/api-contract.md section 2: non-empty, at most 128 characters of RFC 3986 segment-nz-nc."""
    if not isinstance(value, str) or value == "":
        raise Problem("invalid-id", f"{what} must be a non-empty string")
    if len(value) > ID_MAX_LENGTH:
        raise Problem("invalid-id", f"{what} is longer than {ID_MAX_LENGTH} characters")
    if value in (".", ".."):  # dot segments: URLs holding them normalize to other paths (RFC 3986 5.2.4)
        raise Problem("invalid-id", f"{what} {value!r} is a dot segment; it cannot be an id")
    if not ID_PATTERN.fullmatch(value):
        raise Problem(
            "invalid-id",
            f"{what} {value!r} contains characters not allowed in an id "
            "(RFC 3986 segment-nz-nc: letters, digits, -._~!$&'()*+,;=@ and %XX)",
        )
    return value


def group_attribute_names(gt: GroupType) -> frozenset[str]:
    """The names the store (and the 0.5-wip binding) gives a group of type `gt`: the common and server-owned
    attributes, `owners`, the type's own attributes, those apps register for it (registry/domain/extension_attributes.py)
    and its resource collections."""
    names = {*COMMON, *SERVER_OWNED, OWNERS, *gt.attributes, *registered.get((gt.plural, None), {})}
    for rt in gt.resources:
        names |= {rt.plural, f"{rt.plural}URL", f"{rt.plural}Url", f"{rt.plural}Count"}
    return frozenset(names)


def version_attribute_names(rt: ResourceType) -> frozenset[str]:
    """The names the store (and the 0.5-wip binding) gives a resource or version of type `rt`: the common and
    server-owned attributes, the resource's meta and versions, the document's (`schema`, `schemaURI`, ...), the
    type's own attributes and those apps register for its resources."""
    document = (rt.singular, rt.uri_attribute, rt.base64_attribute, f"{rt.singular}url")
    own = (*rt.document_attributes, *rt.attributes, *resource_attributes(rt.plural))
    return frozenset({*COMMON, *SERVER_OWNED, *RESOURCE_NAMES, *document, *own})


def attribute_names_of(group_type: str, resource_type: str | None = None) -> frozenset[str]:
    """`group_attribute_names` of the registered group type (or `version_attribute_names` of its resource type); none
    for a type that is not registered (its entities are refused for that)."""
    gt = registry_model.get(group_type)
    if gt is None:
        return frozenset()
    if resource_type is None:
        return group_attribute_names(gt)
    rt = gt.resources_by_plural.get(resource_type)
    return version_attribute_names(rt) if rt is not None else frozenset()


def check_common(attrs: dict, prefix: str = "", known: Collection[str] = ()) -> list[str]:
    """Type errors of the common attributes present in attrs (None values mean 'remove' and pass), and the
    one nesting limit of an entity's attributes (registry.domain.limits.MAX_DEPTH, the attributes object counting as
    one level): every door's writes come here, so what is stored always fits in an export that imports again.
    `known`: the names of the entity's attributes (`group_attribute_names`, `version_attribute_names`), which no
    other name may differ from only by case (`check_attribute_names`)."""
    errors = []
    if nested_deeper_than(attrs, MAX_DEPTH):
        errors.append(f"{prefix}the attributes are nested deeper than {MAX_DEPTH} levels")
    # each error names its attribute (a Finding: each binding writes the name in its own words, `tags` as 1.0's
    # `labels`, `docs` as `documentation`)
    for key in ("name", "description", "docs"):
        value = attrs.get(key)
        if value is not None and not isinstance(value, str):
            errors.append(at(f"{prefix}{key}", " must be a string"))
    if isinstance(attrs.get("name"), str) and attrs["name"] == "":
        errors.append(at(f"{prefix}name", " must not be empty"))
    docs = attrs.get("docs")
    if isinstance(docs, str) and not DOCS_PATTERN.fullmatch(docs):
        errors.append(at(f"{prefix}docs", f" must be an http or https URL or a relative reference, not {docs[:60]!r}"))
    tags = attrs.get("tags")
    if tags is not None:
        if not isinstance(tags, dict):
            errors.append(at(f"{prefix}tags", " must be a map of string to string"))
        else:
            for key, value in tags.items():
                if not TAG_KEY_PATTERN.fullmatch(key):
                    errors.append(
                        at(
                            f"{prefix}tags.{key}",
                            ": names are 1-63 letters, digits, '-', '_' or '.', starting with a letter or digit",
                        )
                    )
                if not isinstance(value, str):
                    errors.append(at(f"{prefix}tags.{key}", " must be a string"))
    return errors + check_attribute_names(attrs, prefix, known)


def link_error(name: str, value) -> str | None:
    """Why `value` cannot be stored in the link attribute `name` (a resource's URI), or None: it must be an http
    or https URL or a relative reference, without spaces or control characters (a browser drops some of them
    before it reads the scheme, so `java\tscript:` would run)."""
    if not isinstance(value, str) or not value:
        return f"{name} must be a non-empty string"
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        return f"{name} must not contain spaces or control characters (percent-encode them)"
    try:
        scheme = urlsplit(value).scheme.lower()
    except ValueError as exc:
        return f"{name} {value[:60]!r} is not a URL: {exc}"
    if scheme and scheme not in LINK_SCHEMES:
        return f"{name} must be an http or https URL or a relative reference, not a {scheme}: URL"
    return None


def check_attribute_names(attrs: dict, prefix: str = "", known: Collection[str] = ()) -> list[str]:
    """Errors of attribute names: letters, digits and `_`, not starting with a digit, at most 63 characters
    (the xRegistry 1.0 rule, widened to the upper case letters the 0.5-wip attributes use, `definitionGroups`),
    and unique irrespective of case (the core spec's rule: they travel as case-insensitive HTTP headers), among
    themselves and against the entity's `known` names and the 1.0 names of the common ones (`V10_NAMES`): `OWNERS`
    is not an extension beside `owners`, it is refused naming `owners`."""
    errors: list[str] = []
    seen: dict[str, str] = {}
    known_lower = {name.lower(): name for name in (*V10_NAMES, *known)}
    for name in attrs:
        if not isinstance(name, str) or not ATTRIBUTE_NAME.fullmatch(name):
            errors.append(
                f"{prefix}attribute name {name!r} is not valid: use letters, digits and '_' "
                "(not starting with a digit), at most 63 characters"
            )
            continue
        other = seen.setdefault(name.lower(), name)
        if other != name:
            errors.append(f"{prefix}attributes {other!r} and {name!r} differ only by case")
        elif name not in known and name not in V10_NAMES and name.lower() in known_lower:
            match = known_lower[name.lower()]
            if match not in known:  # a name the 1.0 binding shows beside the extension
                match += f" (xRegistry 1.0's {V10_NAMES[match] or 'server-owned attribute'})"
            errors.append(case_error(name, match, prefix))
    return errors


def text_of(attrs: Attributes, name: str) -> str | None:
    """A common text attribute (`name`, `description`, `docs`) of attributes `check_common` accepted: a string or
    absent."""
    value = attrs.get(name)
    return value if isinstance(value, str) else None


def case_error(name: str, known: str, prefix: str = "") -> str:
    """The error of an attribute name that differs from the entity's attribute `known` only by case."""
    return f"{prefix}{name} differs from the attribute {known} only by case"


def unstorable(value, path: str = "", limit: int = 100_000) -> str | None:
    """Why a JSON value cannot be stored (a NUL character or a lone surrogate in a key or a string), or None.
    PostgreSQL's jsonb and UTF-8 text refuse both; they are refused here with a 400 instead."""
    stack = [(value, path)]
    while stack and limit > 0:
        limit -= 1
        item, where = stack.pop()
        texts = []
        if isinstance(item, dict):
            for key, child in item.items():
                texts.append((key, f"{where}.{key}" if where else str(key)))
                stack.append((child, f"{where}.{key}" if where else str(key)))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{index}]") for index, child in enumerate(item))
        elif isinstance(item, str):
            texts.append((item, where))
        for text, place in texts:
            if "\x00" in text:
                return f"{place or 'value'} contains a NUL character"
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return f"{(place or 'value')!r} contains an unpaired surrogate (not valid Unicode)"
    return None


def split_attributes(body: dict, *, ignore: AbstractSet[str] = frozenset()) -> tuple[dict, dict]:
    """(common, extensions) from a JSON object; server-owned keys and `ignore` are dropped.

    Extension names must differ from the common ones irrespective of case.
    """
    problem = unstorable(body)
    if problem:
        raise Problem("invalid-attribute", problem)
    common, extensions = {}, {}
    lowered = {k.lower(): k for k in COMMON + SERVER_OWNED}
    for key, value in body.items():
        if key in ignore or key in SERVER_OWNED:
            continue
        if key in V10_NAMES:
            instead = f"; the 0.5-wip binding calls it {V10_NAMES[key]!r}" if V10_NAMES[key] else ""
            raise Problem(
                "invalid-attribute",
                f"{key!r} is an attribute of xRegistry 1.0 (the /registry binding), "
                f"not of the 0.5-wip binding{instead}",
            )
        if key in COMMON:
            common[key] = value
        elif key.lower() in lowered:
            raise Problem("invalid-attribute", case_error(key, lowered[key.lower()]))
        else:
            extensions[key] = value
    return common, extensions


def timestamp(value: datetime | None) -> str | None:
    """RFC 3339 UTC with Z."""
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ").replace(".000000Z", "Z")


def version_order(version) -> tuple:
    """The order a resource's versions were created in, oldest first (`createdat`, then the order of insertion for
    versions created at the same instant): the order listings and exports show them in, an import creates them in,
    and a new version's compatibility check compares it with ("every previous version" of the seed: those created
    before it). Which version is the latest is `version_sort_key`'s order, not this one."""
    return (version.created_on, version.pk)


def version_sort_key(vid: str) -> tuple[int, str]:
    """The seed's order of a resource's version ids (CONTRACT 18; rc4's schema spec recommends it too): every id
    left-padded with spaces to the same length, then compared lexically. The greatest is the resource's latest
    version (unless a sticky default names another), the one before a version is its 1.0 `ancestorid`. A space sorts
    before every character an id may hold (`check_id`: ASCII from `!` on), so this is ordering by (length, id): "10"
    after "9", "abc" after "b" and "c". SQL orders the same way with `version_order_sql`."""
    return (len(vid), vid)


def latest_of(versions):
    """The version of `versions` whose id is the greatest by `version_sort_key` (None when there is none)."""
    return max(versions, key=lambda v: version_sort_key(v.vid), default=None)


def previous_of(version, versions):
    """The version of `versions` whose id comes just before `version`'s by `version_sort_key` (None for the first):
    the 1.0 `ancestorid` of `version`."""
    key = version_sort_key(version.vid)
    return max(
        (v for v in versions if version_sort_key(v.vid) < key), key=lambda v: version_sort_key(v.vid), default=None
    )


def version_order_sql(vendor: str, column: str) -> tuple[str, str]:
    """`version_sort_key` in SQL for the version id column `column` (quoted, with its table's alias): its two terms,
    compared in this order (length first). The id compares by code point: PostgreSQL's "C" collation (the database's
    own may order `B` before `a`, or ignore punctuation), SQLite's default BINARY."""
    return f"length({column})", f'{column} COLLATE "C"' if vendor == "postgresql" else column


def stored_attributes(entity) -> dict:
    """A stored group's or version's attributes as a document holds them: name, description, docs and tags
    when set, and its extension attributes."""
    out = {}
    for key in ("name", "description", "docs"):
        value = getattr(entity, key)
        if value is not None:
            out[key] = value
    if entity.tags:
        out["tags"] = entity.tags
    out.update(entity.extensions)
    return out
