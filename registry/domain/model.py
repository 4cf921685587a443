"""The registry model as data: group types and their resource types.

Apps register their group types here (from `AppConfig.ready`); the URL routes, `GET /?model`,
the root document and validation all derive from this one description.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.conf import settings

if TYPE_CHECKING:
    from .validation import GroupCheck, VersionCheck

# The values of a resource's `compatibility` (xRegistry 1.0 core, the `meta` entity): the engine stores and
# checks the level; what a level means for a format is the plug-in's (catalog's compatibility checks).
COMPATIBILITY_LEVELS = (
    "none",
    "backward",
    "backward_transitive",
    "forward",
    "forward_transitive",
    "full",
    "full_transitive",
)


# `Version.compatibility_check` of a version an import made together with its resource: history, stored as given and
# not checked against the resource's other versions (CONTRACT 18)
HISTORY = "history"
# the levels a version checked at one level also meets (a transitive check compares with every earlier version, the
# other with the one before; full checks both directions)
_MEETS = {
    "backward": {"backward"},
    "backward_transitive": {"backward", "backward_transitive"},
    "forward": {"forward"},
    "forward_transitive": {"forward", "forward_transitive"},
    "full": {"full", "backward", "forward"},
    "full_transitive": set(COMPATIBILITY_LEVELS) - {"none"},
}


def effective_compatibility(*levels) -> str:
    """The compatibility level that applies: the first level given (most specific first: a version's own, the
    resource's, its group's), else the registry's default (REGISTRY_DEFAULT_COMPATIBILITY). One policy for every
    door and every reader (both bindings, the admin, the checks)."""
    for level in levels:
        if level:
            return level
    return settings.REGISTRY_DEFAULT_COMPATIBILITY


@dataclass(frozen=True)
class ResourceType:
    """A resource type (`schemas` in `schemaGroups`).

    versions: how many versions to keep, as the model's `versions` (0 = latest only, -1 = unlimited).
    shared_attributes: the document is a JSON object that also carries the resource's metadata
        (`id`, `name`, `description`, `tags`, `docs`), as definitions do.
    document_attributes: attributes read from a JSON document and shown as metadata (`format`).
    attributes: names of the extension attributes this resource type defines on its versions (`format`).
    validate: hook called with a `VersionCheck` before any version is written; raises `Invalid`.
    media_type_for: media type of a document given inline as text in a registry document, from the
        version's attributes (`format`) and its bytes; default: JSON when it parses, else text/plain.
    validates_format: whether the hook validates a document of this format (xRegistry 1.0 `validateformat`, and a
        version's `formatvalidated`); None: the type's versions are not validated by a format.
    compatibility_levels: the compatibility levels a format offers (1.0 `capabilities.compatibilities`; `none` is
        not one, it means no level); None: the type has no compatibility rules (no level shown, none checked).
    same_format: whether two format identifiers name the same format (aliases folded, as the Schema Registry API's
        group format rule compares them); None: the same text, ignoring case.
    """

    singular: str
    plural: str
    versions: int = 0
    shared_attributes: bool = False
    document_attributes: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    validate: Callable[[VersionCheck], None] | None = None
    media_type_for: Callable[[dict, bytes], str] | None = None
    validates_format: Callable[[str | None], bool] | None = None
    compatibility_levels: Callable[[str | None], tuple[str, ...]] | None = None
    same_format: Callable[[str, str], bool] | None = None

    @property
    def uri_attribute(self) -> str:
        return f"{self.singular}URI"

    @property
    def base64_attribute(self) -> str:
        return f"{self.singular}Base64"


def applicable_level(rt: ResourceType, fmt, *levels) -> str | None:
    """The compatibility level that applies to a resource of type `rt` whose versions have the format `fmt`: the
    first of `levels` given (the version's own, the resource's, its group's), else the registry's default; None when
    none applies: the type has no compatibility rules, the level is `none`, or the format does not offer it (a
    resource of a format without compatibility checks shows no level and none is checked, CONTRACT 18)."""
    if rt.compatibility_levels is None:
        return None
    level = effective_compatibility(*levels)
    if level == "none" or level not in rt.compatibility_levels(fmt if isinstance(fmt, str) else None):
        return None
    return level


def validation_attributes(rt: ResourceType, fmt, *, external: bool, level: str | None, checked: str | None) -> dict:
    """A version's `formatvalidated`, `compatibilityvalidated` and their reasons, as xRegistry 1.0 (rc4 core, "Version
    attributes"; the schema type's `validateformat` and `validatecompatibility` are true, `strictvalidation` false)
    requires them: none without a format; `formatvalidated` false when the document is not in the registry
    (`external`) or its format is not one the server validates; `compatibilityvalidated` only when a level applies
    (`level`, `applicable_level`), true when the version was checked at a level that meets it when it was written
    (`checked`: `Version.compatibility_check`), else false saying why."""
    if rt.validates_format is None or not isinstance(fmt, str) or not fmt:
        return {}
    if external:
        out: dict = {
            "formatvalidated": False,
            "formatvalidatedreason": "the document is kept outside the registry (at its URL): the server does not "
            "read it",
        }
    elif not rt.validates_format(fmt):
        out = {
            "formatvalidated": False,
            "formatvalidatedreason": f"the format {fmt!r} is not one this server validates",
        }
    else:
        out = {"formatvalidated": True}
    if level is None or rt.compatibility_levels is None:
        return out
    if external:
        reason = "the document is kept outside the registry (at its URL): it is not compared with the other versions"
    elif not out["formatvalidated"]:
        reason = "its format is not validated, so neither is its compatibility"
    elif checked == HISTORY:
        reason = (
            "imported together with its resource, as history: stored as given, not checked against the resource's "
            "other versions"
        )
    elif checked is not None and level in _MEETS.get(checked, ()):
        out["compatibilityvalidated"] = True
        return out
    elif checked is not None:
        reason = f"checked at the level {checked!r} when it was written, which does not meet {level!r}"
    else:
        reason = "not checked when it was written: no compatibility level applied then"
    out["compatibilityvalidated"] = False
    out["compatibilityvalidatedreason"] = reason
    return out


@dataclass(frozen=True)
class GroupType:
    """A group type (`schemaGroups`) with its resource types.

    position: order in `?model`, the root document and exports.
    attributes: names of the extension attributes this group type defines (documented in `?model`).
    validate: hook called with a `GroupCheck` before a group is written; raises `Invalid`.
    event_type_prefix: change events are `<prefix>.updated.v1` / `<prefix>.deleted.v1`.
    mutable_resources: plurals of the resource types that `?model` marks `mutable` within this group type
        (the spec's model marks an endpoint's `definitions`, not the endpoint).
    body_schema: a JSON Schema fragment (`properties`, `required`) of this type's own attributes, merged into
        the OpenAPI description of its group bodies with the common attributes; `seed_required` names those REQUIRED
        (and not null) in a body written through a binding that follows the seed (`GroupCheck.seed_binding`), not
        in a document import.
    """

    singular: str
    plural: str
    resources: tuple[ResourceType, ...]
    position: int = 100
    attributes: tuple[str, ...] = ()
    validate: Callable[[GroupCheck], None] | None = None
    event_type_prefix: str = "io.xregistry"
    mutable_resources: tuple[str, ...] = ()
    body_schema: dict | None = None
    resources_by_plural: dict[str, ResourceType] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "resources_by_plural", {r.plural: r for r in self.resources})

    def resource_type(self, plural: str) -> ResourceType:
        return self.resources_by_plural[plural]


class RegistryModel:
    """The set of registered group types."""

    def __init__(self):
        self._groups: dict[str, GroupType] = {}

    def register(self, group_type: GroupType) -> None:
        existing = {g.singular.lower() for g in self._groups.values()} | {p.lower() for p in self._groups}
        if group_type.plural.lower() in existing or group_type.singular.lower() in existing:
            raise ValueError(f"group type {group_type.plural} registered twice")
        self._groups[group_type.plural] = group_type

    @property
    def group_types(self) -> list[GroupType]:
        return sorted(self._groups.values(), key=lambda g: (g.position, g.plural))

    def get(self, plural: str) -> GroupType | None:
        return self._groups.get(plural)

    def __getitem__(self, plural: str) -> GroupType:
        return self._groups[plural]

    def as_json(self) -> dict:
        """The model as `GET /?model` serves it."""
        groups = []
        for g in self.group_types:
            entry: dict[str, object] = {"singular": g.singular, "plural": g.plural}
            entry["resources"] = [
                {
                    "singular": r.singular,
                    "plural": r.plural,
                    "versions": r.versions,
                    **({"mutable": True} if r.plural in g.mutable_resources else {}),
                }
                for r in g.resources
            ]
            groups.append(entry)
        return {"groups": groups}


registry_model = RegistryModel()
