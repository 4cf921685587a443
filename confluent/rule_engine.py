"""The engine of confluent.rule_checks: a schema version's domain rules run on a message with the clients' own rule
executors (confluent-kafka's `CelExecutor`, its field walks of Avro, JSON Schema and Protobuf, cel-python, and
jsonata-python for JSONata), each step spending the check's budget (confluent.rule_checks says what runs and how).

Apart from confluent.rule_checks, which imports it when a version has rules: confluent-kafka's schema registry package,
cel-python and its grammar are slow to import and build (docs/performance.md, "Data contracts' rules"), which a
process that never meets a rule (most checks, every other request) should not pay.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import fastavro
import jsonata
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
from fastavro.validation import validate
from google.protobuf import descriptor_pool
from google.protobuf.message_factory import GetMessageClass
from referencing import Resource

from catalog.validators import budget
from catalog.validators.json_references import schema_registry
from registry.store.bounded_cache import BoundedCache

from .protobuf import _well_known, descriptor_of_text

CEL_TYPES = ("CEL", "CEL_FIELD")
RUN_TYPES = (*CEL_TYPES, "JSONATA")
# compiled CEL programs kept per process (JSONata is compiled per run: its callbacks belong to the compiled expression)
CACHE_LIMIT = 512


class _BoundedCelCache(_CelCache):  # the clients' own cache class (private to them), bounded
    """The executor's cache of compiled programs, a registry/store/bounded_cache.py cache of CACHE_LIMIT entries
    (`cel_programs` in the metrics; the key is all a program is built from): the clients' cache keeps every
    (expression, schema) forever, which a client with a few schemas can afford and a registry serving every schema
    cannot."""

    def __init__(self):
        super().__init__()
        self._kept = BoundedCache("cel_programs", max_entries=CACHE_LIMIT)

    def set(self, expr, script_type, schema, prog):
        self._kept.put((expr, script_type, schema), prog)

    def get_program(self, expr, script_type, schema):
        return self._kept.get((expr, script_type, schema))

    def clear(self):
        self._kept.clear()


_cel = CelExecutor()
_cel._cache = _BoundedCelCache()
JSONATA_DEPTH = 200  # nested evaluations of one JSONata expression (its recursion), far below Python's own limit


def jsonata_evaluate(expr: str, message):
    """A JSONata expression on a message, as the clients' JsonataExecutor evaluates it (`Jsonata(expr).evaluate`),
    each evaluation step spending a step of the check's budget and its nesting bounded by JSONATA_DEPTH (jsonata-python's
    entry and exit callbacks: its own Timebox counts wall-clock time, the budget CPU time). Compiled per call: the
    callbacks belong to the compiled expression."""
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
        self.inline_tags: dict[str, set[str]] | None = None
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
    try:
        fdp = descriptor_of_text(target.schema.schema_str or "")
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


def _action(rule: Rule, side: RuleMode) -> str:
    """The rule's onFailure for this side (`ERROR,NONE` of a WRITEREAD rule: the first for the write side), as the
    clients read it; ERROR when none."""
    action = rule.on_failure or ""
    if "," in action and rule.mode in (RuleMode.WRITEREAD, RuleMode.UPDOWN):
        action = action.split(",")[0 if side == RuleMode.WRITE else 1]
    return action.strip().upper() or "ERROR"


def _value(member: RuleKind | RuleMode | None) -> str | None:
    return member.value if member is not None else None


def _rule_member(rule: Rule, side: RuleMode) -> dict:
    out = {"name": rule.name, "type": rule.type, "kind": _value(rule.kind), "mode": _value(rule.mode)}
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
    if rule_set is None or not rule_set.domain_rules:
        return
    rules = list(rule_set.domain_rules)
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
        # no Kafka message here: the rules run without the clients' serialization context (nor its topic)
        ctx = RuleContext(
            None,
            None,  # type: ignore[arg-type]
            None,
            target.schema,
            "",
            side,
            rule,
            index,
            rules,
            target.inline_tags,
            transformer,
        )
        failure: str | None = None
        fields: list[str] = []
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
        reason = f"refused by rule {rule.name} ({rule.type} {_value(rule.kind)}, {_value(rule.mode)}): {failure}; {who} {consequence}"
        report.refused("data", reason, _rule_member(rule, side))
        return _REFUSED
    return message


def _condition_false(rule: Rule, field: str | None) -> str:
    where = f" on field {field}" if field is not None else ""
    said = f" ({rule.doc})" if rule.doc else ""
    return f"the condition {rule.expr!r} is false{where}{said}"


# --- the entry point -------------------------------------------------------------------------------


def run_version_rules(family: str, content: bytes, metadata: dict | None, rule_set: dict, report, *, data=None,
                      raw: bytes | None = None, message_name: str | None = None) -> None:  # fmt: skip
    """confluent.rule_checks.check_version_rules once the version has domain rules."""
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
    parsed = fastavro.parse_schema(json.loads(content))
    if raw is not None:
        return fastavro.schemaless_reader(io.BytesIO(raw), parsed, None)
    if validate(data, parsed, raise_errors=False):
        return data
    return next(iter(fastavro.json_reader(io.StringIO(json.dumps(data)), parsed)))
