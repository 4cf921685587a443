"""Schema compatibility between versions, with the seven levels of docs/api-contract.md section 5.

backward: a reader using the new schema can read data written with the old one; forward: a reader using the
old schema can read data written with the new one; full: both. Transitive levels compare the new version with
every earlier version, the others with the latest earlier one only. JSON Schema, Avro and Protobuf are
checked (rules in docs/schema-compatibility.md); other formats are always compatible. Earlier versions that
no longer parse are skipped.

Every checker module offers `load(content: bytes)` (ValueError when unparseable) and
`compare(old, new, direction: "backward" | "forward") -> list[Incompatibility]`, which must not change the
schemas it is given: parsed documents are shared between comparisons (`_parsed`).

A transitive check compares the new version once per identity of the earlier ones (issue 29): versions that every
comparison treats alike (the same document, or for JSON Schema the same less annotations the checker never reads,
`jsonschema.identity`) give the same incompatibilities, so the later ones would add none to the first one's; a
checker without `identity` counts a document's bytes as its identity. A schema with hundreds of versions that differ
in their descriptions is checked in a few comparisons instead of one per version. The places compared are kept per
list of earlier versions (`_Frontier`, up to FRONTIER_BYTES of documents per process), so the check of the next version
looks up the identity of the version added since alone.

Verdicts are cached too (issue 14): the incompatibilities of (family, old, new, direction) are kept in a
bounded cache keyed by the sha256 of both documents, so creating a version under a transitive level does not
compare again the pairs an earlier request already compared. Verdicts reached through RecursionError are not
cached; callers get a new list each time (its Incompatibility items are frozen).

References (issue 25): an Avro document may use named types defined in documents the writer resolved (the Confluent
API's references, `references`, deepest first): every document of the check, the new one and the earlier ones, is
parsed knowing their named types. (The earlier versions are read with the new one's references: Confluent keeps each
version's own, but a type that a referenced subject's later version changed is the only case where they differ.)
A JSON Schema may `$ref` the documents of its references by their names (Confluent's clients resolve a reference's
`name` to its schema): each referenced document comes with its name as its `$id` (confluent.schema_types), and the
checker reads the `$ref`s that name one as local references into a bundle of them (`jsonschema.load`), at any depth
and under any keyword. Other formats' checkers do not read them. Without references each document stands alone, as always.

Budget (issue 24): `compare_versions` and `check_compatibility` run within REGISTRY_CHECK_SECONDS
(catalog.validators.budget; the budget of the enclosing check when there is one, such as a dry run). The checkers
spend a step per comparison of two subschemas or types and per field; past the budget the check raises the
503 problem naming it, and nothing is cached.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from registry.domain.model import COMPATIBILITY_LEVELS
from registry.store.bounded_cache import BoundedCache

from .. import budget
from ..digest_cache import digest
from ..format_names import schema_format_family
from .result import Incompatibility

LEVELS = COMPATIBILITY_LEVELS  # the engine's list (the 1.0 `meta` entity's values); their meaning is here
DIRECTIONS = {"none": (), "backward": ("backward",), "forward": ("forward",), "full": ("backward", "forward")}
# parsed documents kept per process, the ones used last, up to this many document bytes in all: a transitive
# check parses every earlier version of a schema, so the budget holds hundreds of typical schemas
PARSED_CACHE_BUDGET_BYTES = 16 * 1024 * 1024
PARSED_CACHE_MAX_BYTES = 256 * 1024  # larger documents are parsed on every use, to bound the cache's memory
VERDICT_CACHE_SIZE = 4096  # compatibility verdicts kept per process (a digest and a tuple each)
_verdicts = BoundedCache("compatibility_verdicts", max_entries=VERDICT_CACHE_SIZE)

__all__ = ["LEVELS", "Incompatibility", "check_compatibility", "compare_versions", "offered_levels"]
REFERRING = ("Avro", "JsonSchema")  # the formats whose checkers read the references (module docstring)
# the formats whose versions are compared (a checker module each), and the levels they offer: every level but `none`,
# which means no level (CONTRACT 18); the xRegistry 1.0 capability `compatibilities` lists these
CHECKED_FAMILIES = ("JsonSchema", "Avro", "Protobuf")
OFFERED = tuple(level for level in LEVELS if level != "none")


def offered_levels(format: str | None) -> tuple[str, ...]:  # noqa: A002
    """The compatibility levels a schema format offers: all of OFFERED for the formats compared here, none for the
    others (XSD, formats this server does not know, no format): a schema of those shows no level and none is
    checked."""
    return OFFERED if schema_format_family(format)[0] in CHECKED_FAMILIES else ()


@functools.cache
def _checker(family: str | None):
    if family == "JsonSchema":
        # here: each format's checker (and its parser library) loads with the first check of that format
        from . import jsonschema

        return jsonschema
    if family == "Avro":
        # here: each format's checker (and its parser library) loads with the first check of that format
        from . import avro

        return avro
    if family == "Protobuf":
        # here: each format's checker (and its parser library) loads with the first check of that format
        from . import protobuf

        return protobuf
    return None


def _parse(family: str, content: bytes, references: tuple[bytes, ...] = ()) -> tuple[object, bytes]:
    checker = _checker(family)
    parsed = checker.load(content, references) if references else checker.load(content)
    identify = getattr(checker, "identity", None)
    return parsed, identify(parsed) if identify is not None else content


# parsed documents and their identities by (family, bytes, references): the key is what they were built from
_parsed_documents = BoundedCache(
    "parsed_schemas", max_bytes=PARSED_CACHE_BUDGET_BYTES, max_item_bytes=PARSED_CACHE_MAX_BYTES
)


def _parsed(family: str, content: bytes, references: tuple[bytes, ...] = ()):
    """The checker's parse of `content`. A transitive check compares a new version with every earlier one,
    and the next version with all of them again, so a schema's versions are parsed once each, not once per
    pair; failures are not cached (they raise again)."""
    return _parsed_and_identity(family, content, references)[0]


def _parsed_and_identity(family: str, content: bytes, references: tuple[bytes, ...] = ()) -> tuple[object, bytes]:
    key = (family, content, references)
    kept = _parsed_documents.get(key)
    if kept is None:
        kept = _parse(family, content, references)  # failures raise and are not kept; larger ones are not kept
        _parsed_documents.put(key, kept, size=len(content) + sum(len(r) for r in references))
    return kept


def _identity(family: str, content: bytes, references: tuple[bytes, ...] = ()) -> bytes | None:
    """What a transitive check compares once (module docstring); None when the document does not parse."""
    try:
        return _parsed_and_identity(family, content, references)[1]
    except (ValueError, RecursionError):
        return None


def compare_versions(
    format: str | None,  # noqa: A002
    old: bytes,
    new: bytes,
    direction: str,
    references: tuple[bytes, ...] = (),
) -> list[Incompatibility]:
    """The incompatibilities of one step `old` -> `new` in one direction (`backward` or `forward`)."""
    family = schema_format_family(format)[0]
    if family is None or _checker(family) is None:
        return []
    references = tuple(references) if family in REFERRING else ()
    key = digest(family, old, new, direction, *references)
    cached = _verdicts.get(key)
    if cached is not None:
        return list(cached)
    with budget.limit("the compatibility check"):
        found, deterministic = _compare_uncached(family, old, new, direction, references)
    if deterministic:
        _verdicts.put(key, tuple(found))
    return list(found)


def _compare_uncached(
    family: str, old: bytes, new: bytes, direction: str, references: tuple[bytes, ...] = ()
) -> tuple[list[Incompatibility], bool]:
    """compare_versions's verdict, computed, and whether it may be cached (not reached through RecursionError)."""
    checker = _checker(family)
    try:
        old_schema = _parsed(family, old, references)
    except RecursionError:
        return [], False
    except ValueError:
        return [], True  # an unparseable earlier version is skipped
    try:
        new_schema = _parsed(family, new, references)
    except (ValueError, RecursionError) as exc:
        issue = Incompatibility("(root)", "the new version does not parse", f"no reader can use it: {exc}")
        return [issue], not isinstance(exc, RecursionError)
    try:
        return checker.compare(old_schema, new_schema, direction), True
    except RecursionError:
        return [Incompatibility("(root)", "schemas nested too deeply to compare", "compatibility is not proven")], False


def check_compatibility(
    format: str | None,  # noqa: A002
    level: str,
    previous: Sequence[bytes],
    new: bytes,
    references: tuple[bytes, ...] = (),
) -> list[Incompatibility]:
    """Every incompatibility of `new` with `previous` (earlier versions, oldest first) under `level`; `references`:
    documents whose named types the Avro documents may use (module docstring).

    [] means compatible. ValueError for a level not in LEVELS.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown compatibility level {level!r}; one of {', '.join(LEVELS)}")
    directions = DIRECTIONS[level.removesuffix("_transitive")]
    if not directions or not previous or _checker(schema_format_family(format)[0]) is None:
        return []
    with budget.limit("the compatibility check"):
        return _check_all(format, directions, previous, new, level.endswith("_transitive"), tuple(references))


def _check_all(
    format: str | None,  # noqa: A002
    directions,
    previous: Sequence[bytes],
    new: bytes,
    transitive: bool,
    references: tuple[bytes, ...] = (),
):
    others = previous if transitive else previous[-1:]  # (not changed here: no copy of a long history)
    family = schema_format_family(format)[0]
    if family is None:  # a format without a checker: check_compatibility answered before
        return []
    references = references if family in REFERRING else ()
    found: list[Incompatibility] = []
    seen: set[tuple[str, str, str]] = set()
    for index in _to_compare(family, others, references):
        old = others[index]
        for direction in directions:
            for issue in compare_versions(format, old, new, direction, references):
                key = (issue.path, issue.change, issue.reason)
                if key in seen:
                    continue
                seen.add(key)
                if len(others) > 1:
                    issue = Incompatibility(
                        issue.path, issue.change, f"{issue.reason} (earlier version {index + 1} of {len(others)})"
                    )
                found.append(issue)
    return found


def _to_compare(family: str, others: Sequence[bytes], references: tuple[bytes, ...]) -> list[int]:
    """The places in `others` that a check compares the new version with, in order: of several, the first of each
    identity and every one that does not parse (module docstring), through the identities kept for the same earlier
    versions (`_Frontier`): only the versions added since are looked at."""
    if len(others) <= 1:
        return list(range(len(others)))
    return _frontier(family, others, references).places


def _new_identity(family: str, old: bytes, references: tuple[bytes, ...], identities: set[bytes]) -> bool:
    """Whether `old` is to be compared (an identity not in `identities`, now added; or none: it does not parse)."""
    same = _identity(family, old, references) if references else _identity(family, old)
    if same is None:
        return True
    if same in identities:
        return False
    identities.add(same)
    return True


@dataclass(frozen=True)
class _Frontier:
    """The earlier versions of a transitive check (the document objects given, oldest first) and the places a check
    compares among them, with their identities: a schema's next version is checked against the same versions and
    the one added, and looking up each version's identity again cost a lookup per version."""

    documents: Sequence[bytes]
    places: list[int]
    identities: frozenset[bytes]
    size: int  # bytes of the documents


FRONTIER_BYTES = 16 * 1024 * 1024  # documents the kept frontiers refer to, per process (most are kept elsewhere too)
# by (family, references, first document); an entry is good for the lists that begin with its documents (checked)
_frontiers = BoundedCache("compatibility_frontiers", max_bytes=FRONTIER_BYTES)


def _frontier(family: str, others: Sequence[bytes], references: tuple[bytes, ...]) -> _Frontier:
    """The places to compare in `others` (all of them from the first): from the frontier kept for a list that `others`
    begins with, looking at the rest alone."""
    key = (family, references, others[0])  # (another schema with the same first version: one replaces the other)
    kept = _frontiers.get(key, counted=False)
    done = len(kept.documents) if kept is not None else 0
    # (the same document objects from one check to the next, registry/store/earlier_documents.py: compared by identity first)
    if kept is None or done > len(others) or not all(map(operator.eq, kept.documents, others)):
        kept, done = None, 0
    _frontiers.count(hit=kept is not None)
    if kept is not None and done == len(others):
        return kept
    places = list(kept.places) if kept is not None else []
    identities = set(kept.identities) if kept is not None else set()
    for index in range(done, len(others)):
        if _new_identity(family, others[index], references, identities):
            places.append(index)
    size = (kept.size if kept is not None else 0) + sum(len(old) for old in others[done:])
    frontier = _Frontier(others if isinstance(others, tuple) else tuple(others), places, frozenset(identities), size)
    _frontiers.put(key, frontier, size=size)  # (not kept when larger than FRONTIER_BYTES alone)
    return frontier
