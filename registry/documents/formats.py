"""Reading and writing registry documents as JSON or YAML, within bounds.

YAML is read with PyYAML's safe loader, refusing documents that use more than a few aliases (an alias
"bomb" expands exponentially once serialized); nesting depth is bounded for both by registry.domain.limits's
MAX_DOCUMENT_DEPTH: one entity's limit and the levels a document puts around it, so an export always imports.
"""

from __future__ import annotations

import json

import yaml

from ..domain.attributes import unstorable
from ..domain.errors import Problem
from ..domain.json_text import TooDeep, strict_loads
from ..domain.limits import MAX_DOCUMENT_DEPTH

JSON_MEDIA_TYPES = ("application/cloudevents-registry+json", "application/json")
YAML_MEDIA_TYPES = ("application/cloudevents-registry+yaml", "application/yaml", "application/x-yaml", "text/yaml")
MAX_ALIASES = 100
SCHEMA_URI = "https://cloudevents.io/schemas/registry"


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader that counts aliases and refuses documents that use too many."""

    def __init__(self, stream):
        super().__init__(stream)
        self.alias_count = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self.alias_count += 1
            if self.alias_count > MAX_ALIASES:
                raise yaml.YAMLError(f"the document uses more than {MAX_ALIASES} aliases")
        return super().compose_node(parent, index)


MAX_NODES = 2_000_000


def _depth_ok(value, limit: int = MAX_DOCUMENT_DEPTH) -> bool:
    """Nesting within `limit` (as registry.domain.limits counts it: `{}` is depth 1) and, aliases expanded, at most
    MAX_NODES values (an alias bomb is refused).

    Walked level by level, visiting containers only: each one's children are counted at once (about twice as
    fast as visiting every value)."""
    counted, depth = 1, 0
    level = [value] if isinstance(value, dict | list) else []
    while level:
        depth += 1
        if depth > limit:
            return False
        below = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            counted += len(children)
            if counted > MAX_NODES:
                return False
            below += [child for child in children if isinstance(child, dict | list)]
        level = below
    return True


def is_yaml(media_type: str | None = None, filename: str | None = None) -> bool:
    if filename:
        return filename.endswith((".yaml", ".yml"))
    base = (media_type or "").split(";")[0].strip().lower()
    return base in YAML_MEDIA_TYPES


def parse_document(raw: bytes, *, yaml_format: bool) -> dict:
    """The document as a dict; Problem (400) when it is not one JSON object / YAML mapping."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Problem("invalid-document", "the document is not UTF-8")
    try:
        if yaml_format:
            loader = _BoundedLoader(text)
            try:
                value = loader.get_single_data()
            finally:
                loader.dispose()
        else:
            value = strict_loads(text, MAX_DOCUMENT_DEPTH)
    except TooDeep as exc:
        raise Problem("invalid-document", f"the document {exc}")
    except RecursionError:
        raise Problem("invalid-document", "the document is nested too deeply")
    except (ValueError, yaml.YAMLError) as exc:
        raise Problem("invalid-document", f"the document is not valid {'YAML' if yaml_format else 'JSON'}: {exc}")
    if not isinstance(value, dict):
        raise Problem("invalid-document", "the document must be one object with $schema, specversion and groups")
    # JSON: strict_loads bounded its depth already, and it holds fewer values than `[`, `,` and `:` (each value but
    # the first follows one of them): only YAML (its aliases) and a JSON text with that many need the walk
    walk = yaml_format or 1 + text.count("[") + text.count(",") + text.count(":") > MAX_NODES
    if walk and not _depth_ok(value):
        raise Problem(
            "invalid-document",
            f"the document is nested deeper than {MAX_DOCUMENT_DEPTH} levels or holds more "
            f"than {MAX_NODES} values once its aliases are expanded",
        )
    # JSON text holds no raw NUL and UTF-8 no lone surrogate: in JSON both can only come from \u escapes
    problem = unstorable(value, "document") if yaml_format or "\\u" in text else None
    if problem:
        raise Problem("invalid-document", f"the {problem}")
    return value


def dump_document(document: dict, *, yaml_format: bool) -> str:
    if yaml_format:
        return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def is_yaml_media_type(media_type: str | None) -> bool:
    base = (media_type or "").split(";", 1)[0].strip().lower()
    return base in YAML_MEDIA_TYPES or base.endswith("+yaml") or base in ("text/x-yaml", "text/vnd.yaml")


def yaml_document_problem(content: bytes) -> str | None:
    """Why a document sent as YAML is not YAML, or None: it is served back under that media type, so a client
    must be able to read it. Parsed into nodes only (`compose_all`), never into objects: aliases stay shared,
    so an alias bomb costs nothing."""
    try:
        for _node in yaml.compose_all(content.decode("utf-8-sig"), Loader=yaml.SafeLoader):
            pass
    except UnicodeDecodeError:
        return "the document is not UTF-8 text"
    except yaml.YAMLError as exc:
        return f"the document is not valid YAML: {str(exc).splitlines()[0]}"
    return None
