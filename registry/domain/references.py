"""References between entities (docs/api-contract.md section 14), as apps register them (the engine names no
attribute of any app).

- `register_reference_extractor(group_plural, resource_plural, fn)`: `fn` returns the references an entity
  holds as `[(attribute name, reference as written), ...]`. With `resource_plural=None` it is called with a
  group's attributes (its extension attributes and the common ones); otherwise with each stored version's
  document when that is a JSON object (a definition's `schemaurl`). It never raises for odd shapes.
- `register_attribute_reference_extractor(group_plural, resource_plural, attribute, fn)`: for references held in
  a version's attribute `attribute` in an app's own terms rather than as URLs (a Confluent subject and version
  number). `fn` is called once per scan with a list: the attributes (extension and common ones, and `id`) of each
  stored version holding that attribute; it returns one list per version, in the same order, of
  `(reference as written, entity path it names or None)`, the app resolving them itself (reading the store once
  for all of them, say). It never raises for odd shapes.
- `resolve(reference, base_urls)`: the entity path a reference names in this registry (`#/G/g/R/r`,
  `/G/g/R/r/versions/v`, `<registry URL>/G/g`, with an optional `:Name` suffix naming a record or message
  inside a schema), or None for a reference elsewhere or to no entity path.
- `scan(base_urls, into=None)`: every reference held in the registry, resolved. It reads every group of the
  registered types and the versions holding an attribute extractor's attribute on each call, and every document of
  the registered types, or with `into` (what `referrers` asks) only the documents whose text may name one of those
  paths (a database filter on the ids in the text).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from django.db import connection
from django.db.models import BooleanField, Func, Q, TextField, Value
from django.db.models.functions import Lower

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models.sql.compiler import SQLCompiler, _AsSqlType

from .model import registry_model

Extractor = Callable[[dict], list[tuple[str, str]]]
AttributeExtractor = Callable[[list[dict]], list[list[tuple[str, str | None]]]]

extractors: dict[tuple[str, str | None], list[Extractor]] = {}
attribute_extractors: dict[tuple[str, str, str], list[AttributeExtractor]] = {}


def register_reference_extractor(group_plural: str, resource_plural: str | None, fn: Extractor) -> None:
    found = extractors.setdefault((group_plural, resource_plural), [])
    if fn not in found:
        found.append(fn)


def register_attribute_reference_extractor(
    group_plural: str, resource_plural: str, attribute: str, fn: AttributeExtractor
) -> None:
    found = attribute_extractors.setdefault((group_plural, resource_plural, attribute), [])
    if fn not in found:
        found.append(fn)


@dataclass(frozen=True)
class Reference:
    referrer: str  # entity path of the holder: a group, a resource (types keeping one version) or a version
    attribute: str
    written: str  # the reference as written
    target: str  # the entity path it names (canonical spelling of the types, ids as written)


def _origin(parts) -> tuple[str, str, int | None]:
    try:
        port = parts.port
    except ValueError:
        port = None
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)


def _relative_path(reference: str, base_urls: Iterable[str]) -> str | None:
    """The path below the registry root that a reference names, or None when it points elsewhere."""
    if reference.startswith("#"):
        return reference[1:] if reference.startswith("#/") else None
    base_urls = [b for b in base_urls if b]
    if not base_urls and reference.startswith("/") and not reference.startswith("//"):
        return reference  # no known URL of the registry: an absolute path is taken from its root
    for base in base_urls:
        root = base.rstrip("/") + "/"
        try:
            target, own = urlsplit(urljoin(root, reference)), urlsplit(root)
        except ValueError:
            continue
        if _origin(target) == _origin(own) and target.path.startswith(own.path):
            return "/" + target.path[len(own.path) :]
    return None


def resolve(reference, base_urls: Iterable[str] = ()) -> str | None:
    """The entity path (`/G/g`, `/G/g/R/r`, `/G/g/R/r/versions/v`) a reference names, or None."""

    if not isinstance(reference, str) or not reference:
        return None
    path = _relative_path(reference, base_urls)
    if path is None:
        return None
    path = path.split("?", 1)[0].split("#", 1)[0].split(":", 1)[0]  # ids hold no ':', '?' or '#'
    segments = [s for s in path.split("/") if s]
    if len(segments) < 2:
        return None
    gt = next((g for g in registry_model.group_types if g.plural.lower() == segments[0].lower()), None)
    if gt is None:
        return None
    out = [gt.plural, segments[1]]
    if len(segments) >= 4:
        rt = next((r for r in gt.resources if r.plural.lower() == segments[2].lower()), None)
        if rt is None:
            return None
        out += [rt.plural, segments[3]]
        if len(segments) >= 6:
            if segments[4].lower() != "versions":
                return None
            out += ["versions", segments[5]]
    return "/" + "/".join(out)


def within(path: str, root: str) -> bool:
    """Is `path` the entity `root` or beneath it (ids compared irrespective of case, as they are unique)?"""
    path, root = path.lower(), root.lower()
    return path == root or path.startswith(root + "/")


def _extract(fns: list[Extractor], data: dict) -> list[tuple[str, str]]:
    found = []
    for fn in fns:
        try:
            found += [(a, r) for a, r in fn(data) or () if isinstance(r, str)]
        except (TypeError, ValueError, AttributeError, KeyError):
            continue  # a malformed stored value holds no reference we can read
    return found


def _common(entity, entity_id: str) -> dict:
    """An entity's attributes as extractors read them: its id, its common attributes and its extension ones."""
    return {
        "id": entity_id,
        "name": entity.name,
        "description": entity.description,
        "tags": entity.tags,
        "docs": entity.docs,
        **(entity.extensions or {}),
    }


def _attribute_references(held_by=None) -> list[Reference]:
    """The references held in versions' attributes in apps' own terms (register_attribute_reference_extractor), of
    the versions `held_by` (a condition on them) when given."""
    # here: the Spark import's executors load this module without Django's app registry, where the models fail
    from ..models import Version

    out: list[Reference] = []
    for (gplural, rplural, attribute), fns in attribute_extractors.items():
        gt = registry_model.get(gplural)
        rt = gt.resources_by_plural.get(rplural) if gt is not None else None
        if rt is None or not fns:
            continue
        versions = (
            Version.objects.filter(
                resource__group__group_type=gplural, resource__resource_type=rplural, extensions__has_key=attribute
            )
            .select_related("resource__group")
            .defer("content")
        )
        if held_by is not None:
            versions = versions.filter(held_by)
        referrers, holders = [], []
        for version in versions:
            resource = version.resource
            if rt.versions == 0 and resource.latest_id not in (None, version.pk):
                continue
            referrers.append(resource.path if rt.versions == 0 else f"{resource.path}/versions/{version.vid}")
            holders.append(_common(version, version.vid))
        if not holders:
            continue
        for fn in fns:
            for referrer, found in zip(referrers, fn(holders), strict=True):
                out += [Reference(referrer, attribute, w, t) for w, t in found or () if isinstance(w, str) and t]
    return out


class _LikeAny(Func):
    """`text ILIKE ANY(patterns)`: one array parameter however many patterns (PostgreSQL)."""

    output_field = BooleanField()

    def as_sql(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, *args: Any, **extra: Any) -> _AsSqlType:
        lhs, lhs_params = compiler.compile(self.source_expressions[0])
        rhs, rhs_params = compiler.compile(self.source_expressions[1])
        return f"{lhs} ILIKE ANY({rhs})", [*lhs_params, *rhs_params]


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _may_point_into(roots: list[str]):
    """A condition on versions that holds for every version whose document may hold a reference into one of
    `roots` (a superset: `resolve` reads each candidate), or None (every document: on SQLite, or for a root that is
    no entity path). Such a reference, whichever way it is written (`#/G/g`, a path, the registry's URL, relative to
    it), holds the ids of the root in its text in their order (`resolve` neither decodes `%XX` nor compares ids but
    irrespective of case), unless the JSON text spells a character as `\\uXXXX`: those documents are candidates
    too. One `ILIKE ANY` of one pattern per root (`%g%r%`). Without it, `?referencedby` read every document of the
    types that hold references (issue 40)."""
    # here: django.contrib.postgres loads only where PostgreSQL is the database
    from django.contrib.postgres.fields import ArrayField

    if connection.vendor != "postgresql":
        return None
    patterns = ["%\\\\u%"]  # a backslash and u in the text as encode(..., 'escape') writes it (doubled)
    kept: set[tuple[str, ...]] = set()
    # (ILIKE: the ids irrespective of case; /G/g/R/r/versions/v -> g, r, v)
    for ids in sorted({tuple(s for s in root.lower().split("/") if s)[1::2] for root in roots}, key=len):
        if not ids:
            return None
        # a root's pattern matches every text its resources' and versions' patterns match (`%g%` and `%g%r%`): one
        # for a group and its hundred resources, not a hundred and one for each document to try
        if not any(ids[:n] in kept for n in range(1, len(ids))):
            kept.add(ids)
            patterns.append("%" + "%".join(_like(i) for i in ids) + "%")
    text = Func("content", Value("escape"), function="encode", output_field=TextField())
    return Q(_LikeAny(text, Value(sorted(set(patterns)), output_field=ArrayField(TextField()))))


def entity_pks(paths: Iterable[str]) -> tuple[set[int], set[int]]:
    """The primary keys of the groups and resources at `paths` (`/G/g`, `/G/g/R/r`; a version path names its
    resource; ids irrespective of case): two queries however many paths, served by the case-insensitive unique
    indexes."""
    # here: the Spark import's executors load this module without Django's app registry, where the models fail
    from ..models import Group, Resource

    groups: dict[tuple[str, str], set[tuple[str, str]]] = {}
    listed: set[tuple[str, str]] = set()  # groups named by their own path
    for path in paths:
        seg = [s for s in path.split("/") if s]
        if len(seg) < 2:
            continue
        gt = next((g for g in registry_model.group_types if g.plural.lower() == seg[0].lower()), None)
        if gt is None:
            continue
        named = groups.setdefault((gt.plural, seg[1].lower()), set())
        if len(seg) < 4:
            listed.add((gt.plural, seg[1].lower()))
        else:
            rt = next((r for r in gt.resources if r.plural.lower() == seg[2].lower()), None)
            if rt is not None:
                named.add((rt.plural, seg[3].lower()))
    if not groups:
        return set(), set()
    found = (
        Group.objects.annotate(_gid=Lower("gid"))
        .filter(group_type__in={t for t, _ in groups}, _gid__in={g for _, g in groups})
        .values_list("pk", "group_type", "_gid")
    )
    group_pks = {(t, g): pk for pk, t, g in found if (t, g) in groups}
    wanted = {group_pks[key]: named for key, named in groups.items() if key in group_pks and named}
    resource_pks: set[int] = set()
    if wanted:
        rids = {r for named in wanted.values() for _, r in named}
        rows = (
            Resource.objects.annotate(_rid=Lower("rid"))
            .filter(group_id__in=wanted, _rid__in=rids)
            .values_list("pk", "group_id", "resource_type", "_rid")
        )
        resource_pks = {pk for pk, g, t, r in rows if (t, r) in wanted[g]}
    return {pk for key, pk in group_pks.items() if key in listed}, resource_pks


def scan(
    base_urls: Iterable[str] = (), into: Iterable[str] | None = None, held_by: Iterable[str] | None = None
) -> list[Reference]:
    """Every resolvable in-registry reference held by a group or a version, in path order; with `into` (entity
    paths), at least those that point into one of them (the documents read are the ones that may: see
    `_may_point_into`); with `held_by` (group and resource paths), at least those held by them or their versions.
    Either reads only what the database finds for it."""
    from ..models import Group, Version  # here: catalog/types.py registers extractors from this module, and
    # the Spark import's executors load it without Django's app registry, where importing the models fails

    base_urls = [b for b in base_urls if b]
    candidates = _may_point_into(list(into)) if into is not None else None
    own_groups = own_versions = None
    if held_by is not None:
        group_pks, resource_pks = entity_pks(held_by)
        own_groups = Q(pk__in=group_pks)
        own_versions = Q(resource__group_id__in=group_pks) | Q(resource_id__in=resource_pks)
    out: list[Reference] = _attribute_references(own_versions)
    for (gplural, rplural), fns in extractors.items():
        gt = registry_model.get(gplural)
        if gt is None or not fns:
            continue
        if rplural is None:
            groups = Group.objects.filter(group_type=gplural).order_by("gid")
            for group in groups.filter(own_groups) if own_groups is not None else groups:
                for attribute, written in _extract(fns, _common(group, group.gid)):
                    target = resolve(written, base_urls)
                    if target:
                        out.append(Reference(group.path, attribute, written, target))
            continue
        rt = gt.resources_by_plural.get(rplural)
        if rt is None:
            continue
        versions = (
            Version.objects.filter(resource__group__group_type=gplural, resource__resource_type=rplural)
            .exclude(content=None)
            .select_related("resource__group")
            .only(
                "vid",
                "content",
                "resource__rid",
                "resource__resource_type",
                "resource__latest",
                "resource__group__gid",
                "resource__group__group_type",
            )
            .order_by("resource__group__gid", "resource__rid", "vid")
        )
        if candidates is not None:
            versions = versions.filter(candidates)
        if own_versions is not None:
            versions = versions.filter(own_versions)
        for version in versions:
            resource = version.resource
            if rt.versions == 0 and resource.latest_id not in (None, version.pk):
                continue
            try:
                document = json.loads(bytes(version.content or b""))  # (never None: excluded above)
            except (ValueError, UnicodeDecodeError):
                continue
            if not isinstance(document, dict):
                continue
            referrer = resource.path if rt.versions == 0 else f"{resource.path}/versions/{version.vid}"
            for attribute, written in _extract(fns, document):
                target = resolve(written, base_urls)
                if target:
                    out.append(Reference(referrer, attribute, written, target))
    return sorted(out, key=lambda r: (r.referrer, r.attribute, r.written))


def referrers(
    roots: Iterable[str], base_urls: Iterable[str] = (), references: list[Reference] | None = None
) -> dict[str, dict[str, str]]:
    """The entities outside `roots` that point at one of them or into it:
    `{referrer path: {"attribute": NAME, "reference": AS_WRITTEN}}` (the first reference of each referrer)."""
    roots = list(roots)
    found: dict[str, dict[str, str]] = {}
    for ref in scan(base_urls, into=roots) if references is None else references:
        if ref.referrer in found or any(within(ref.referrer, root) for root in roots):
            continue
        if any(within(ref.target, root) for root in roots):
            found[ref.referrer] = {"attribute": ref.attribute, "reference": ref.written}
    return found
