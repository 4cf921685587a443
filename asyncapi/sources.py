"""Reading AsyncAPI documents and following their `$ref`s: inside the document, to files beside it, and (only
when the setting `REGISTRY_ASYNCAPI_REMOTE_REFS` lists their prefix) to remote URLs.

Remote reads are the one fetch of a document's references the registry makes (CONTRACT.md section 19: what the
registry checks afterwards fetches nothing; an imported payload schema is stored with its `$ref`s inlined): at import
time only, from prefixes the operator listed, compared as parsed URLs (`remote_allowed`), by a caller who may write
to the registry (asyncapi.services), without redirects, environment proxies or credentials, each document within
REMOTE_TIMEOUT seconds in all and REGISTRY_MAX_BODY_BYTES, all of an import's within REMOTE_TOTAL_SECONDS.

A document is JSON or YAML (YAML through the project's bounded safe loader, `registry/documents/formats.py`);
every value read must be storable (no NUL, no lone surrogate). Files beside it are read through the caller's
`read_beside` (the command reads the file system next to the document; an HTTP upload carries them as parts of
a multipart body): `.json` and `.avsc` as JSON, `.yaml`/`.yml` as YAML, anything else (`.proto`) as text.

Places are `FILE#POINTER` (`streetlights.yml#/components/messages/lightMeasured`), the way every error names
where it is. Written by hand: the `jsonschema` `referencing` library resolves schema references, not AsyncAPI's
Reference Objects to text files, and knows nothing of the limits a server needs.
"""

from __future__ import annotations

import posixpath
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import unquote, urljoin, urlsplit

import httpx
import yaml
from django.conf import settings

from registry.documents.formats import _BoundedLoader, _depth_ok
from registry.domain.attributes import unstorable
from registry.domain.errors import Problem
from registry.domain.json_text import TooDeep, strict_loads
from registry.domain.limits import MAX_DOCUMENT_DEPTH

MAX_CHAIN = 64  # `$ref`s followed one after the other before a reference counts as endless
MAX_FILES = 200  # files and URLs one import may read besides its documents
REMOTE_TIMEOUT = 10.0  # seconds per remote document, in all (connect, request, every read)
REMOTE_TOTAL_SECONDS = 30.0  # seconds for all the remote documents one import reads
YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json", ".avsc")


class _Yaml12Loader(_BoundedLoader):
    """The project's bounded safe loader, with YAML 1.2's booleans: AsyncAPI documents are YAML 1.2 (the AsyncAPI
    tools read them with js-yaml), where `on`, `off`, `yes` and `no` are strings (`enum: [ON, OFF]` in the
    CloudEvents specification's example), not YAML 1.1's booleans."""


_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in _BoundedLoader.yaml_implicit_resolvers.items()
}
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


class AsyncAPIError(Problem):
    """What is wrong with an AsyncAPI document, at a place: a 400 `invalid-document` listing `{path, reason}`."""

    def __init__(self, place: str, reason: str, *, kind: str = "invalid-document"):
        super().__init__(kind, f"{place}: {reason}", errors=[{"path": place, "reason": reason}])


def escape(segment) -> str:
    return str(segment).replace("~", "~0").replace("/", "~1")


@dataclass(frozen=True)
class Loc:
    """A place in a file: the file's name (or URL) and the path of keys and indexes inside it."""

    file: str
    path: tuple = ()

    def __truediv__(self, key) -> Loc:
        return Loc(self.file, (*self.path, key))

    def __str__(self) -> str:
        return f"{self.file}#" + "".join("/" + escape(p) for p in self.path)


def parse_text(raw: bytes, *, yaml_format: bool, what: str):
    """A JSON or YAML value from bytes, within the project's bounds; AsyncAPIError naming `what` otherwise."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AsyncAPIError(what, "is not UTF-8 text")
    try:
        if yaml_format:
            loader = _Yaml12Loader(text)  # the project's YAML loader (safe, aliases counted), YAML 1.2 booleans
            try:
                value = loader.get_single_data()
            finally:
                loader.dispose()
        else:
            value = strict_loads(text, MAX_DOCUMENT_DEPTH)
    except TooDeep as exc:
        raise AsyncAPIError(what, str(exc))
    except RecursionError:
        raise AsyncAPIError(what, "is nested too deeply")
    except (ValueError, yaml.YAMLError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise AsyncAPIError(what, f"is not valid {'YAML' if yaml_format else 'JSON'}: {first}")
    if not _depth_ok(value):
        raise AsyncAPIError(
            what, f"is nested deeper than {MAX_DOCUMENT_DEPTH} levels or too large once its aliases expand"
        )
    key = _non_string_key(value)  # first: the registry's checks take keys to be strings
    if key is not None:
        raise AsyncAPIError(f"{what}#{key}", "a key that is not a string (JSON, and AsyncAPI, have only string keys)")
    problem = unstorable(value, "", limit=10_000_000)
    if problem:
        raise AsyncAPIError(what, problem)
    return value


def _non_string_key(value) -> str | None:
    """The JSON Pointer of the first mapping key that is not a string (YAML allows `1: x`), or None."""
    stack = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"{where}/{key}"
                stack.append((child, f"{where}/{escape(key)}"))
        elif isinstance(item, list):
            stack.extend((child, f"{where}/{index}") for index, child in enumerate(item))
    return None


def looks_yaml(name: str, raw: bytes) -> bool:
    """YAML by the file name's suffix, else by the first character (a JSON document starts with `{`)."""
    if name.lower().endswith(YAML_SUFFIXES):
        return True
    if name.lower().endswith(JSON_SUFFIXES):
        return False
    return raw.lstrip()[:1] not in (b"{", b"[")


def remote_prefixes() -> tuple[str, ...]:
    value = getattr(settings, "REGISTRY_ASYNCAPI_REMOTE_REFS", "") or ""
    return tuple(p.strip() for p in value.split(",") if p.strip())


def _dot_segments(path: str) -> bool:
    """Whether a decoded URL path holds a `.` or `..` segment (httpx removes those written plainly; these came
    percent-encoded, `%2e%2e` or `..%2F`, and a server may decode them)."""
    return any(segment in (".", "..") for segment in path.split("/"))


def remote_allowed(url: str, prefixes: tuple[str, ...]) -> bool:
    """Whether `url` lies under one of the operator's `prefixes`, compared as parsed URLs (the parser that dials
    it, httpx's), not as text: the same scheme, host and port, no user info (`https://schemas.example.com@evil/`),
    no `.` or `..` segment left after httpx normalises the path (`/ok/%2e%2e/admin`), and a path inside the prefix's path at a
    segment boundary (the prefix `https://h/schemas` takes `/schemas/x`, not `/schemas-private/x`)."""
    try:
        target = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        return False
    if target.scheme not in ("http", "https") or not target.host or target.userinfo or _dot_segments(target.path):
        return False
    for prefix in prefixes:
        try:
            allowed = httpx.URL(prefix)
        except (httpx.InvalidURL, TypeError):
            continue
        if (allowed.scheme, allowed.host, allowed.port) != (target.scheme, target.host, target.port):
            continue
        base = allowed.path or "/"
        if target.path == base or target.path.startswith(base if base.endswith("/") else base + "/"):
            return True
    return False


@dataclass
class Source:
    """One AsyncAPI document: its name (shown in errors), its bytes, and how to read a file beside it
    (`read_beside(relative path) -> bytes`, raising FileNotFoundError; None: no file can be read)."""

    name: str
    raw: bytes
    read_beside: Callable[[str], bytes] | None = None
    yaml_format: bool | None = None


@dataclass
class Resolver:
    """The document of a Source and the files and URLs its `$ref`s name, each read once."""

    source: Source
    files: dict[str, object] = field(default_factory=dict)

    def __post_init__(self):
        yaml_format = self.source.yaml_format
        if yaml_format is None:
            yaml_format = looks_yaml(self.source.name, self.source.raw)
        self.root = parse_text(self.source.raw, yaml_format=yaml_format, what=self.source.name)
        self.files[self.source.name] = self.root
        self.prefixes = remote_prefixes()
        self.remote_deadline: float | None = None  # set by the first remote read (REMOTE_TOTAL_SECONDS)

    @property
    def root_loc(self) -> Loc:
        return Loc(self.source.name)

    # files --------------------------------------------------------------------------------------------------
    def _file(self, name: str, at: Loc):
        if name in self.files:
            return self.files[name]
        if len(self.files) > MAX_FILES:
            raise AsyncAPIError(str(at), f"the document's $refs name more than {MAX_FILES} files")
        if name.startswith(("http://", "https://")):
            raw = self._fetch(name, at)
        else:
            raw = self._beside(name, at)
        suffix = urlsplit(name).path.lower() if "://" in name else name.lower()
        if suffix.endswith(YAML_SUFFIXES + JSON_SUFFIXES):
            value = parse_text(raw, yaml_format=suffix.endswith(YAML_SUFFIXES), what=name)
        else:  # a .proto or another text schema: the text itself
            try:
                value = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise AsyncAPIError(name, "is not UTF-8 text")
            problem = unstorable(value, "")
            if problem:
                raise AsyncAPIError(name, problem)
        self.files[name] = value
        return value

    def _beside(self, name: str, at: Loc) -> bytes:
        if self.source.read_beside is None:
            raise AsyncAPIError(
                str(at),
                f"$ref to the file {name!r}: send the files a document refers to with it (a multipart upload, "
                "or `manage.py import_asyncapi` next to them)",
            )
        try:
            return self.source.read_beside(name)
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            raise AsyncAPIError(str(at), f"$ref to the file {name!r}, which cannot be read ({type(exc).__name__})")
        except ValueError as exc:  # the reader's own refusal (a path outside the document's directory)
            raise AsyncAPIError(str(at), f"$ref to the file {name!r}: {exc}")

    def _fetch(self, url: str, at: Loc) -> bytes:
        """A remote document under a prefix the operator listed (`remote_allowed`): GET without redirects, proxies
        or credentials from the environment, at most REGISTRY_MAX_BODY_BYTES, within REMOTE_TIMEOUT seconds in all
        (and REMOTE_TOTAL_SECONDS for all the remote documents of one import), else a 400 naming the `$ref`."""
        if not remote_allowed(url, self.prefixes):
            raise AsyncAPIError(
                str(at),
                f"remote $ref {url!r} refused: remote references are read only from the prefixes listed in "
                "REGISTRY_ASYNCAPI_REMOTE_REFS",
            )
        limit = settings.REGISTRY_MAX_BODY_BYTES
        started = time.monotonic()
        if self.remote_deadline is None:
            self.remote_deadline = started + REMOTE_TOTAL_SECONDS
        deadline = min(started + REMOTE_TIMEOUT, self.remote_deadline)
        slow = AsyncAPIError(str(at), f"remote $ref {url!r} was not read within {REMOTE_TIMEOUT:g} s")
        if deadline <= started:
            raise AsyncAPIError(
                str(at), f"remote $ref {url!r} not read: the import's remote documents took {REMOTE_TOTAL_SECONDS} s"
            )
        timeout = httpx.Timeout(deadline - started)
        try:
            with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client:
                with client.stream("GET", url) as response:
                    if response.is_redirect:
                        raise AsyncAPIError(
                            str(at), f"remote $ref {url!r} answered {response.status_code}: redirects are not followed"
                        )
                    if response.status_code != 200:
                        raise AsyncAPIError(str(at), f"remote $ref {url!r} answered {response.status_code}")
                    declared = response.headers.get("content-length", "")
                    if declared.isdigit() and int(declared) > limit:
                        raise AsyncAPIError(str(at), f"remote $ref {url!r} is larger than {limit} bytes")
                    chunks, size = [], 0
                    for chunk in response.iter_bytes():
                        size += len(chunk)
                        if size > limit:
                            raise AsyncAPIError(str(at), f"remote $ref {url!r} is larger than {limit} bytes")
                        if time.monotonic() > deadline:  # a peer that sends a byte at a time
                            raise slow
                        chunks.append(chunk)
                    return b"".join(chunks)
        except httpx.TimeoutException:
            raise slow from None
        except httpx.HTTPError as exc:
            raise AsyncAPIError(str(at), f"remote $ref {url!r} could not be read: {type(exc).__name__}: {exc}")

    # references ---------------------------------------------------------------------------------------------
    def target(self, ref, at: Loc) -> Loc:
        """Where a `$ref` written at `at` points (not followed further)."""
        if not isinstance(ref, str) or not ref:
            raise AsyncAPIError(str(at), "$ref must be a non-empty string")
        where, _, fragment = ref.partition("#")
        if not where:
            name = at.file
        elif "://" in where or at.file.startswith(("http://", "https://")):
            name = urljoin(at.file, where) if at.file.startswith(("http://", "https://")) else where
            if not name.startswith(("http://", "https://")):
                raise AsyncAPIError(str(at), f"$ref {ref!r}: only http and https references can be read")
        else:
            if where.startswith("/"):
                raise AsyncAPIError(str(at), f"$ref {ref!r}: a file is named relative to the document")
            base = posixpath.dirname(at.file) if at.file != self.source.name else ""
            name = posixpath.normpath(posixpath.join(base, unquote(where)))
        if fragment and not fragment.startswith("/"):
            raise AsyncAPIError(str(at), f"$ref {ref!r}: the part after '#' must be a JSON Pointer (#/...)")
        path = tuple(unquote(p).replace("~1", "/").replace("~0", "~") for p in fragment.split("/")[1:])
        return Loc(name, path)

    def get(self, loc: Loc, at: Loc | None = None):
        """The value at `loc`, reading its file if needed."""
        node = self._file(loc.file, at or loc)
        for index, key in enumerate(loc.path):
            if isinstance(node, dict) and key in node:
                node = node[key]
            elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
            else:
                shown = Loc(loc.file, loc.path[: index + 1])
                raise AsyncAPIError(str(at or loc), f"$ref to {loc} names nothing ({shown} does not exist)")
        return node

    def deref(self, node, at: Loc) -> tuple[object, Loc]:
        """`node` itself, or what its `$ref` chain ends at, with the place of the value returned. A chain that
        comes back to a place it passed is a cycle (AsyncAPIError naming the places)."""
        seen = [at]
        while isinstance(node, dict) and "$ref" in node:
            loc = self.target(node["$ref"], at)
            if loc in seen:
                chain = " -> ".join(str(p) for p in [*seen, loc])
                raise AsyncAPIError(str(seen[0]), f"$ref cycle: {chain}")
            if len(seen) > MAX_CHAIN:
                raise AsyncAPIError(str(seen[0]), f"$ref chain longer than {MAX_CHAIN} references")
            node, at = self.get(loc, at), loc
            seen.append(loc)
        return node, at
