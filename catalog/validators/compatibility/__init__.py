"""Schema compatibility between versions, with the seven levels of CONTRACT section 5.

backward: a reader using the new schema can read data written with the old one; forward: a reader using the
old schema can read data written with the new one; full: both. Transitive levels compare the new version with
every earlier version, the others with the latest earlier one only. JSON Schema, Avro and Protobuf are
checked (rules in docs/schema-compatibility.md); other formats are always compatible. Earlier versions that
no longer parse are skipped.

Every checker module offers `load(content: bytes)` (ValueError when unparseable) and
`compare(old, new, direction: "backward" | "forward") -> list[Incompatibility]`.
"""
from __future__ import annotations

from ..format_names import schema_format_family
from .result import Incompatibility

LEVELS = ("none", "backward", "backward_transitive", "forward", "forward_transitive", "full", "full_transitive")
DEFAULT_LEVEL = "backward_transitive"
DIRECTIONS = {"none": (), "backward": ("backward",), "forward": ("forward",), "full": ("backward", "forward")}

__all__ = ["DEFAULT_LEVEL", "LEVELS", "Incompatibility", "check_compatibility", "compare_versions"]


def _checker(family: str | None):
    if family == "JsonSchema":
        from . import jsonschema

        return jsonschema
    if family == "Avro":
        from . import avro

        return avro
    if family == "Protobuf":
        from . import protobuf

        return protobuf
    return None


def compare_versions(format: str | None, old: bytes, new: bytes, direction: str) -> list[Incompatibility]:  # noqa: A002
    """The incompatibilities of one step `old` -> `new` in one direction (`backward` or `forward`)."""
    checker = _checker(schema_format_family(format)[0])
    if checker is None:
        return []
    try:
        old_schema = checker.load(old)
    except (ValueError, RecursionError):
        return []  # an unparseable earlier version is skipped
    try:
        new_schema = checker.load(new)
    except (ValueError, RecursionError) as exc:
        return [Incompatibility("(root)", "the new version does not parse", f"no reader can use it: {exc}")]
    try:
        return checker.compare(old_schema, new_schema, direction)
    except RecursionError:
        return [Incompatibility("(root)", "schemas nested too deeply to compare", "compatibility is not proven")]


def check_compatibility(format: str | None, level: str, previous: list[bytes], new: bytes) -> list[Incompatibility]:  # noqa: A002
    """Every incompatibility of `new` with `previous` (earlier versions, oldest first) under `level`.

    [] means compatible. ValueError for a level not in LEVELS.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown compatibility level {level!r}; one of {', '.join(LEVELS)}")
    directions = DIRECTIONS[level.removesuffix("_transitive")]
    if not directions or not previous or _checker(schema_format_family(format)[0]) is None:
        return []
    others = list(previous) if level.endswith("_transitive") else list(previous[-1:])
    found: list[Incompatibility] = []
    seen: set[tuple[str, str, str]] = set()
    for index, old in enumerate(others):
        for direction in directions:
            for issue in compare_versions(format, old, new, direction):
                key = (issue.path, issue.change, issue.reason)
                if key in seen:
                    continue
                seen.add(key)
                if len(others) > 1:
                    issue = Incompatibility(issue.path, issue.change,
                                            f"{issue.reason} (earlier version {index + 1} of {len(others)})")
                found.append(issue)
    return found
