"""Extension attributes that an app gives a meaning to on entities of a type it does not own, as apps register them
(the engine knows no attribute of any app): their rules, checked by every door that writes them, and, for those of
a resource, their place in xRegistry 1.0's `meta` entity.

The Confluent API keeps a context's and a subject's mode as the attribute `confluentmode` of the schema group and of
the schema (confluent/attributes.py): the group's attributes are written by the group services (both bindings, the
admin, imports), a resource's own attributes by `set_resource_meta` (1.0's `meta`, the admin, the Confluent API) and
by a document import's resource. Each calls `errors_of` before it writes, so a value the app does not accept is a
400 naming the attribute through every door, and nothing is written.

- `register_extension_attribute(ExtensionAttribute(...))`: `check(value)` answers what is wrong with a value (None
  when it is good; a value None means "remove" and is not checked). `resource_plural` None: an attribute of the group
  itself. `model`: the attribute's definition in 1.0's model (`type`, `enum`, ...), shown in `/registry/model` for a
  resource's (its `metaattributes`).
- `errors_of(group_plural, resource_plural, attributes)`: the problems of the registered attributes present.
- `meta_names(resource_plural)`: the resource-level names, which 1.0 shows, takes and exports in `meta`, not among
  the default version's attributes (a resource's own attribute is not a version's).
- `register_version_attribute(ExtensionAttribute(...))` and `version_errors_of(resource_plural, attributes)`: the same
  for an attribute of a resource type's versions (the Confluent API's `confluentmetadata` and `confluentruleset` of
  schema versions), checked with the rules every version's attributes pass (registry/services/versions.py, and the
  Spark import's executors): a version attribute in both bindings, like any other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ExtensionAttribute:
    name: str
    group_plural: str
    resource_plural: str | None
    check: Callable[[object], str | None]
    model: dict = field(default_factory=dict)


registered: dict[tuple[str, str | None], dict[str, ExtensionAttribute]] = {}
version_registered: dict[str, dict[str, ExtensionAttribute]] = {}  # resource plural -> name -> attribute


def register_extension_attribute(attribute: ExtensionAttribute) -> None:
    registered.setdefault((attribute.group_plural, attribute.resource_plural), {})[attribute.name] = attribute


def errors_of(group_plural: str, resource_plural: str | None, attributes: dict) -> list[str]:
    """What is wrong with the registered attributes among `attributes` (a group's, or a resource's own), each
    message starting with the attribute's name."""
    errors = []
    for name, attribute in registered.get((group_plural, resource_plural), {}).items():
        value = attributes.get(name)
        if value is not None:
            problem = attribute.check(value)
            if problem:
                errors.append(f"{name}: {problem}")
    return errors


def resource_attributes(resource_plural: str) -> dict[str, ExtensionAttribute]:
    """The registered attributes of resources of this plural (the plural names one resource type: the model's
    resource plurals differ from each other)."""
    out: dict[str, ExtensionAttribute] = {}
    for (_group, plural), attributes in registered.items():
        if plural == resource_plural:
            out.update(attributes)
    return out


def meta_names(resource_plural: str) -> tuple[str, ...]:
    return tuple(resource_attributes(resource_plural))


def register_version_attribute(attribute: ExtensionAttribute) -> None:
    """An attribute of the versions of the resources `attribute.resource_plural` (of `attribute.group_plural`)."""
    assert attribute.resource_plural is not None
    version_registered.setdefault(attribute.resource_plural, {})[attribute.name] = attribute


def version_errors_of(resource_plural: str, attributes: dict) -> list[str]:
    """What is wrong with the registered attributes among a version's `attributes`, each message starting with the
    attribute's name."""
    errors = []
    for name, attribute in version_registered.get(resource_plural, {}).items():
        value = attributes.get(name)
        if value is not None:
            problem = attribute.check(value)
            if problem:
                errors.append(f"{name}: {problem}")
    return errors
