"""How deep JSON may nest, one rule for every door (issue 24 item 9).

- `MAX_DEPTH`: one entity's JSON, its attributes as an object or its document (a schema, a definition), nests at
  most this many objects and arrays. The services check it on every write (`registry.domain.attributes.check_common`,
  `registry.domain.json_text.json_document_problem`), whichever door the write came through: the 0.5 and 1.0
  bindings, the admin, a document import, sync, `spark_import`.
- `MAX_DOCUMENT_DEPTH`: what carries entities (a request body, a registry document, an export) puts at most
  `ENVELOPE_DEPTH` levels around them: registry, group map, group, resource map, resource, version map, version,
  then the version's document member. Request readers and the document importer accept that much, so whatever
  the store holds, its exports (`GET /?inline`, `/registry/export`, `export_registry`) import again.

Pure Python with no Django import: the Spark executors use it through the validators.
"""

MAX_DEPTH = 256
ENVELOPE_DEPTH = 8
MAX_DOCUMENT_DEPTH = MAX_DEPTH + ENVELOPE_DEPTH


def nested_deeper_than(value, limit: int) -> bool:
    """Whether the parsed JSON `value` nests objects and arrays deeper than `limit` (a scalar is depth 0, `{}`
    and `{"a": 1}` depth 1). Walked level by level without recursion, visiting containers only."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            below += [child for child in children if isinstance(child, dict | list)]
        level = below
    return False
