"""Search of the registry (the governance UI's search box): groups, resources and versions by id, name,
description, tag values, format and the text inside their documents.

Every word of the query must be found, each anywhere: in an id, name, tag or format (a substring, any case),
or in a name, description or document. On PostgreSQL the latter uses its full-text search
(`django.contrib.postgres.search`, the `simple` configuration: identifiers are not stemmed; a word matches
as a prefix, so `temp` finds `temperature`), served by the GIN index of registry migration 0004 in a query
of its own whose ids the rest of the search takes as one array parameter; elsewhere (SQLite) it is a
case-insensitive substring test of the document's text.

- `matching_groups(q)`, `matching_resources(q)`, `matching_versions(q)`: querysets; `resource_condition(q)`,
  `version_condition(q)`: the same as conditions, for changelists.
- `search(q, limit, scope)`: what the search page lists: groups, and resources with the versions that matched, of the
  groups `scope` reads (registry/access/read_scope.py), each with its group's owners. The page's resources are chosen
  by one narrow statement (their ids in path order and the count of all, the group's keys read per matching resource
  rather than joining every group), then only their rows are read, and of their newest SHOWN_AMONG versions only ids
  and documents until the one shown is known (the latest whose document holds a word, else the resource's latest).

On PostgreSQL no search reads every version or resource, however common its words (`_every_word`): each word's matches
are looked up in at most LOOKUP_CAP rows per lookup (the first the indexes find), a word whose lookup had more is
looked up again among what the other words matched, and when a lookup still had more the results are the matches
among the first found: `capped` says so and the page asks for more words rather than listing them all. The groups
(far fewer than the versions) are read whole.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib.postgres.search import SearchQuery, SearchVector
from django.db import connection, transaction
from django.db.models import (
    BooleanField,
    Count,
    F,
    Func,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
    Window,
)
from django.db.models.functions import Cast, Mod, RowNumber
from django.db.models.lookups import Exact

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models.sql.compiler import SQLCompiler, _AsSqlType

from ..access.permissions import owners_of_group
from ..access.read_scope import EVERYTHING, ReadScope
from ..domain.attributes import version_sort_key
from ..models import Group, Resource, Version

MAX_WORDS = 8
CONFIG = "simple"
LOOKUP_CAP = 1_000  # rows a word is looked up in, per lookup (PostgreSQL): never a list of every match
SEARCH_INDEX = "version_search"  # the GIN index of the documents' vectors (migration 0004), whose statistics are read
SAMPLES = (4096, 1024, 256, 64, 16)  # every n-th version's vectors indexed too (migrations 0020, 0021), sparsest first
ENTRIES_PER_VECTOR = 40  # a document's vector computed costs about as much as reading 40 entries of an index's list
SHOWN_AMONG = 50  # a hit's newest versions whose documents are read for the one the page shows
CAPPED = ("capped",)  # the memo's key: whether a word's lookup found more than LOOKUP_CAP rows


def words(query: str) -> list[str]:
    """The query's words (whitespace-separated, at most MAX_WORDS; quotes around a word are dropped). A NUL
    character separates words too: PostgreSQL refuses it in any text (it was a 500)."""
    text = (query or "").replace("\x00", " ")
    return [w.strip("\"'") for w in text.split() if w.strip("\"'")][:MAX_WORDS]


def full_text() -> bool:
    return connection.vendor == "postgresql"


def document_text():
    """A version's document as text: on PostgreSQL `encode(content, 'escape')` (never fails on odd bytes)."""
    if full_text():
        return Func("content", Value("escape"), function="encode", output_field=TextField())
    return Cast("content", TextField())


def search_vector():
    """The expression the GIN index of migration 0004 holds (kept identical, or the index is not used)."""

    return SearchVector("name", "description", document_text(), config=CONFIG)  # each coalesced to ''


def ts_query(word: str):

    if re.fullmatch(r"\w+", word):
        return SearchQuery(f"{word}:*", search_type="raw", config=CONFIG)  # \w only: nothing to escape
    return SearchQuery(word, search_type="plain", config=CONFIG)


class InArray(Func):
    """`expression = ANY(%s::bigint[])`: one parameter however many values (PostgreSQL), sent as the array's text
    (`{1,2,3}`): the driver's quoting of a list of 2,000 ids cost more than the query it was part of (issue 40)."""

    output_field = BooleanField()

    def as_sql(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, *args: Any, **extra: Any) -> _AsSqlType:
        lhs, lhs_params = compiler.compile(self.source_expressions[0])
        rhs, rhs_params = compiler.compile(self.source_expressions[1])
        return f"{lhs} = ANY(({rhs})::bigint[])", [*lhs_params, *rhs_params]


def pk_in(ids, field: str = "pk") -> Q:
    """`field` among `ids`: on PostgreSQL one array parameter (InArray), elsewhere (SQLite, small) a list."""
    if not full_text():
        return Q(**{f"{field}__in": list(ids)})
    return Q(InArray(F(field), Value("{" + ",".join(str(int(i)) for i in ids) + "}", output_field=TextField())))


def _common(word: str, prefix: str = "") -> Q:
    """Id-like attributes held by groups, resources and versions: name, tag values and format (substrings)."""
    return (
        Q(**{f"{prefix}name__icontains": word})
        | Q(**{f"{prefix}tags__icontains": word})
        | Q(**{f"{prefix}extensions__format__icontains": word})
    )


def sampled(every: int) -> Q:
    """Every `every`-th version by id: the condition of a sample's index (registry migration 0020), written the same
    way in the lookups that read it, so that the planner proves the index covers them."""
    return Q(Exact(Mod(F("id"), Value(every)), Value(0)))


def _expected(word: str) -> float:
    """How many documents `word` matches at least, by ANALYZE's statistics of the index's vectors (one catalogue
    query): the largest frequency among the most common lexemes the word is a prefix of, times the table's estimated
    rows; 0 for a word with other characters than letters, digits and `_` (its query is not a prefix: `ts_query`)."""
    if not re.fullmatch(r"\w+", word):
        return 0.0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(max(m.f), 0), (SELECT reltuples FROM pg_class WHERE oid = %s::regclass) FROM pg_stats s, "
            "unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS m(e, f) "
            "WHERE s.schemaname = current_schema() AND s.tablename = %s AND starts_with(m.e, lower(%s))",
            [Version._meta.db_table, SEARCH_INDEX, word],
        )
        share, rows = cursor.fetchone()
    return float(share) * max(float(rows or 0), 0.0)


def _sample_for(expected: float) -> int | None:
    """The sparsest sample (SAMPLES) expected to hold one and a half times the LOOKUP_CAP + 1 documents a capped lookup
    reads, or None (then the whole index is read: the word is rare, or the registry small). Each sampled entry is a
    heap page of its own in the lookup's bitmap: the sparsest sample that holds enough keeps that bitmap small."""
    return next((every for every in SAMPLES if expected / every >= 1.5 * (LOOKUP_CAP + 1)), None)


def _documents(word: str, restrict: Q) -> list[tuple[int, int]]:
    """(id, resource id) of at most LOOKUP_CAP + 1 versions whose name, description or document match `word`
    (full-text: the GIN index of migration 0004). A GIN index reads its whole list of the documents that hold the word
    before the LIMIT applies (a word in every document: a list as long as the registry; no ordered scan stops early),
    so for a word the statistics say is common (`_expected`):
    - a lookup among every version reads a sample's index instead (`_sample_for`: every 16th, 64th, ... or 4,096th
      version, migrations 0020 and 0021), whose list is a 16th to a 4,096th as long; when the sample holds no more
      than LOOKUP_CAP matches after all (statistics are estimates), the whole index is read;
    - a lookup among given rows (`restrict`: a capped word looked up again among another's matches) computes those
      rows' vectors when they are fewer than ENTRIES_PER_VECTOR times the entries of the word's list."""
    found = Version.objects.alias(_search=search_vector()).filter(_search=ts_query(word)).filter(restrict).order_by()
    expected = _expected(word)
    every = _sample_for(expected)
    if every is not None and not restrict:  # an empty Q is false: the lookup among every version
        rows = list(found.filter(sampled(every)).values_list("pk", "resource_id")[: LOOKUP_CAP + 1])
        if len(rows) > LOOKUP_CAP:
            return rows
    elif every is not None:
        bound = int(expected / ENTRIES_PER_VECTOR)
        if Version.objects.filter(restrict).order_by()[:bound].count() < bound:
            # the text with one more blank: the same lexemes, an expression no index holds, so each row is tested
            vector = SearchVector("name", "description", document_text(), Value(""), config=CONFIG)
            scanned = Version.objects.alias(_search=vector).filter(_search=ts_query(word)).filter(restrict)
            return list(scanned.order_by().values_list("pk", "resource_id")[: LOOKUP_CAP + 1])
    return list(found.values_list("pk", "resource_id")[: LOOKUP_CAP + 1])


def _versions_of(
    word: str, versions: set[int] | None = None, resources: set[int] | None = None
) -> tuple[list[tuple[int, int]], bool]:
    """(id, resource id) of the versions whose name, tags or format hold `word` or whose name, description or document
    matches it (full-text), among `versions` or the versions of `resources` when given: two lookups, each in a query
    of its own (inside an OR PostgreSQL's planner tends to scan the table and compute every document's vector), each
    of at most LOOKUP_CAP rows, the first found; the flag says whether one had more. The substring one is served by
    the trigram indexes of migration 0017, or for a word most rows hold read in order to its LIMIT, as the planner's
    statistics of those expressions tell; the full-text one by `_documents`."""
    restrict = Q()
    if versions is not None:
        restrict &= pk_in(versions)
    if resources is not None:
        restrict &= pk_in(resources, "resource_id")
    substrings = Version.objects.filter(_common(word)).filter(restrict).order_by()
    rows: list[tuple[int, int]] = []
    capped = False
    for got in (list(substrings.values_list("pk", "resource_id")[: LOOKUP_CAP + 1]), _documents(word, restrict)):
        capped, rows = capped or len(got) > LOOKUP_CAP, rows + got[:LOOKUP_CAP]
    return rows, capped


def _matching_version_ids(word: str, within: set[int] | None) -> tuple[set[int], bool]:
    rows, capped = _versions_of(word, versions=within)
    return {pk for pk, _resource in rows}, capped


def _matching_resource_ids(word: str, within: set[int] | None) -> tuple[set[int], bool]:
    """A resource's own id, name, description, tags or format (at most LOOKUP_CAP, the first found), or a version's."""
    own = Resource.objects.filter(_resource_own(word))
    if within is not None:
        own = own.filter(pk_in(within))
    ids = list(own.order_by().values_list("pk", flat=True)[: LOOKUP_CAP + 1])
    rows, capped = _versions_of(word, resources=within)
    return set(ids[:LOOKUP_CAP]) | {resource for _pk, resource in rows}, capped or len(ids) > LOOKUP_CAP


# a word, the ids to look among (or None) -> the ids found, whether a lookup was capped
Lookup = Callable[[str, set[int] | None], tuple[set[int], bool]]


def _every_word(terms: list[str], lookup: Lookup, memo: dict | None) -> set[int]:
    """The ids that match every word (PostgreSQL), each word's lookups bounded (`_versions_of`): every word is looked
    up on its own, then the words are intersected starting from a word whose matches are complete and fewest, and a
    word whose lookups were capped is looked up again among the ids matched so far only. So a rare word with a common
    one finds every match, whatever the registry's size; when a lookup still had more, the matches are those among
    the first found (`memo[CAPPED]`, said on the page). A word in every version is never a list of them all, nor a
    scan of every row (issue 40)."""
    first = {word: lookup(word, None) for word in dict.fromkeys(terms)}
    order = sorted(first, key=lambda word: (first[word][1], len(first[word][0])))
    matched, capped = first[order[0]]
    for word in order[1:]:
        if not matched:
            break
        ids, word_capped = first[word]
        if word_capped:
            ids, word_capped = lookup(word, matched)
        matched, capped = matched & ids, capped or word_capped
    if capped and memo is not None:
        memo[CAPPED] = True
    return matched


def matching_versions(query: str, memo: dict | None = None) -> QuerySet:
    """Versions whose name, tags or format hold every word, or whose name, description or document does."""
    found = Version.objects.all()
    terms = words(query)
    if not terms:
        return found.none()
    if full_text():
        return found.filter(version_condition(query, memo))
    found = found.alias(_document=document_text())
    for word in terms:
        found = found.filter(_common(word) | Q(description__icontains=word) | Q(_document__icontains=word))
    return found


def _resource_own(word: str) -> Q:
    return Q(rid__icontains=word) | Q(description__icontains=word) | _common(word)


def matching_resources(query: str, memo: dict | None = None) -> QuerySet:
    """Resources whose id, name, description, tags or format hold every word, or one of whose versions does
    (a word found in the resource, another in its version counts too)."""
    found = Resource.objects.all()
    terms = words(query)
    if not terms:
        return found.none()
    if full_text():
        return found.filter(resource_condition(query, memo))
    for word in terms:
        found = found.filter(_resource_own(word) | Q(pk__in=matching_versions(word).values("resource_id")))
    return found


def version_condition(query: str, memo: dict | None = None) -> Q:
    """`matching_versions` as a condition on versions, for a changelist's own queryset: on PostgreSQL the matching ids
    as one array (a subquery of them, `pk IN (SELECT ...)`, made the planner read a whole index or join the page to
    every version), elsewhere the subquery."""
    if not full_text():
        return Q(pk__in=matching_versions(query).values("pk"))
    terms = words(query)
    return pk_in(_every_word(terms, _matching_version_ids, memo) if terms else ())


def resource_condition(query: str, memo: dict | None = None) -> Q:
    """`matching_resources` as a condition on resources, for a changelist's own queryset (as `version_condition`)."""
    if not full_text():
        return Q(pk__in=matching_resources(query).values("pk"))
    terms = words(query)
    return pk_in(_every_word(terms, _matching_resource_ids, memo) if terms else ())


def matching_groups(query: str) -> QuerySet:
    found = Group.objects.all()
    terms = words(query)
    if not terms:
        return found.none()
    for word in terms:
        found = found.filter(Q(gid__icontains=word) | Q(description__icontains=word) | _common(word))
    return found


@dataclass
class Hit:
    kind: str  # the group type or resource type's plural
    path: str
    obj: object  # the Group or Resource
    name: str = ""
    matched: list[str] = field(default_factory=list)  # where the words were found: "id", "document (v2)", ...
    owners: dict = field(default_factory=dict)  # its group's owners: team -> role


@dataclass
class Results:
    query: str
    hits: list[Hit]
    total: int
    ms: float
    full_text: bool
    capped: bool = False  # a word's lookup found more than LOOKUP_CAP rows: the results come from the first found


def _where(obj, terms: list[str], version: Version | None = None) -> list[str]:
    out = []
    lowered = [t.lower() for t in terms]
    ident = getattr(obj, "gid", None) or getattr(obj, "rid", "")

    def has(text) -> bool:
        text = (str(text) if text else "").lower()
        return any(t in text for t in lowered)

    for label, value in (
        ("id", ident),
        ("name", obj.name),
        ("description", obj.description),
        ("tags", " ".join(map(str, (obj.tags or {}).values()))),
        ("format", (obj.extensions or {}).get("format")),
    ):
        if has(value):
            out.append(label)
    if version is not None:
        for label, value in (
            ("name", version.name),
            ("description", version.description),
            ("tags", " ".join(map(str, (version.tags or {}).values()))),
            ("format", (version.extensions or {}).get("format")),
        ):
            if has(value) and label not in out:
                out.append(label)
        if has(bytes(version.content or b"").decode("utf-8", "replace")):
            out.append(f"document (version {version.vid})")
    return out or ["document"]


@contextmanager
def without_jit() -> Iterator[None]:
    """The statements inside in one transaction with PostgreSQL's JIT compilation off: the planner cannot estimate
    `LIKE '%word%'`, its guess put the search's statements over `jit_above_cost`, and compiling them took most of a
    statement that read a few hundred rows (docs/performance.md, issue 40 part B). Elsewhere (SQLite): nothing."""
    if not full_text():
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL jit = off")
        yield


def search(query: str, limit: int = 50, scope: ReadScope = EVERYTHING) -> Results:
    """Groups, then resources, that match every word (in the groups `scope` reads); `total` counts all, `hits` holds
    the first `limit`."""
    started = time.perf_counter()
    with without_jit():
        results = _search(query, limit, scope)
    results.ms = (time.perf_counter() - started) * 1000
    return results


def _search(query: str, limit: int, scope: ReadScope) -> Results:
    terms = words(query)
    groups = scope.filter(matching_groups(query)).order_by("group_type", "gid")
    memo: dict = {}
    resources = scope.filter(matching_resources(query, memo), "group__")
    hits = [Hit(g.group_type, g.path, g, g.name or "", _where(g, terms), owners_of_group(g)) for g in groups[:limit]]
    total, room = groups.count() if len(hits) == limit else len(hits), max(limit - len(hits), 0)
    chosen: list[Resource] = []
    if room:  # the page's ids in path order and the count of all in one narrow query; then only the page's rows
        groups_of = Group.objects.filter(pk=OuterRef("group_id")).order_by()
        page = list(
            resources.annotate(_type=Subquery(groups_of.values("group_type")), _gid=Subquery(groups_of.values("gid")))
            .order_by("_type", "_gid", "rid")
            .annotate(_total=Window(Count("pk")))
            .values_list("pk", "_total")[:room]
        )
        total += page[0][1] if page else 0
        rows = Resource.objects.select_related("group", "latest").in_bulk([pk for pk, _total in page])
        chosen = [rows[pk] for pk, _total in page]
    else:
        total += resources.count()
    lowered = [t.lower() for t in terms]
    best: dict[int, tuple[str, int]] = {}  # resource -> (vid, version id): the latest whose document holds a word
    newest = (  # of each hit, the newest SHOWN_AMONG versions' ids: a long resource's documents are not all read
        Version.objects.filter(resource__in=chosen)
        .annotate(_n=Window(RowNumber(), partition_by=F("resource_id"), order_by=F("pk").desc()))
        .filter(_n__lte=SHOWN_AMONG)
        .values_list("pk", flat=True)
    )
    for pk, resource_id, vid, content in Version.objects.filter(pk__in=list(newest)).values_list(
        "pk", "resource_id", "vid", "content"
    ):
        text = bytes(content or b"").decode("utf-8", "replace").lower()
        if any(t in text for t in lowered) and (
            resource_id not in best or version_sort_key(vid) > version_sort_key(best[resource_id][0])
        ):
            best[resource_id] = (vid, pk)
    shown_versions = Version.objects.only("resource_id", "vid", "name", "description", "tags", "extensions", "content")
    versions = {v.resource_id: v for v in shown_versions.filter(pk__in=[pk for _vid, pk in best.values()])}
    for resource in chosen:
        shown = versions.get(resource.pk) or resource.latest
        name = resource.name or (shown.name if shown else "") or ""
        hit = Hit(resource.resource_type, resource.path, resource, name, _where(resource, terms, shown))
        hit.owners = owners_of_group(resource.group)
        hits.append(hit)
    return Results(query, hits, total, 0.0, full_text(), capped=bool(memo.get(CAPPED)))
