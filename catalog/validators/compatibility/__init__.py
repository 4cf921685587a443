"""Schema compatibility between versions, with the seven levels of CONTRACT section 5.

backward: a reader using the new schema reads data written with the old one; forward: a reader using the
old schema reads data written with the new one; full: both. Transitive levels compare with every earlier
version, the others with the latest earlier one only. JSON Schema, Avro and Protobuf are checked; other
formats are always compatible.
"""
from __future__ import annotations

from ..format_names import schema_format_family
from .result import Incompatibility

LEVELS = ("none", "backward", "backward_transitive", "forward", "forward_transitive", "full", "full_transitive")
DEFAULT_LEVEL = "backward_transitive"

__all__ = ["DEFAULT_LEVEL", "LEVELS", "Incompatibility", "check_compatibility", "reader_incompatibilities"]


def _checker(family: str):
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


def reader_incompatibilities(format_name: str | None, reader: bytes, writer: bytes) -> list[Incompatibility]:
    """Why a consumer using `reader` cannot read data written with `writer` ([] when it can)."""
    family, _version = schema_format_family(format_name)
    checker = _checker(family) if family else None
    if checker is None:
        return []
    try:
        reader_schema, writer_schema = checker.load(reader), checker.load(writer)
    except ValueError:
        return []  # an unparseable earlier version is skipped; the new one was validated before
    return checker.incompatibilities(reader_schema, writer_schema)


def check_compatibility(format_name: str | None, level: str, previous: list[bytes], new: bytes) -> list[Incompatibility]:
    """Every incompatibility of `new` with `previous` (oldest first) under `level`."""
    if level not in LEVELS:
        raise ValueError(f"unknown compatibility level {level!r}")
    if level == "none" or not previous:
        return []
    others = previous if level.endswith("_transitive") else previous[-1:]
    directions = {"backward": ("backward",), "forward": ("forward",), "full": ("backward", "forward")}[
        level.removesuffix("_transitive")]
    found: list[Incompatibility] = []
    for index, old in enumerate(others):
        label = "" if len(others) == 1 else f"version {index + 1} of {len(others)}: "
        for direction in directions:
            reader, writer = (new, old) if direction == "backward" else (old, new)
            for issue in reader_incompatibilities(format_name, reader, writer):
                entry = Incompatibility(issue.path, f"{label}{issue.change}", f"{direction}: {issue.reason}")
                if entry not in found:
                    found.append(entry)
    return found
