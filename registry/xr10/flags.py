"""Request flags of the 1.0 binding (core/spec.md "Request Flags"): `inline`, `doc`, `epoch`, `filter`, `sort`,
`ignore`, `binary`, `specversion`, `collections`, `setdefaultversionid`, and paging's `limit`.

`?inline` takes comma-separated paths relative to the entity asked for (`messagegroups.messages`,
`versions`, `meta`, `model`); `*` or an empty value inlines every collection and `meta`, never `model`,
`modelsource` or `capabilities`, which are named explicitly.
"""
from __future__ import annotations

from .errors import V1Problem

FLAGS = {"inline", "doc", "epoch", "filter", "sort", "ignore", "binary", "specversion", "collections",
         "setdefaultversionid", "limit", "offset", "page", "force"}
EXPLICIT = {"capabilities", "model", "modelsource"}
SPEC_VERSIONS = ("1.0-rc4", "1.0-rc3", "1.0-rc2", "1.0-rc1", "1.0")


def check_flags(request) -> None:
    for name in request.GET:
        if name not in FLAGS:
            raise V1Problem("bad_flag", f"the flag {name!r} is not supported here", subject=name)
    version = request.GET.get("specversion")
    if version is not None and version not in SPEC_VERSIONS:
        raise V1Problem("unsupported_specversion", f"specversion {version!r} is not served; this server "
                        f"serves {', '.join(SPEC_VERSIONS[:1])}", subject=version)


def check_values(request) -> None:
    """Flags whose values have a type are checked on every request, whether the method reads them or not."""
    for name in ("epoch", "limit", "offset"):
        if name in request.GET:
            value = request.GET[name]
            if not value.isdigit() or (name == "limit" and int(value) == 0) or int(value) >= 10**20:
                raise V1Problem("bad_flag", f"{name} must be {'a positive' if name == 'limit' else 'an unsigned'} "
                                f"integer, not {value!r}", subject=name)
    if "setdefaultversionid" in request.GET and not request.GET["setdefaultversionid"]:
        raise V1Problem("bad_flag", "setdefaultversionid needs a version id", subject="setdefaultversionid")


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


def doc_view(request) -> bool:
    return "doc" in request.GET and request.GET.get("doc", "").lower() != "false"


def query_epoch(request) -> int | None:
    value = request.GET.get("epoch")
    if value is None:
        return None
    try:
        epoch = int(value)
    except ValueError:
        raise V1Problem("bad_flag", f"epoch must be an unsigned integer, not {value!r}", subject="epoch") from None
    if epoch < 0:
        raise V1Problem("bad_flag", f"epoch must be an unsigned integer, not {value!r}", subject="epoch")
    return epoch
