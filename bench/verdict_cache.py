"""Benchmark of the verdict caches (issue 14): 200 times, in process, meta-validate the same JSON Schema document
and check it backward-compatible with the same earlier version, as repeated POSTs of a version do. Prints ms
per call (the best of 5 rounds of 200) with the caches on and off (a `BoundedCache` of 0 entries keeps nothing;
the parse cache stays on both times). Asserts nothing. Run from the project root: `.venv/bin/python bench/verdict_cache.py`.
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catalog.validators import compatibility, schemas  # noqa: E402

CALLS = 200
FORMAT = "JsonSchema/draft-07"


def document(extra: int) -> bytes:
    properties = {
        f"field{i}": {"type": ["string", "integer", "number", "boolean"][i % 4], "description": f"f{i}"}
        for i in range(40 + extra)
    }
    properties["address"] = {
        "type": "object",
        "properties": {"street": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
    }
    return json.dumps(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": properties,
            "required": ["field0", "field1"],
        }
    ).encode()


def run() -> float:
    old, new = document(0), document(1)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(CALLS):
            assert schemas.validate_schema(FORMAT, new) == []
            compatibility.check_compatibility(FORMAT, "backward_transitive", [old], new)
        best = min(best, (time.perf_counter() - start) * 1000 / CALLS)
    return best


def main():
    cached = getattr(schemas, "_verdicts", None) is not None
    run()  # warm up: imports, metaschema validators
    if cached:
        on = run()
        print(f"caches on:  {on:.3f} ms per call")
        from registry.store.bounded_cache import BoundedCache

        schemas._verdicts = BoundedCache("schema_verdicts", max_entries=0)
        compatibility._verdicts = BoundedCache("compatibility_verdicts", max_entries=0)
    print(f"caches off: {run():.3f} ms per call" if cached else f"no verdict caches: {run():.3f} ms per call")


if __name__ == "__main__":
    main()
