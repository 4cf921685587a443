"""What apps say about their entities on the catalog map (registry/governance/catalog_map.py): `NodeFacts(lines,
deprecated)` per node, from `register_map_describer(group_plural, resource_plural, fn)` where `fn(attributes)`
returns them (usage, protocol, format; the engine names no attribute).

A module of its own so that apps register at start-up without loading the map's drawing (Graphviz).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class NodeFacts:
    lines: tuple[str, ...] = ()
    deprecated: bool = False


Describer = Callable[[dict], NodeFacts]
describers: dict[tuple[str, str | None], Describer] = {}


def register_map_describer(group_plural: str, resource_plural: str | None, fn: Describer) -> None:
    describers[(group_plural, resource_plural)] = fn
