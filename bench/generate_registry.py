"""Generate a registry document of G schema groups x S schemas x V versions (JSON Schema, each version
backward compatible with the previous: it adds an optional property). Prints the output path.

    .venv/bin/python bench/generate_registry.py --groups 10 --schemas 150 --versions 5 -o var/bench.cereg
"""

import argparse
import json
from pathlib import Path


def schema_version(group: int, schema: int, version: int) -> dict:
    properties = {"id": {"type": "string"}, "amount": {"type": "number"}}
    for extra in range(1, version):
        properties[f"field{extra}"] = {"type": "string", "description": f"added in version {extra + 1}"}
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": f"Event {group}.{schema}",
        "type": "object",
        "properties": properties,
        "required": ["id"],
    }


def document(groups: int, schemas: int, versions: int) -> dict:
    out = {"$schema": "https://cloudevents.io/schemas/registry", "specversion": "0.5-wip", "schemaGroups": {}}
    for g in range(groups):
        gid = f"com.example.group{g}"
        out["schemaGroups"][gid] = {
            "id": gid,
            "description": f"benchmark group {g}",
            "tags": {"owner": f"team{g % 3}"},
            "schemas": {},
        }
        for s in range(schemas):
            sid = f"Event{s}"
            out["schemaGroups"][gid]["schemas"][sid] = {
                "id": sid,
                "format": "JsonSchema/draft-07",
                "versions": {str(v): {"id": str(v), "schema": schema_version(g, s, v)} for v in range(1, versions + 1)},
            }
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--schemas", type=int, default=150)
    parser.add_argument("--versions", type=int, default=5)
    parser.add_argument("-o", "--output", default="var/bench.cereg")
    args = parser.parse_args()
    path = Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document(args.groups, args.schemas, args.versions)))
    print(path)


if __name__ == "__main__":
    main()
