"""A schema version's Confluent references (docs/confluent.md): `[{"name", "subject", "version"}]`, each naming a
subject version whose schema this one uses (an Avro named type, a Protobuf import, a JSON Schema `$ref`).

They are kept where every binding carries them: the version attribute `references` (schema_types.REFERENCES),
which the Confluent API writes when it registers a version and the 0.5 and 1.0 bindings show, export and import
like any other attribute (the Confluent tables keep a copy, `SubjectVersion.references`, in step with it:
confluent.numbering). So that a version written through any other door (an update in place, a document import, the
admin) is checked as a registration here is, `stored_documents` is the registry's resolver of the schema type
(registry.domain.referenced_documents, registered by ConfluentConfig.ready): it reads the documents the attribute names
from the store, for the catalog's Avro check.

- `resolve_references`, `resolve_stored_references`: a registration's references, resolved (42201 when one names
  nothing, forms a cycle, or there are too many).
- `stored_documents(check)`: the documents a version's attribute names, deepest first; 400 naming the reference
  (`validation.Unresolved`, which a document import tries again after the rest of the document) otherwise.
- `referenced_versions(holders)`: the registry's reference extractor of the attribute (registry.domain.references,
  registered with the resolver): each reference, as its JSON text, and the entity path of the subject version it
  names. So the registry's delete rule (409 unless `?force=true`), `?referencedby` and the admin's references
  count Confluent references through every door, as /confluent's own 42206 does.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from registry.domain.referenced_documents import register_document_resolver
from registry.domain.references import register_attribute_reference_extractor
from registry.domain.validation import Invalid, Unresolved, VersionCheck, at

from . import selectors
from .errors import ConfluentError, invalid_schema
from .models import SubjectVersion
from .schema_types import (
    REFERENCES,
    Referenced,
    attribute_references,
    referenced_documents,
    references_problem,
    type_of_format,
)
from .subjects import GROUPS, SCHEMAS, Subject, parse

MAX_REFERENCE_DEPTH = 32
MAX_REFERENCES = 256

Refusal = Callable[[str], Exception]


def _resolve(
    references: list[dict],
    path: tuple,
    budget: list[int],
    *,
    refuse: Refusal = invalid_schema,
    missing: Refusal = invalid_schema,
    itself: tuple[str, str, str] | None = None,
) -> list[Referenced]:
    """The referenced versions, with theirs, depth first. `refuse` builds the error of a cycle or too many,
    `missing` that of a reference to nothing; `itself` (group, schema, version ids) is the version being written,
    which cannot be among them."""
    out = []
    for ref in references:
        budget[0] += 1
        if budget[0] > MAX_REFERENCES:
            raise refuse(f"more than {MAX_REFERENCES} references (with the references' own)")
        if len(path) >= MAX_REFERENCE_DEPTH:
            raise refuse(f"references nested deeper than {MAX_REFERENCE_DEPTH} levels")
        key = (ref["subject"], ref["version"])
        if key in path:
            raise refuse(f"reference cycle through subject {ref['subject']!r} version {ref['version']}")
        subject = parse(ref["subject"])
        try:
            resource, row = selectors.one_version(subject, str(ref["version"]), deleted=True)
        except ConfluentError:
            raise missing(f"reference {ref['name']!r}: subject {ref['subject']!r} has no version {ref['version']}")
        if itself is not None and (resource.group.gid, resource.rid, row.version.vid) == itself:
            raise refuse(f"reference {ref['name']!r} names the version itself: a cycle")
        schema_type = row.schema_id.schema_type
        text = bytes(row.version.content or b"").decode("utf-8", "replace")
        nested = _resolve(row.references or [], (*path, key), budget, refuse=refuse, missing=missing, itself=itself)
        out.append(Referenced(ref["name"], ref["subject"], row.number, schema_type, text, nested))
    return out


def resolve_references(references: list[dict], subject: Subject, number: int | None = None) -> list[Referenced]:
    start = ((subject.name, number),) if number is not None else ()
    for ref in references:
        if ref["subject"] == subject.name and number is None:
            raise invalid_schema(f"reference {ref['name']!r} names the subject being registered: a cycle")
    return _resolve(references, start, [0])


def resolve_stored_references(references: list[dict]) -> list[Referenced]:
    """The references kept with a stored version, resolved for reading (a Protobuf descriptor's imports)."""
    return _resolve(references, (), [0])


def _invalid(text: str) -> Invalid:
    return Invalid([at(REFERENCES, f": {text}")])


def _unresolved(text: str) -> Unresolved:
    return Unresolved([at(REFERENCES, f": {text}")])


def stored_documents(check: VersionCheck) -> tuple[bytes, ...]:
    """The registry's resolver of a schema version's `references` attribute (registry.domain.referenced_documents), called
    when the writer gave no documents: those the references name, from the store, deepest first. Only versions of
    the formats this API serves (Avro, JSON Schema, Protobuf) are read; a reference to no subject version is
    `Unresolved` (400 naming it; nothing is written)."""
    value = check.attributes.get(REFERENCES)
    fmt = check.attributes.get("format") or check.resource_attributes.get("format")  # (the schema's, if it names none)
    if value is None or check.resource_uri or type_of_format(fmt) is None:
        return ()
    problem = references_problem(value)
    if problem is not None:
        raise Invalid([at(REFERENCES, f" {problem}", value)])
    itself = (check.group_id, check.resource_id, check.version_id) if check.group_type == GROUPS else None
    references = attribute_references(check.attributes)
    for ref in references:
        try:
            parse(ref["subject"])
        except ConfluentError as exc:  # not a subject's name (control characters, too long)
            raise _invalid(f"reference {ref['name']!r}: {exc.message}")
    resolved = _resolve(references, (), [0], refuse=_invalid, missing=_unresolved, itself=itself)
    return referenced_documents(resolved)


def referenced_versions(holders: list[dict]) -> list[list[tuple[str, str | None]]]:
    """The references of stored versions' `references` attributes as the registry's delete rule reads them
    (registry.domain.references): for each version's attributes, `(the reference's JSON text, the path of the version it
    names)`; one query for all. Read on versions of the formats this API serves only, as the resolver does. A
    subject version's number is the one this API gave it (`SubjectVersion`: the version a reference names was
    numbered when the reference was checked); a number without a row (a subject not numbered since, or a version
    gone) names the version of that id, the id a subject's versions are numbered by where they can be
    (confluent.numbering)."""
    named: list[list[tuple[dict, Subject]]] = []
    for attributes in holders:
        mine = []
        if type_of_format(attributes.get("format")) is not None:
            for ref in attribute_references(attributes):
                try:
                    mine.append((ref, parse(ref["subject"])))
                except ConfluentError:
                    continue  # not a subject's name: it names no version
        named.append(mine)
    subjects = {subject for mine in named for _ref, subject in mine}
    numbered: dict[tuple, str] = {}
    if subjects:
        rows = SubjectVersion.objects.filter(
            resource__group__group_type=GROUPS,
            resource__group__gid__in={s.group_id for s in subjects},
            resource__resource_type=SCHEMAS,
            resource__rid__in={s.resource_id for s in subjects},
        ).values_list("resource__group__gid", "resource__rid", "number", "version__vid")
        # (groups x ids may read other subjects' rows too: the keys are exact)
        numbered = {(gid, rid, number): vid for gid, rid, number, vid in rows}
    out: list[list[tuple[str, str | None]]] = []
    for mine in named:
        found: list[tuple[str, str | None]] = []
        for ref, subject in mine:
            vid = numbered.get((subject.group_id, subject.resource_id, ref["version"]), str(ref["version"]))
            found.append(
                (json.dumps(ref), f"/{GROUPS}/{subject.group_id}/{SCHEMAS}/{subject.resource_id}/versions/{vid}")
            )
        out.append(found)
    return out


def register() -> None:
    register_document_resolver(GROUPS, SCHEMAS, stored_documents)
    register_attribute_reference_extractor(GROUPS, SCHEMAS, REFERENCES, referenced_versions)
