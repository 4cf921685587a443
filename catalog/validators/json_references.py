"""JSON Schema references resolve only inside the registry (CONTRACT.md section 19): nothing is fetched.

Every jsonschema validator the registry builds (message checks, the meta-validation of schema documents, the AsyncAPI
specification's schemas) is given `schema_registry()`: a `referencing.Registry` whose `retrieve` fetches nothing.
jsonschema's own default would: a validator built without `registry=` resolves an unknown `http(s)` URI with
`urllib.request.urlopen` (jsonschema 4.18 to at least 4.26, the pinned version: `_REMOTE_WARNING_REGISTRY`, with no
timeout, no size limit, following redirects), and its legacy `RefResolver` (`resolver=`) does the same; neither is
used anywhere. jsonschema-rs validators (the fast path of meta-validation and of the AsyncAPI check) are given
`refuse_retrieval` as their retriever for the same reason: that library fetches `http(s)` references by default.

What a reference may name (the metaschemas of the drafts aside, which jsonschema and jsonschema-rs carry in
process):

- a place inside its own document (`#/definitions/x`, an anchor, an embedded `$id`);
- a JSON Schema stored in this registry, while a check runs inside `stored_schemas(lookup)`: `lookup(uri)` maps the
  URI (a registry path such as `/schemaGroups/G/schemas/S[/versions/V]`, or an absolute URL under this server)
  to the stored document, read from the database with the caller's read scope (catalog.message_checks).

Anything else is unresolvable: the `$ref` keyword's evaluation fails, and the check reports it as not checked
(`unresolvable_reason` words it, naming the reference as written; never anything a URL would have answered).
Retrieved documents are not kept by the validators (a `referencing` registry grows only in the resolver of one
evaluation), so a reference to a schema without a version id reads its latest version at each check.

Avro and Protobuf (checked here too, CONTRACT.md section 19): fastavro's `parse_schema` knows only the named types it
is given (`named_schemas`: the Confluent references of a version, read from the store by the writer), and an unknown
name is an error, never a fetch; Protobuf `import`s are parsed as text (proto-schema-parser) or come as the
FileDescriptorProtos of stored references (confluent.protobuf), never read from anywhere else. XSD imports and
includes are not read either (xmlschema with `allow="none"`, catalog.validators.schemas and message_xml).
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# lookup(uri) -> the stored JSON Schema document a registry-internal URI names (its parsed value and the draft's
# `$schema` URI, or None for the document's own), or None when it names none the caller may read
Lookup = Callable[[str], "tuple[object, str | None] | None"]

_lookup: contextvars.ContextVar[Lookup | None] = contextvars.ContextVar("stored_schema_lookup", default=None)

REASON = "references resolve only to JSON Schemas stored in this registry; nothing is fetched"


def _retrieve(uri: str):
    """The `retrieve` of `schema_registry()`: a stored schema the running check's lookup finds, else NoSuchResource
    (which `referencing` reports as an unresolvable reference)."""
    # here: referencing loads with the first JSON Schema check, not at the start-up of every process
    from referencing import Resource
    from referencing.exceptions import NoSuchResource
    from referencing.jsonschema import DRAFT7, specification_with

    lookup = _lookup.get()
    found = lookup(uri) if lookup is not None and uri else None
    if found is None:
        raise NoSuchResource(uri)
    contents, dialect = found
    default = specification_with(dialect, default=DRAFT7) if dialect else DRAFT7
    return Resource.from_contents(contents, default_specification=default)


@functools.cache
def schema_registry():
    """The one `referencing.Registry` of every JSON Schema validator the registry builds: no retrieval beyond the
    stored schemas of the running check (module docstring). jsonschema adds the drafts' metaschemas to it."""
    # here: referencing loads with the first JSON Schema check, not at the start-up of every process
    from referencing import Registry

    return Registry(retrieve=_retrieve)  # type: ignore[call-arg]


def refuse_retrieval(uri: str):
    """The retriever of jsonschema-rs validators: nothing is fetched (they resolve the drafts' metaschemas
    themselves)."""
    raise ValueError(f"the reference {uri!r} cannot be resolved: {REASON}")


@contextmanager
def stored_schemas(lookup: Lookup) -> Iterator[None]:
    """Within the block, references that `lookup` maps to a stored JSON Schema resolve to it (this thread or task
    only: a context variable, so cached validators hold no caller's rights)."""
    token = _lookup.set(lookup)
    try:
        yield
    finally:
        _lookup.reset(token)


def unresolvable_reason(exc: BaseException) -> str | None:
    """How a check words `exc` when it is a reference that did not resolve (None for any other failure): the
    reference as written, and why; never what any URL would have answered."""
    # here: referencing loads with the first JSON Schema check, not at the start-up of every process
    from referencing.exceptions import NoSuchAnchor, PointerToNowhere, Unresolvable

    if not isinstance(exc, Unresolvable):
        return None
    wrapped = getattr(exc, "_wrapped", exc)  # jsonschema's _WrappedReferencingError
    ref = str(getattr(wrapped, "ref", ""))[:300]
    if isinstance(wrapped, PointerToNowhere | NoSuchAnchor):
        return f"the reference {ref!r} points to nothing in the schema it names"
    return f"the reference {ref!r} cannot be resolved: {REASON}"


__all__ = ["REASON", "refuse_retrieval", "schema_registry", "stored_schemas", "unresolvable_reason"]
