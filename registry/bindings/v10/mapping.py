"""How each registered group and resource type is named and shaped in xRegistry 1.0 (docs/xregistry-1.0.md).

Apps register a `GroupMapping` per group type (from `AppConfig.ready`, like their validators): the 1.0
plural and singular, and functions translating the type's own attributes between the stored 0.5 shape and
the 1.0 shape. The engine does the renames that are the same for every type (`tags` = `labels`, `docs` =
`documentation`, ids, timestamps) and rewrites references between `#/GROUPS/...` (0.5) and `/groups/...`
(1.0) paths from the registered names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...domain.attributes import SERVER_OWNED, V05_TO_V10, V10_NAMES
from ...domain.model import registry_model
from ...http.representation import Names
from .errors import DocumentError

Translate = Callable[[dict], dict]


def _same(attrs: dict) -> dict:
    return dict(attrs)


def common_attribute_to_v10(attribute: str, _value=None) -> str:
    """An attribute path of the store in 1.0 names, for attributes every type shares (`tags.team` -> `labels.team`)."""
    head, dot, rest = attribute.partition(".")
    return f"{COMMON_TO_V10.get(head, head)}{dot}{rest}"


@dataclass(frozen=True)
class TypeMapping:
    """What a group type's and a resource type's mappings both declare: the stored (0.5) plural, the 1.0 plural and
    singular, the 0.5 attribute names refused in a 1.0 body (the 1.0 name is different), the type's own translations
    between the stored and the 1.0 attributes, and a validation error's attribute path (store names) in 1.0 names,
    given the attribute's value (registry.domain.errors)."""

    plural: str
    v1_plural: str
    v1_singular: str
    v05_only: tuple[str, ...] = ()
    to_v05: Translate = _same
    to_v10: Translate = _same
    attribute_to_v10: Callable[[str, object], str] = common_attribute_to_v10


@dataclass(frozen=True)
class ResourceMapping(TypeMapping):
    singular05: str = ""
    hasdocument: bool = True


@dataclass(frozen=True)
class GroupMapping(TypeMapping):
    resources: tuple[ResourceMapping, ...] = ()
    by_plural: dict = field(init=False, repr=False, compare=False)
    by_v1_plural: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "by_plural", {r.plural: r for r in self.resources})
        object.__setattr__(self, "by_v1_plural", {r.v1_plural: r for r in self.resources})


mappings: dict[str, GroupMapping] = {}
v1_mappings: dict[str, GroupMapping] = {}

# what xRegistry 1.0 calls the attributes every entity has (registry/http/representation.py; the store's are 0.5's)
NAMES = Names(id="{singular}id", url="url", count="count", renames=V05_TO_V10)
# common attributes: 1.0 name -> 0.5 name (those a client writes; the others are the server's)
COMMON_TO_V05 = {name: stored for name, stored in V10_NAMES.items() if stored and stored not in SERVER_OWNED}
COMMON_TO_V10 = {v: k for k, v in COMMON_TO_V05.items()}


def refuse_v05_names(attrs: dict, own: tuple[str, ...], where: str) -> None:
    """A 0.5-wip attribute in a 1.0 body is an error naming it (CONTRACT section 11), never half written."""
    for name in attrs:
        if name in V05_TO_V10 or name in own:
            instead = V05_TO_V10.get(name)
            hint = f"; xRegistry 1.0 calls it {instead!r}" if instead else ""
            raise DocumentError(where, f"{name!r} is an attribute of the 0.5-wip binding, not of xRegistry 1.0{hint}")


def register_mapping(mapping: GroupMapping) -> None:
    mappings[mapping.plural] = mapping
    v1_mappings[mapping.v1_plural] = mapping


def ordered_mappings() -> list[GroupMapping]:
    return [mappings[gt.plural] for gt in registry_model.group_types if gt.plural in mappings]


def _rewrite(path: str, to_v10: bool) -> str | None:
    """`/messagegroups/G/messages/M...` <-> `/definitionGroups/G/definitions/M...`; None if no type matches."""
    segments = path.split("/")
    if len(segments) < 3 or segments[0] != "":
        return None
    table = mappings if to_v10 else v1_mappings
    mapping = table.get(segments[1])
    if mapping is None:
        return None
    segments[1] = mapping.v1_plural if to_v10 else mapping.plural
    if len(segments) >= 4:
        resources = mapping.by_plural if to_v10 else mapping.by_v1_plural
        resource = resources.get(segments[3])
        if resource is None:
            return None
        segments[3] = resource.v1_plural if to_v10 else resource.plural
    return "/".join(segments)


def v1_path(path: str) -> str:
    """A store path (`/definitionGroups/g/definitions/d/versions/1`) as its 1.0 xid (`/messagegroups/g/messages/d
    /versions/1`): each type segment by the registered names; a path of no registered type unchanged."""
    return _rewrite(path, to_v10=True) or path


def store_path(xid: str) -> str | None:
    """A 1.0 xid (`/messagegroups/g/messages/d`) as the store path (`/definitionGroups/g/definitions/d`); None when
    it names no registered type."""
    return _rewrite(xid, to_v10=False)


def v1_attribute_name(path: str):
    """The function naming a validation error's attribute in 1.0 for the entity at store path `path`."""
    segments = path.split("/")
    gm = mappings.get(segments[1]) if len(segments) > 2 else None
    if gm is None:
        return common_attribute_to_v10
    rm = gm.by_plural.get(segments[3]) if len(segments) > 4 else None
    return rm.attribute_to_v10 if rm is not None else gm.attribute_to_v10


def reference_to_v05(value):
    """A 1.0 reference (`/schemagroups/G/schemas/S[/versions/V][:Name]`) as the 0.5 document reference
    (`#/schemaGroups/...`); anything else (absolute URLs, unknown paths) unchanged."""
    if isinstance(value, str) and value.startswith("/"):
        rewritten = _rewrite(value, to_v10=False)
        if rewritten is not None:
            return "#" + rewritten
    return value


def reference_to_v10(value):
    if isinstance(value, str) and value.startswith("#/"):
        rewritten = _rewrite(value[1:], to_v10=True)
        if rewritten is not None:
            return rewritten
    return value


def translated(attrs: dict, own: Translate, *, to_v05: bool) -> dict:
    """An entity's attributes in the other binding's names: the common ones (`name`, `description`, documentation,
    labels) first and renamed, then the rest through the type's own translation `own`."""
    renames = COMMON_TO_V05 if to_v05 else COMMON_TO_V10
    rest = dict(attrs)
    common = {renames.get(k, k): rest.pop(k) for k in ("name", "description", *renames) if k in rest}
    return {**common, **own(rest)}


def moved_with_rest(source: dict, out: dict, renames: dict, reference: str, convert) -> dict:
    """`out` with each attribute of `source` named in `renames` under its new name (the `reference` one's value
    through `convert`) and every other attribute of `source` as it is. Takes `source` apart."""
    for name, new_name in renames.items():
        if name in source:
            value = source.pop(name)
            out[new_name] = convert(value) if name == reference else value
    out.update(source)
    return out
