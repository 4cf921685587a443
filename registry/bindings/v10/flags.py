"""Request flags of the 1.0 binding (core/spec.md "Request Flags"): `inline`, `doc`, `epoch`, `filter`, `sort`,
`ignore`, `binary`, `specversion`, `collections`, `setdefaultversionid`, and paging's `limit`.

`?inline` takes comma-separated paths relative to the entity asked for (`messagegroups.messages`,
`versions`, `meta`, `model`); `*` or an empty value inlines every collection and `meta`, never `model`,
`modelsource` or `capabilities`, which are named explicitly.
"""

from __future__ import annotations

import re

from ...domain.attributes import V10_NAMES
from ...domain.errors import Problem
from ...http.requests import declared_flags, flag
from ...store import filters as filtering
from ...store.paging import PageRequest
from .errors import V1Problem

# core/spec.md's flags (what `/capabilities` offers, capabilities.py), and this server's own: paging's tokens, and an
# import's `force` (`owners` only on an import)
SPEC_FLAGS = frozenset(
    "inline doc epoch filter sort ignore binary specversion collections setdefaultversionid limit".split()
)
FLAGS = SPEC_FLAGS | {"offset", "page", "force"}  # taken on every method whose flags are checked (`check_flags`)
EXPLICIT = {"capabilities", "model", "modelsource"}
SPEC_VERSIONS = ("1.0-rc4", "1.0-rc3", "1.0-rc2", "1.0-rc1", "1.0")

# The flags each level's methods read, as the views declare them (`RegistryView.flags`): the OpenAPI description's
# parameters (openapi.py) and `/capabilities`' flags are made from these; every other flag of FLAGS is taken too
# and changes nothing. Levels: the registry root, its fixed APIs (`export`, `model` ...: their GET), the entities.
_READ, _WRITE, _DELETE = (
    "inline doc filter limit binary specversion",
    "epoch setdefaultversionid ignore specversion",
    "epoch specversion",
)
_COLLECTION = {"get": f"{_READ} sort", "post": _WRITE, "patch": _WRITE, "delete": _DELETE}  # (a PUT answers 405)
LEVELS: dict[str, dict[str, frozenset[str]]] = {
    "root": declared_flags(get=f"{_READ} collections", post=f"{_WRITE} owners force", put=_WRITE, patch=_WRITE),
    "fixed": declared_flags(get="specversion"),
    "export": declared_flags(get="inline binary specversion"),
    "groups": declared_flags(**_COLLECTION),
    "group": declared_flags(get=f"{_READ} collections", put=_WRITE, patch=_WRITE, post=_WRITE, delete=_DELETE),
    "resources": declared_flags(**_COLLECTION),
    "resource": declared_flags(get=_READ, put=_WRITE, patch=_WRITE, post=_WRITE, delete=_DELETE),
    "meta": declared_flags(get="specversion", put=_WRITE, patch=_WRITE),
    "versions": declared_flags(**_COLLECTION),
    "version": declared_flags(get=_READ, put=_WRITE, patch=_WRITE, delete=_DELETE),
}


def offered_flags() -> list[str]:
    """The spec's flags some level reads (`/capabilities`' `flags`)."""
    return sorted(SPEC_FLAGS & {name for level in LEVELS.values() for names in level.values() for name in names})


def check_flags(request, allowed: frozenset[str]) -> None:
    """400 for a flag neither the operation reads (`allowed`) nor this binding takes everywhere (FLAGS), or a
    `specversion` this server does not serve."""
    for name in request.GET:
        if name not in allowed and name not in FLAGS:
            raise V1Problem("bad_flag", f"the flag {name!r} is not supported here", args={"flag": name})
    version = request.GET.get("specversion")
    if version is not None and version not in SPEC_VERSIONS:
        raise V1Problem(
            "unsupported_specversion",
            f"specversion {version!r} is not served; this server serves {', '.join(SPEC_VERSIONS[:1])}",
            args={"specversion": version, "list": ", ".join(SPEC_VERSIONS[:1])},
        )


def check_values(request) -> None:
    """Flags whose values have a type are checked on every request, whether the method reads them or not."""
    for name in ("epoch", "limit", "offset"):
        if name in request.GET:
            value = request.GET[name]
            if not value.isdigit() or (name == "limit" and int(value) == 0) or int(value) >= 10**20:
                raise V1Problem(
                    "bad_flag",
                    f"{name} must be {'a positive' if name == 'limit' else 'an unsigned'} integer, not {value!r}",
                    args={"flag": name},
                )
    ignored(request)
    sort_key(request)
    for value in request.GET.getlist("filter"):  # a malformed expression is a 400 wherever it is sent
        try:
            filtering.parse([value])
        except Problem as problem:
            raise V1Problem("bad_filter", problem.detail, args={"value": value, "error_detail": problem.detail})
    if "setdefaultversionid" in request.GET and not request.GET["setdefaultversionid"]:
        raise V1Problem("bad_flag", "setdefaultversionid needs a version id", args={"flag": "setdefaultversionid"})


class Inline:
    """The `?inline` paths of a request, each a tuple of names, relative to the entity asked for."""

    def __init__(self, request):
        self.all = False
        self.paths: set[tuple[str, ...]] = set()
        for value in request.GET.getlist("inline"):
            for part in value.split(","):
                part = part.strip()
                if part in ("", "*"):
                    self.all = True
                else:
                    self.paths.add(tuple(p for p in part.split(".") if p))
        if flag(request, "collections"):
            self.all = True  # core/spec.md "Collections Flag": it turns on ?inline=*

    def wants(self, *path: str) -> bool:
        """True when the collection or attribute at `path` is to be inlined."""
        if any(p[: len(path)] == path for p in self.paths):
            return True
        if self.all:
            return path[-1] not in EXPLICIT
        return any(p[-1] == "*" and p[:-1] == path[: len(p) - 1] for p in self.paths)

    def below(self, name: str) -> Inline:
        """The inline paths seen from a collection member `name` (for nested collections)."""
        child = Inline.__new__(Inline)
        child.all = self.all
        child.paths = {p[1:] for p in self.paths if len(p) > 1 and p[0] == name}
        return child

    @property
    def any(self) -> bool:
        return self.all or bool(self.paths)


# 1.0 attribute names in `?filter` -> the stored (0.5) names the selectors filter on
LEADING_NAME = re.compile(r"^([A-Za-z0-9_$]*)(.*)$", re.DOTALL)
FILTER_NAMES = {name: stored for name, stored in V10_NAMES.items() if stored is not None}
IGNORABLE = ("capabilities", "defaultversionid", "defaultversionsticky", "epoch", "modelsource", "readonly")


def filters(request, singular: str) -> list[str]:
    """`?filter` expressions with 1.0 attribute names written as the stored ones (`labels.team=a` ->
    `tags.team=a`, `<SINGULAR>id` -> `id`)."""
    out = []
    for expression in request.GET.getlist("filter"):
        parts = []
        for term in expression.split(","):
            leading = LEADING_NAME.match(term)
            assert leading is not None  # (the pattern matches any text)
            head, rest = leading.groups()  # the first key; then dots, brackets, the operator
            head = "id" if head == f"{singular}id" and rest[:1] in ("=", "!", "<") else FILTER_NAMES.get(head, head)
            parts.append(f"{head}{rest}")
        out.append(",".join(parts))
    return out


def ignored(request) -> set[str]:
    """`?ignore=epoch,defaultversionid,...`: request members a write leaves out (an export re-imported)."""
    names = {n.strip() for value in request.GET.getlist("ignore") for n in value.split(",") if n.strip()}
    unknown = sorted(n for n in names if n not in IGNORABLE and n != "*")
    if unknown:
        raise V1Problem(
            "bad_ignore",
            f"ignore {unknown[0]!r} is not one of {', '.join(IGNORABLE)}",
            args={"value": unknown[0], "error_detail": f"not one of {', '.join(IGNORABLE)}"},
        )
    return set(IGNORABLE) if "*" in names else names


def sort_key(request):
    """`?sort=ATTR[=asc|desc]` as (dotted path, descending), or None."""
    value = request.GET.get("sort")
    if value is None:
        return None
    path, _sep, order = value.partition("=")
    if not path or order not in ("", "asc", "desc"):
        raise V1Problem(
            "bad_sort",
            f"sort takes ATTRIBUTE[=asc|desc], not {value!r}",
            args={"value": value, "error_detail": "expected ATTRIBUTE[=asc|desc]"},
        )
    return path.split("."), order == "desc"


def page_to_load(request, page: PageRequest) -> PageRequest:
    """The entries to read for a collection answer: the page asked for, or with `?sort` every entry, since the
    order comes before paging (pagination/spec.md: a page is a slice of the sorted collection)."""
    return PageRequest(limit=2**62, offset=0) if sort_key(request) is not None else page


def sorted_collection(body: dict, request, singular: str, page: PageRequest | None = None) -> dict:
    """A collection answer in `?sort` order (absent values lowest, the id second), else by id; with `page`, the
    body holds the whole collection (`page_to_load`) and the answer is that page of the sorted entries."""
    found = sort_key(request)
    if found is None:
        return body
    path, descending = found

    def value_of(entry):
        value = entry
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        present = value is not None and not isinstance(value, (dict, list))
        return (present, (str(type(value).__name__), value) if present else ("", 0), entry.get(f"{singular}id", ""))

    items = sorted(body.items(), key=lambda item: value_of(item[1]), reverse=descending)
    if page is not None:
        items = items[page.offset : page.offset + page.limit]
    return dict(items)


def only_collections(request, body: dict, plurals) -> dict:
    """With `?collections` (core/spec.md "Collections Flag"), an entity's answer reduced to its collection maps (the
    attributes of the entity itself left out); else the answer as it is."""
    return {name: body[name] for name in plurals if name in body} if flag(request, "collections") else body
