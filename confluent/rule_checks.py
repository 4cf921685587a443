"""The registry runs a schema version's data contract in its own checks (docs/data-contracts.md, "The registry
enforces the same contracts"; CONTRACT.md section 20): the CEL and CEL_FIELD rules of its `confluentruleset` on a
message of the message checks (catalog.message_checks), and a JSONata migration rule on a sample message (the dry
run, `dry_run_migration`).

The rules run as Confluent's serializers run them, with the clients' own rule executors (confluent-kafka's
`CelExecutor`, `CelFieldExecutor`, `JsonataExecutor`, their field walks of Avro, JSON Schema and Protobuf): the same
CEL functions, the same binding of `message`, `value`, `name`, `typeName`, `tags`, the same guards (`guard; expr`),
the same field tags (the version's `confluentmetadata` tags and the schema's inline `confluent:tags`).

What runs on a message (`check_message_rules`): the `domainRules` in the clients' order, first those of the write side
(mode WRITE or WRITEREAD, in order: a TRANSFORM of type CEL, CEL_FIELD or JSONATA changes the message the next rules
see, as in the producer), then the READ rules (in reverse order, as a consumer runs them) on what the producer would
have written. A CONDITION that is false, or a rule whose expression fails on the message, refuses the message unless
its `onFailure` for that side is NONE (then a note says the clients let it pass); DLQ refuses it too (the clients send
it to the dead letter queue). Disabled rules, and rule sets whose `enableAt` is CLIENT, are not run here (`enableAt`
SERVER or ALL, or none: they are). ENCRYPT rules and rules of other types are not run: a note names them. Each
refusal is an error of the verdict naming the rule (`rule`: its name, type, mode, expression).

Budget: every rule, every field of a field rule and every element a CEL comprehension visits in the message spends a
step of the check's budget (catalog.validators.budget): the message's lists and maps are bound as celpy types whose
iteration spends, so nested comprehensions over a large message stop at the budget rather than holding a worker.
cel-python evaluates one expression without a step hook; apart from the message's elements, an expression's work is
bounded by its own size.

This module is what the checks import; the executors are in confluent.rule_engine, imported once a version has rules
(the clients' package and cel-python are slow to import: docs/performance.md, "Data contracts' rules").
"""

from __future__ import annotations

import json

from django.conf import settings

from catalog.message_report import Report
from catalog.validators import budget
from catalog.validators.format_names import schema_format_family
from catalog.validators.message_json import check_avro, check_json_schema
from registry.domain.errors import Problem

from .attributes import VERSION_METADATA, VERSION_RULE_SET

# --- a version's data contract -------------------------------------------------------------------------------------


def version_contract(version) -> tuple[dict | None, dict | None]:
    """(metadata, rule set) of a schema version: its `confluentmetadata` and `confluentruleset` attributes."""
    extensions = version.extensions or {}
    return extensions.get(VERSION_METADATA), extensions.get(VERSION_RULE_SET)


def has_message_rules(rule_set: dict | None) -> bool:
    return bool(rule_set and rule_set.get("domainRules"))


# --- the message checks' entry point -------------------------------------------------------------------------------


def check_version_rules(version, family: str | None, content: bytes, report, *, data=None, raw: bytes | None = None,
                        message_name: str | None = None) -> None:  # fmt: skip
    """The version's domain rules on a message its schema check passed: `data` (Avro or JSON Schema: the JSON value),
    or `raw` (the Avro or Protobuf binary encoding). The engine (confluent.rule_engine) is imported only here, once a
    version has rules."""
    metadata, rule_set = version_contract(version)
    if not has_message_rules(rule_set) or family not in ("Avro", "JsonSchema", "Protobuf"):
        return
    # here: the rule engine (the clients' executors, cel-python) loads only once a version has rules
    from .rule_engine import run_version_rules

    run_version_rules(family, content, metadata, rule_set or {}, report, data=data, raw=raw, message_name=message_name)


# --- the dry run of a migration rule ---------------------------------------------------------------------------------

DRY_RUN_MEMBERS = ("message", "mode", "rule", "expr")
DRY_RUN_MODES = {"UPGRADE": ("UPGRADE", "UPDOWN"), "DOWNGRADE": ("DOWNGRADE", "UPDOWN")}


def migration_dry_run(path: str, version, fmt: str | None, value) -> dict:
    """`POST .../versions/V/migrate`: a JSONata migration rule of version `version` (at `path`) on a sample message,
    as a consumer's deserializer runs it, nothing written. `value`, the request's JSON object:

    - `message`: the sample;
    - `mode`: UPGRADE (default: a message of an earlier major version read as this version's) or DOWNGRADE (a message
      of this version read as an earlier one's); Confluent keeps both directions on the newer version;
    - `rule`: the name of one of its `migrationRules` (default: each JSONATA rule of that mode, in the clients' order:
      UPGRADE in order, DOWNGRADE in reverse); or `expr`: an expression not yet stored (`rule` then names it).

    Answers `{"mode", "rules": [{"name", "expr"}], "message"}`; for UPGRADE, the result is also checked against this
    version's Avro or JSON Schema (`valid`, `errors`). A rule whose expression fails is a 400 problem naming the rule
    (`rule`: its name and expression)."""
    if not isinstance(value, dict):
        raise Problem("bad-request", "the body must be a JSON object: {message, mode, rule, expr}")
    unknown = sorted(set(value) - set(DRY_RUN_MEMBERS))
    if unknown:
        raise Problem("bad-request", f"{unknown[0]}: not a member of a dry run ({', '.join(DRY_RUN_MEMBERS)})")
    if "message" not in value:
        raise Problem("bad-request", "message: the sample message to migrate is missing")
    mode = value.get("mode", "UPGRADE")
    if not isinstance(mode, str) or mode not in DRY_RUN_MODES:
        raise Problem("bad-request", f"mode must be UPGRADE or DOWNGRADE, not {str(mode)[:40]!r}")
    name, expr = value.get("rule"), value.get("expr")
    for member, given in (("rule", name), ("expr", expr)):
        if given is not None and (not isinstance(given, str) or not given):
            raise Problem("bad-request", f"{member} must be a non-empty string")
    if expr is not None:
        rules = [{"name": name or "expr", "expr": expr}]
    else:
        rules = _stored_migrations(path, version, mode, name)
    # here: the rule engine (the clients' executors, cel-python) loads only once a migration rule runs
    from .rule_engine import jsonata_evaluate

    message = value["message"]
    for rule in rules:
        try:
            message = jsonata_evaluate(rule["expr"], message)
        except budget.Exhausted:
            raise
        except Exception as exc:  # jsonata's errors: a bad expression, a failure on this message, too deep
            raise Problem(
                "bad-request",
                f"the migration rule {rule['name']} failed on the message: {type(exc).__name__}: {str(exc)[:300]}",
                members={"rule": rule},
            ) from None
        if len(json.dumps(message)) > settings.REGISTRY_MAX_BODY_BYTES:  # e.g. `[1..10000000]`: no 80 MB answer
            raise Problem(
                "bad-request",
                f"the migration rule {rule['name']} made a message larger than REGISTRY_MAX_BODY_BYTES "
                f"({settings.REGISTRY_MAX_BODY_BYTES} bytes as JSON), the largest body this registry takes",
                members={"rule": rule},
            )
    out = {"mode": mode, "rules": rules, "message": message}
    if mode == "UPGRADE":
        out.update(_fits(fmt, bytes(version.content or b""), message))
    return out


def migration_rule_names(version) -> list[str]:
    """The names of the version's JSONATA migration rules (what the admin's dry run offers)."""
    _metadata, rule_set = version_contract(version)
    return [
        r["name"]
        for r in (rule_set or {}).get("migrationRules") or []
        if isinstance(r, dict) and (r.get("type") or "").upper() == "JSONATA" and isinstance(r.get("name"), str)
    ]


def _stored_migrations(path: str, version, mode: str, name: str | None) -> list[dict]:
    _metadata, rule_set = version_contract(version)
    stored = [r for r in (rule_set or {}).get("migrationRules") or [] if isinstance(r, dict)]
    if name is not None:
        found = [r for r in stored if r.get("name") == name]
        if not found:
            raise Problem("not-found", f"{path} has no migration rule named {name[:100]!r}")
        rule = found[0]
        if (rule.get("type") or "").upper() != "JSONATA":
            raise Problem(
                "bad-request", f"the migration rule {name} is of type {rule.get('type')}: only JSONATA runs here"
            )
        if (rule.get("mode") or "UPDOWN") not in DRY_RUN_MODES[mode]:
            raise Problem("bad-request", f"the migration rule {name} runs on {rule.get('mode')}, not on {mode}")
        chosen = [rule]
    else:
        chosen = [
            r
            for r in stored
            if (r.get("type") or "").upper() == "JSONATA"
            and (r.get("mode") or "UPDOWN") in DRY_RUN_MODES[mode]
            and not r.get("disabled")
        ]
        if mode == "DOWNGRADE":
            chosen.reverse()
        if not chosen:
            raise Problem("not-found", f"{path} has no JSONATA migration rule for {mode}")
    return [{"name": r.get("name"), "expr": r.get("expr") or ""} for r in chosen]


def _fits(fmt: str | None, content: bytes, message) -> dict:
    """Whether the migrated message is a datum of the version's schema (Avro, JSON Schema): `{valid, errors}`."""
    family, draft = schema_format_family(fmt)
    report = Report()
    if family == "Avro":
        check_avro(content, message, report)
    elif family == "JsonSchema":
        check_json_schema(draft, content, message, report, None)
    else:
        return {}
    return {"valid": not report.errors, "errors": report.errors}
