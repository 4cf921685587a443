"""Subject names <-> schemas of schema groups (docs/confluent.md).

A subject `S` is the schema `S` of the schema group `REGISTRY_CONFLUENT_GROUP` (the default context); a qualified
subject `:.CTX:S` is the schema `S` of the schema group `CTX`. A schema id allows RFC 3986 segment characters only,
so every other character of a subject (and `%` itself) is percent-encoded in the id: `a/b.proto` is the schema
`a%2Fb.proto`. Decoding is the inverse; a schema whose id is not the canonical encoding of any subject (created
elsewhere with, say, `%41`) is not a subject.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

from django.conf import settings

from registry.domain.attributes import ID_MAX_LENGTH, ID_PATTERN

from .errors import INVALID_SUBJECT, ConfluentError

GROUPS = "schemaGroups"
SCHEMAS = "schemas"
SAFE = "-._~!$&'()*+,;=@"
PLAIN = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=@]+")  # what `quote` leaves as it is: the unreserved characters and SAFE
QUALIFIED = re.compile(r"^:\.([^:]*):(.*)$", re.DOTALL)
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def default_group() -> str:
    return settings.REGISTRY_CONFLUENT_GROUP


@dataclass(frozen=True)
class Subject:
    """A subject as the client named it, and where it lives: the group id and the schema id (None for a context
    alone, `:.CTX:`)."""

    name: str
    group_id: str
    resource_id: str | None

    @property
    def is_context(self) -> bool:
        return self.resource_id is None

    @property
    def scope(self) -> str:
        """The key of its settings: ":.CTX:" for a context, ":.CTX:S" for a subject (the default context's CTX is
        the configured group, so `S` and `:.:S` share one)."""
        return f":.{self.group_id}:{'' if self.resource_id is None else unquote(self.resource_id)}"


def _refuse(name: str, why: str) -> ConfluentError:
    shown = name.encode("utf-8", "backslashreplace").decode("utf-8")[:200]
    return ConfluentError(INVALID_SUBJECT, f"Invalid subject {shown!r}: {why}")


def encode_id(text: str, what: str, original: str) -> str:
    try:
        encoded = quote(text, safe=SAFE, errors="strict")
    except UnicodeEncodeError:
        raise _refuse(original, f"the {what} holds a lone surrogate")
    if len(encoded) > ID_MAX_LENGTH:
        raise _refuse(original, f"the {what} is longer than {ID_MAX_LENGTH} characters once percent-encoded")
    if encoded in (".", "..") or not ID_PATTERN.fullmatch(encoded):
        raise _refuse(original, f"{text!r} cannot be the id of a {what}")
    return encoded


def parse(name: str, *, allow_context: bool = False) -> Subject:
    """The subject a client named (path segment, body or query value); 42208 when it cannot be one."""
    if not isinstance(name, str) or name == "":
        raise _refuse(str(name), "a subject is a non-empty string")
    if CONTROL.search(name):
        raise _refuse(name, "control characters (NUL included) are not allowed in a subject")
    match = QUALIFIED.match(name)
    if match:
        context, rest = match.groups()
        group = default_group() if context == "" else encode_id(context, "context", name)
    else:
        group, rest = default_group(), name
    if rest == "":
        if not (allow_context and match):
            raise _refuse(name, "a subject is a non-empty string")
        return Subject(name, group, None)
    return Subject(name, group, encode_id(rest, "subject", name))


def name_of(group_id: str, resource_id: str) -> str | None:
    """The subject name of a schema, qualified outside the default context; None when the id is no subject's."""
    if PLAIN.fullmatch(resource_id):
        subject = (
            resource_id  # nothing encoded: the id is the name (and `quote`, for every schema of a list, is not free)
        )
    else:
        subject = unquote(resource_id)
        if quote(subject, safe=SAFE) != resource_id:
            return None
    if group_id == default_group():
        return subject
    context = unquote(group_id)
    return f":.{context}:{subject}"


def context_name(group_id: str) -> str:
    return "." if group_id == default_group() else f".{unquote(group_id)}"
