"""A body past its limit (REGISTRY_MAX_BODY_BYTES) is refused with 413 and nothing is written, and every operation of
the OpenAPI description (`/api/schema/`) that answers so describes the 413: each operation that takes a body is sent
one too large, below an existing group, resource and version. The 1.0 binding's operations on them (and its fixed
APIs) describe a 413 only where they answer one."""

import re

import pytest

from .test_flags_described import everything

IDS = {"gid": "g1", "rid": "r1", "vid": "1"}
TOO_LARGE = b'{"name": "' + b"x" * 200 + b'"}'


@pytest.mark.django_db
def test_every_operation_refusing_a_body_too_large_describes_413(su, settings):
    assert su.put("/registry/schemagroups/g1/schemas/r1/versions/1$details", {}, format="json").status_code == 201
    schema = su.get("/api/schema/?format=json").json()["paths"]
    settings.REGISTRY_MAX_BODY_BYTES = 100
    before = everything(su)
    refused = set()
    for template, ops in schema.items():
        path = re.sub(r"\{(\w+)\}", lambda m: IDS.get(m.group(1), "x"), template)
        for method, op in ops.items():
            if isinstance(op, dict) and "requestBody" in op:
                response = su.generic(method.upper(), path, TOO_LARGE, content_type="application/json")
                if response.status_code == 413:
                    refused.add((template, method))
    assert everything(su) == before
    undescribed = sorted(f"{m.upper()} {p}" for p, m in refused if "413" not in schema[p][m]["responses"])
    assert not undescribed, undescribed
    assert sum(p.startswith("/registry/") for p, _m in refused) >= 10, sorted(refused)
    asked = [
        (path, method)
        for path, ops in schema.items()
        if path.startswith("/registry/") and not path.startswith(("/registry/endpoints", "/registry/messagegroups"))
        for method, op in ops.items()
        if isinstance(op, dict) and "requestBody" in op
    ]
    untrue = sorted(
        f"{m.upper()} {p}" for p, m in asked if "413" in schema[p][m]["responses"] and (p, m) not in refused
    )
    assert not untrue, untrue
