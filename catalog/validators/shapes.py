"""A member of parsed JSON read as the shape a check expects: a value that is not an object reads as an empty
object, one that is not an array as an empty array (the check reports the wrong shape where it matters)."""

from __future__ import annotations


def as_object(value) -> dict:
    return value if isinstance(value, dict) else {}


def as_array(value) -> list:
    return value if isinstance(value, list) else []
