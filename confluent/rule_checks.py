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
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable

from celpy import celtypes
from confluent_kafka.schema_registry.common import avro as client_avro
from confluent_kafka.schema_registry.common import json_schema as client_json
from confluent_kafka.schema_registry.common import protobuf as client_protobuf
from confluent_kafka.schema_registry.common.schema_registry_client import (
    Metadata,
    Rule,
    RuleKind,
    RuleMode,
    RuleSet,
    Schema,
)
from confluent_kafka.schema_registry.common.serde import FieldContext, RuleConditionError, RuleContext
from confluent_kafka.schema_registry.rules.cel.cel_executor import (
    CelExecutor,
    _CelCache,
    field_value_to_cel,
    msg_to_cel,
)
from fastavro.schema import expand_schema

from catalog.validators import budget

from .attributes import VERSION_METADATA, VERSION_RULE_SET

CEL_TYPES = ("CEL", "CEL_FIELD")
RUN_TYPES = (*CEL_TYPES, "JSONATA")
# compiled CEL programs kept per process (JSONata is compiled per run: its callbacks belong to the compiled expression)
CACHE_LIMIT = 512


class _BoundedCelCache(_CelCache):  # the clients' own cache class (private to them), bounded
    """The executor's cache of compiled programs, emptied when it reaches CACHE_LIMIT: the clients' cache keeps every
    (expression, schema) forever, which a client with a few schemas can afford and a registry serving every schema
    cannot."""

    def set(self, expr, script_type, schema, prog):
        with self.lock:
            if len(self.programs) >= CACHE_LIMIT:
                self.programs.clear()
            self.programs[(expr, script_type, schema)] = prog


_cel = CelExecutor()
_cel._cache = _BoundedCelCache()
JSONATA_DEPTH = 200  # nested evaluations of one JSONata expression (its recursion), far below Python's own limit


def jsonata_evaluate(expr: str, message):
    """A JSONata expression on a message, as the clients' JsonataExecutor evaluates it (`Jsonata(expr).evaluate`),
    each evaluation step spending a step of the check's budget and its nesting bounded by JSONATA_DEPTH (jsonata-python's
    entry and exit callbacks: its own Timebox counts wall-clock time, the budget CPU time). Compiled per call: the
    callbacks belong to the compiled expression."""
    import jsonata

    compiled = jsonata.Jsonata(expr)
    depth = [0]

    def entry(_expr, _input, env):
        if not env.is_parallel_call:
            depth[0] += 1
            if depth[0] > JSONATA_DEPTH:
                raise jsonata.JException("D1011", -1)  # jsonata's own "stack overflow" error
        budget.spend()

    def exit_(_expr, _input, env, _result):
        if not env.is_parallel_call:
            depth[0] -= 1

    compiled.environment.set_evaluate_entry_callback(entry)
    compiled.environment.set_evaluate_exit_callback(exit_)
    return compiled.evaluate(message)


# --- the message as CEL sees it, each element's visit a step of the budget ------------------------------------------


class _SpendingList(celtypes.ListType):
    def __iter__(self):
        for item in super().__iter__():
            budget.spend()
            yield item


class _SpendingMap(celtypes.MapType):
    def __iter__(self):
        for key in super().__iter__():
            budget.spend()
            yield key


def _spending(value):
    """A celpy value with its lists and maps (all the way down) iterating through the budget."""
    if isinstance(value, celtypes.MapType):
        out = _SpendingMap()
        for key, item in dict.items(value):
            out[key] = _spending(item)
        return out
    if isinstance(value, celtypes.ListType):
        return _SpendingList(_spending(item) for item in list.__iter__(value))
    return value


def _message_rule(ctx: RuleContext, message):
    """A CEL rule on the whole message: the clients' CelExecutor.transform, its message bound through the budget."""
    return _cel.execute(ctx, message, {"message": _spending(msg_to_cel(message))})


def _field_rule(ctx: RuleContext, field_ctx: FieldContext, value):
    """A CEL_FIELD rule on one field: the clients' CelFieldExecutor._field_transform, spending a step per field."""
    budget.spend()
    if not field_ctx.is_primitive():
        return value
    args = {
        "value": field_value_to_cel(field_ctx, value),
        "fullName": field_ctx.full_name,
        "name": field_ctx.name,
        "typeName": field_ctx.type_name(),
        "tags": [celtypes.StringType(tag) for tag in field_ctx.tags],
        "message": _spending(msg_to_cel(field_ctx.containing_message)),
    }
    return _cel.execute(ctx, value, args)


def _run(ctx: RuleContext, message, fields: list[str]):
    """What the rule's executor answers: a condition's truth, or a transform's new message. A CEL_FIELD rule walks
    the fields as the clients' FieldRuleExecutor does (a TRANSFORM with the same tags as an earlier one is skipped);
    `fields` gets the full name of each field it evaluates (the last one is the one a false condition is about)."""
    rule = ctx.rule
    kind = (rule.type or "").upper()
    if kind == "CEL":
        return _message_rule(ctx, message)
    if kind == "JSONATA":
        return jsonata_evaluate(rule.expr or "", message)
    if ctx.rule_mode == RuleMode.WRITE:
        earlier = ctx.rules[: ctx.index]
    else:
        earlier = ctx.rules[ctx.index + 1 :]
    if any(_same_tag_transforms(rule, other) for other in earlier):
        return message

    def on_field(ctx: RuleContext, field_ctx: FieldContext, value):
        fields.append(field_ctx.full_name)
        return _field_rule(ctx, field_ctx, value)

    return ctx.field_transformer(ctx, on_field, message)


def _same_tag_transforms(one: Rule, other: Rule) -> bool:
    return (
        bool(one.tags)
        and one.kind == RuleKind.TRANSFORM
        and (one.kind, one.mode, one.type, one.tags) == (other.kind, other.mode, other.type, other.tags)
    )


# --- the message of a schema version -------------------------------------------------------------------------------


class Target:
    """A schema version as the rules see it: confluent-kafka's `Schema` (its metadata and rule set) and the walk of
    its fields (`field_transformer`) and inline tags, for one schema format."""

    def __init__(self, family: str, content: bytes, metadata: dict | None, rule_set: dict | None):
        self.family = family
        self.schema = Schema(
            content.decode("utf-8", "replace"),
            {"Avro": "AVRO", "JsonSchema": "JSON", "Protobuf": "PROTOBUF"}[family],
            [],
            Metadata.from_dict(metadata) if metadata else None,
            RuleSet.from_dict(rule_set) if rule_set else None,
        )
        self.inline_tags = None
        self._transformer: Callable | None = None
        self._content = content

    def field_transformer(self) -> Callable:
        """The clients' walk of the fields of a message of this schema (made at the first field rule)."""
        if self._transformer is None:
            self._transformer = getattr(self, f"_walk_{self.family.lower()}")()
        return self._transformer

    def _walk_avro(self):
        parsed = client_avro.parse_schema_with_repo(self._content.decode(), named_schemas={})
        expanded = expand_schema(parsed)
        self.inline_tags = client_avro.get_inline_tags(parsed)
        return lambda ctx, transform, message: client_avro.transform(ctx, expanded, message, transform)

    def _walk_jsonschema(self):
        from referencing import Resource

        from catalog.validators.json_references import schema_registry

        # the one registry of the project's JSON Schema validators: a `$ref` resolves to a schema stored here (read
        # with the check's read scope), never fetched, where the clients' walk would fetch it
        schema = json.loads(self._content)
        root = Resource.from_contents(schema, default_specification=client_json.DEFAULT_SPEC)
        registry = schema_registry()
        resolver = registry.resolver_with_root(root)
        return lambda ctx, transform, message: client_json.transform(
            ctx, schema, registry, resolver, "$", message, transform
        )

    def _walk_protobuf(self):
        descriptor = self.protobuf_descriptor
        return lambda ctx, transform, message: client_protobuf.transform(ctx, descriptor, message, transform)

    protobuf_descriptor = None  # set by `protobuf_message`


def protobuf_message(target: Target, message_name: str | None, raw: bytes):
    """The Protobuf binary `raw` as a message object of the version's .proto (one without imports other than the
    well-known types), or None with why not."""
    from google.protobuf import descriptor_pool
    from google.protobuf.message_factory import GetMessageClass

    from .protobuf import _well_known, descriptor_of_text

    try:
        fdp = descriptor_of_text(target.schema.schema_str)
    except Exception as exc:  # the parser's errors: the .proto is the one the data check already read
        return None, f"its .proto cannot be read here: {type(exc).__name__}"
    pool = descriptor_pool.DescriptorPool()
    for blob in _well_known():
        pool.AddSerializedFile(blob)
    try:
        pool.Add(fdp)
        file = pool.FindFileByName(fdp.name)
    except Exception as exc:  # an import of another schema: not resolved here
        return None, f"its .proto imports what is not resolved here ({type(exc).__name__})"
    name = message_name or (fdp.message_type[0].name if fdp.message_type else None)
    descriptor = file.message_types_by_name.get((name or "").rsplit(".", 1)[-1])
    if descriptor is None:
        return None, f"no message {name!r} in its .proto"
    message = GetMessageClass(descriptor)()
    message.ParseFromString(raw)
    target.protobuf_descriptor = descriptor
    return message, None


# --- running the rules ----------------------------------------------------------------------------------------------


def version_contract(version) -> tuple[dict | None, dict | None]:
    """(metadata, rule set) of a schema version: its `confluentmetadata` and `confluentruleset` attributes."""
    extensions = version.extensions or {}
    return extensions.get(VERSION_METADATA), extensions.get(VERSION_RULE_SET)


def has_message_rules(rule_set: dict | None) -> bool:
    return bool(rule_set and rule_set.get("domainRules"))


def _action(rule: Rule, side: RuleMode) -> str:
    """The rule's onFailure for this side (`ERROR,NONE` of a WRITEREAD rule: the first for the write side), as the
    clients read it; ERROR when none."""
    action = rule.on_failure or ""
    if "," in action and rule.mode in (RuleMode.WRITEREAD, RuleMode.UPDOWN):
        action = action.split(",")[0 if side == RuleMode.WRITE else 1]
    return action.strip().upper() or "ERROR"


def _rule_member(rule: Rule, side: RuleMode) -> dict:
    out = {"name": rule.name, "type": rule.type, "kind": rule.kind.value, "mode": rule.mode.value}
    if rule.expr is not None:
        out["expr"] = rule.expr
    out["side"] = "producer" if side == RuleMode.WRITE else "consumer"
    return out


def _runs_on(rule: Rule, side: RuleMode) -> bool:
    if rule.mode == RuleMode.WRITEREAD:
        return True
    return rule.mode == side


def check_message_rules(target: Target, message, report) -> None:
    """Run the version's domain rules on `message` (a decoded datum of its schema): refusals and notes into `report`
    (catalog.message_report.Report)."""
    rule_set = target.schema.rule_set
    rules = list(rule_set.domain_rules or []) if rule_set else []
    if not rules:
        return
    if (rule_set.enable_at or "ALL").upper() == "CLIENT":
        report.notes.append("rules not run: the schema's rule set is enabled at CLIENT only (enableAt)")
        return
    skipped = sorted({f"{r.name} ({r.type})" for r in rules if (r.type or "").upper() not in RUN_TYPES})
    if skipped:
        report.notes.append(
            "rules not run here (only CEL, CEL_FIELD and JSONATA are; an ENCRYPT rule needs the producer's keys): "
            + ", ".join(skipped)
        )
    written = _run_side(target, rules, RuleMode.WRITE, message, report)
    if written is not _REFUSED:
        _run_side(target, list(reversed(rules)), RuleMode.READ, written, report)


_REFUSED = object()


def _run_side(target: Target, rules: list[Rule], side: RuleMode, message, report):
    """One side's rules in order; the message as they leave it, or _REFUSED after a refusal."""
    for index, rule in enumerate(rules):
        if rule.disabled or (rule.type or "").upper() not in RUN_TYPES or not _runs_on(rule, side):
            continue
        if side == RuleMode.READ and rule.mode == RuleMode.WRITEREAD and rule.kind == RuleKind.CONDITION:
            continue  # said once, on the producer's side: the same condition on the same message
        budget.spend()
        transformer = target.field_transformer() if (rule.type or "").upper() == "CEL_FIELD" else None
        ctx = RuleContext(
            None, None, None, target.schema, "", side, rule, index, rules, target.inline_tags, transformer
        )
        failure, fields = None, []
        try:
            result = _run(ctx, message, fields)
            if rule.kind == RuleKind.CONDITION and not result:
                failure = _condition_false(rule, None)
            elif rule.kind == RuleKind.TRANSFORM:
                message = result
        except RuleConditionError:  # a CEL_FIELD condition false on a field
            failure = _condition_false(rule, fields[-1] if fields else None)
        except budget.Exhausted:
            raise
        except Exception as exc:  # the executors' errors: a CEL or JSONata evaluation error, a bad expression
            failure = f"its expression failed on this message: {type(exc).__name__}: {str(exc)[:300]}"
        if failure is None:
            continue
        action = _action(rule, side)
        who = "the producer" if side == RuleMode.WRITE else "a consumer"
        if action == "NONE":
            report.notes.append(f"rule {rule.name}: {failure}; its onFailure NONE lets {who} go on")
            continue
        consequence = "sends it to the dead letter queue" if action == "DLQ" else "refuses it"
        reason = f"refused by rule {rule.name} ({rule.type} {rule.kind.value}, {rule.mode.value}): {failure}; {who} {consequence}"
        report.refused("data", reason, _rule_member(rule, side))
        return _REFUSED
    return message


def _condition_false(rule: Rule, field: str | None) -> str:
    where = f" on field {field}" if field is not None else ""
    said = f" ({rule.doc})" if rule.doc else ""
    return f"the condition {rule.expr!r} is false{where}{said}"


# --- the message checks' entry point -------------------------------------------------------------------------------


def check_version_rules(version, family: str, content: bytes, report, *, data=None, raw: bytes | None = None,
                        message_name: str | None = None) -> None:  # fmt: skip
    """The version's domain rules on a message its schema check passed: `data` (Avro or JSON Schema: the JSON value),
    or `raw` (the Avro or Protobuf binary encoding)."""
    metadata, rule_set = version_contract(version)
    if not has_message_rules(rule_set) or family not in ("Avro", "JsonSchema", "Protobuf"):
        return
    target = Target(family, content, metadata, rule_set)
    if family == "Avro":
        try:
            message = _avro_datum(content, data, raw)
            target.field_transformer()  # the inline tags of the schema, which every rule context carries
        except Exception as exc:  # a named type of another schema (a reference): not resolved here
            why = f"{type(exc).__name__}: {str(exc)[:200]}"
            report.notes.append(f"rules not run: the data could not be read as a datum of the Avro schema ({why})")
            return
    elif family == "Protobuf":
        message, why = protobuf_message(target, message_name, raw or b"")
        if message is None:
            report.notes.append(f"rules not run: {why}")
            return
    else:
        message = data
    check_message_rules(target, message, report)


def _avro_datum(content: bytes, data, raw: bytes | None):
    """The Avro datum of the data (plain JSON, the Avro JSON encoding, or the binary encoding), or None."""
    import fastavro
    from fastavro.validation import validate

    parsed = fastavro.parse_schema(json.loads(content))
    if raw is not None:
        return fastavro.schemaless_reader(io.BytesIO(raw), parsed, None)
    if validate(data, parsed, raise_errors=False):
        return data
    return next(iter(fastavro.json_reader(io.StringIO(json.dumps(data)), parsed)))


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
    from registry.errors import Problem

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
    out = {"mode": mode, "rules": rules, "message": message}
    if mode == "UPGRADE":
        out.update(_fits(fmt, bytes(version.content or b""), message))
    return out


def migration_rule_names(version) -> list[str]:
    """The names of the version's JSONATA migration rules (what the admin's dry run offers)."""
    _metadata, rule_set = version_contract(version)
    return [
        r.get("name")
        for r in (rule_set or {}).get("migrationRules") or []
        if isinstance(r, dict) and (r.get("type") or "").upper() == "JSONATA" and isinstance(r.get("name"), str)
    ]


def _stored_migrations(path: str, version, mode: str, name: str | None) -> list[dict]:
    from registry.errors import Problem

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
    from catalog.message_report import Report
    from catalog.validators.format_names import schema_format_family
    from catalog.validators.message_json import check_avro, check_json_schema

    family, draft = schema_format_family(fmt)
    report = Report()
    if family == "Avro":
        check_avro(content, message, report)
    elif family == "JsonSchema":
        check_json_schema(draft, content, message, report, None)
    else:
        return {}
    return {"valid": not report.errors, "errors": report.errors}
