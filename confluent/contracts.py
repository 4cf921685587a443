"""Data contracts of schema versions (docs/confluent.md, "Metadata and rule sets"; CONTRACT.md section 20): Confluent's
`metadata` and `ruleSet`, their shapes, their normal form, and how a registration merges them with the previous
version's and with the config's defaults and overrides, as Confluent's Schema Registry does (its
`AbstractSchemaRegistry.maybeSetMetadataRuleSet`, `Metadata.mergeMetadata`, `RuleSet.mergeRuleSets`).

- `metadata`: `{"tags": {path: [tag]}, "properties": {name: value}, "sensitive": [name]}`, every value a string.
- `ruleSet`: `{"migrationRules": [rule], "domainRules": [rule], "encodingRules": [rule], "enableAt": ...}`; a rule
  `{"name", "doc", "kind", "mode", "type", "tags", "params", "expr", "onSuccess", "onFailure", "disabled"}`.

`metadata_problem` and `rule_set_problem` say what is wrong with a value (None: nothing), naming the member
(`domainRules[0].mode: ...`); they check what Confluent's registry checks (`Rule.validate`, `RuleSet.validate`) and
the JSON types its entities take. `normal_metadata` / `normal_rule_set` give the form that is stored, answered and
keyed, as Confluent's entities hold it: maps sorted by key, tag and sensitive lists sorted without repeats, a rule's
`kind` and `mode` filled in with their defaults (TRANSFORM, WRITEREAD), empty members left out, and an empty metadata
or rule set as none at all (Confluent hashes an empty one as none).
"""

from __future__ import annotations

import json

METADATA_MEMBERS = ("tags", "properties", "sensitive")
RULE_PHASES = ("migrationRules", "domainRules", "encodingRules")
RULE_SET_MEMBERS = (*RULE_PHASES, "enableAt")
RULE_KINDS = ("CONDITION", "TRANSFORM")
MIGRATION_MODES = ("UPGRADE", "DOWNGRADE", "UPDOWN")
DOMAIN_MODES = ("WRITE", "READ", "WRITEREAD")
RULE_MODES = (*MIGRATION_MODES, *DOMAIN_MODES)
ENABLE_AT = ("CLIENT", "SERVER", "ALL")
RULE_STRINGS = ("doc", "type", "expr", "onSuccess", "onFailure")
RULE_MEMBERS = ("name", "kind", "mode", "tags", "params", "disabled", *RULE_STRINGS)
NAME_MAX_LENGTH = 256  # Confluent's Rule.NAME_MAX_LENGTH
CONFLUENT_VERSION = "confluent:version"  # a property the registry keeps equal to the version's number, once present


def named(member: str, problem: str) -> str:
    """A problem said of a member: `metadata must be ...`, `ruleSet.domainRules[0].mode must be ...`."""
    return f"{member} {problem}" if problem.startswith("must") else f"{member}.{problem}"


def _strings(value, what: str) -> str | None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return f"{what} must be an array of strings"
    return None


def _string_map(value, what: str) -> str | None:
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        return f"{what} must be an object whose values are strings"
    return None


def metadata_problem(value) -> str | None:
    """What is wrong with a `metadata` value (None: nothing)."""
    if not isinstance(value, dict):
        return "must be an object with tags, properties and/or sensitive"
    unknown = sorted(set(value) - set(METADATA_MEMBERS))
    if unknown:
        return f"{unknown[0]}: not a member of metadata (tags, properties, sensitive)"
    tags = value.get("tags")
    if tags is not None:
        if not isinstance(tags, dict):
            return "tags must be an object of arrays of strings"
        for path, names in tags.items():
            if problem := _strings(names, f"tags.{path}"):
                return problem
    if value.get("properties") is not None and (problem := _string_map(value["properties"], "properties")):
        return problem
    if value.get("sensitive") is not None and (problem := _strings(value["sensitive"], "sensitive")):
        return problem
    return None


def _rule_name_problem(name) -> str | None:
    if not isinstance(name, str) or not name:
        return "name: a rule needs a name, a non-empty string"
    if len(name) > NAME_MAX_LENGTH:
        return f"name: longer than {NAME_MAX_LENGTH} characters"
    if not (name[0].isalpha() or name[0] == "_") or not all(c.isalnum() or c in "_-" for c in name[1:]):
        return f"name: {name[:40]!r} must start with a letter or _ and hold only letters, digits, _ and -"
    return None


def _rule_problem(rule, phase: str) -> str | None:
    if not isinstance(rule, dict):
        return "must be an object"
    unknown = sorted(set(rule) - set(RULE_MEMBERS))
    if unknown:
        return f"{unknown[0]}: not a member of a rule ({', '.join(RULE_MEMBERS)})"
    if problem := _rule_name_problem(rule.get("name")):
        return problem
    for name in RULE_STRINGS:
        if rule.get(name) is not None and not isinstance(rule[name], str):
            return f"{name} must be a string"
    if not rule.get("type"):
        return "type: a rule needs a type (CEL, CEL_FIELD, JSONATA, ENCRYPT, ...)"
    kind = rule.get("kind")
    if kind is not None and kind not in RULE_KINDS:
        return f"kind must be one of {', '.join(RULE_KINDS)}, not {kind!r}"
    mode = rule.get("mode")
    if mode is not None and mode not in RULE_MODES:
        return f"mode must be one of {', '.join(RULE_MODES)}, not {mode!r}"
    mode = mode or "WRITEREAD"
    allowed = MIGRATION_MODES if phase == "migrationRules" else DOMAIN_MODES
    if mode not in allowed:
        return f"mode: {phase} can only be {', '.join(allowed)}, not {mode}"
    for name in ("onSuccess", "onFailure"):
        if "," in (rule.get(name) or "") and mode not in ("WRITEREAD", "UPDOWN"):
            return f"{name}: multiple actions only valid with WRITEREAD and UPDOWN"
    if rule.get("tags") is not None and (problem := _strings(rule["tags"], "tags")):
        return problem
    if rule.get("params") is not None and (problem := _string_map(rule["params"], "params")):
        return problem
    if rule.get("disabled") is not None and not isinstance(rule["disabled"], bool):
        return "disabled must be true or false"
    return None


def rule_set_problem(value) -> str | None:
    """What is wrong with a `ruleSet` value (None: nothing): its shape, and Confluent's rules of a rule set (each rule
    named, typed, of a mode its phase allows; no two rules of the set with one name)."""
    if not isinstance(value, dict):
        return f"must be an object with {', '.join(RULE_SET_MEMBERS)}"
    unknown = sorted(set(value) - set(RULE_SET_MEMBERS))
    if unknown:
        return f"{unknown[0]}: not a member of a rule set ({', '.join(RULE_SET_MEMBERS)})"
    enable_at = value.get("enableAt")
    if enable_at is not None and enable_at not in ENABLE_AT:
        return f"enableAt must be one of {', '.join(ENABLE_AT)}, not {enable_at!r}"
    names: set[str] = set()
    for phase in RULE_PHASES:
        rules = value.get(phase)
        if rules is None:
            continue
        if not isinstance(rules, list):
            return f"{phase} must be an array of rules"
        for index, rule in enumerate(rules):
            if problem := _rule_problem(rule, phase):
                return named(f"{phase}[{index}]", problem)
            if rule["name"] in names:
                return f"{phase}[{index}].name: another rule of the set is named {rule['name']!r}"
            names.add(rule["name"])
    return None


def normal_metadata(value: dict | None) -> dict | None:
    """The stored form of a valid metadata (None when it holds nothing)."""
    if not value:
        return None
    out: dict = {}
    tags = {path: sorted(set(names)) for path, names in sorted((value.get("tags") or {}).items()) if names}
    if tags:
        out["tags"] = tags
    properties = dict(sorted((value.get("properties") or {}).items()))
    if properties:
        out["properties"] = properties
    sensitive = sorted(set(value.get("sensitive") or []))
    if sensitive:
        out["sensitive"] = sensitive
    return out or None


def _normal_rule(rule: dict) -> dict:
    out: dict = {"name": rule["name"]}
    if rule.get("doc"):
        out["doc"] = rule["doc"]
    out["kind"] = rule.get("kind") or "TRANSFORM"
    out["mode"] = rule.get("mode") or "WRITEREAD"
    out["type"] = rule["type"]
    if rule.get("tags"):
        out["tags"] = sorted(set(rule["tags"]))
    if rule.get("params"):
        out["params"] = dict(sorted(rule["params"].items()))
    for name in ("expr", "onSuccess", "onFailure"):
        if rule.get(name):
            out[name] = rule[name]
    if rule.get("disabled"):
        out["disabled"] = True
    return out


def normal_rule_set(value: dict | None) -> dict | None:
    """The stored form of a valid rule set (None when it holds no rule)."""
    if not value:
        return None
    out: dict = {}
    for phase in RULE_PHASES:
        rules = [_normal_rule(rule) for rule in value.get(phase) or []]
        if rules:
            out[phase] = rules
    if not out:
        return None
    if value.get("enableAt"):
        out["enableAt"] = value["enableAt"]
    return out


def merge_metadata(old: dict | None, new: dict | None) -> dict | None:
    """Confluent's `Metadata.mergeMetadata`: each member of `new` over `old`'s (maps by key, lists as sets)."""
    if old is None:
        return new
    if new is None:
        return old
    out: dict = {}
    for name in ("tags", "properties"):
        merged = {**(old.get(name) or {}), **(new.get(name) or {})}
        if merged:
            out[name] = merged
    sensitive = set(old.get("sensitive") or []) | set(new.get("sensitive") or [])
    if sensitive:
        out["sensitive"] = sorted(sensitive)
    return normal_metadata(out)


def merge_rule_sets(old: dict | None, new: dict | None) -> dict | None:
    """Confluent's `RuleSet.mergeRuleSets`: per phase, `old`'s rules that `new` does not name, then `new`'s."""
    if old is None:
        return new
    if new is None:
        return old
    out: dict = {}
    for phase in RULE_PHASES:
        newer = new.get(phase) or []
        named = {rule["name"] for rule in newer}
        rules = [rule for rule in old.get(phase) or [] if rule["name"] not in named] + list(newer)
        if rules:
            out[phase] = rules
    enable_at = new.get("enableAt") or old.get("enableAt")
    if enable_at:
        out["enableAt"] = enable_at
    return out or None


def with_version(metadata: dict | None, number: int) -> dict | None:
    """`confluent:version` kept equal to the version's number once the metadata has it (Confluent's registry sets it
    when a registration asks for a version, and updates it wherever it is present)."""
    if metadata is None or CONFLUENT_VERSION not in (metadata.get("properties") or {}):
        return metadata
    return {**metadata, "properties": {**metadata["properties"], CONFLUENT_VERSION: str(number)}}


def without_version(metadata: dict | None) -> dict | None:
    """The metadata without `confluent:version` (what a lookup compares, as Confluent's `canLookup`)."""
    if metadata is None or CONFLUENT_VERSION not in (metadata.get("properties") or {}):
        return metadata
    properties = {k: v for k, v in metadata["properties"].items() if k != CONFLUENT_VERSION}
    return normal_metadata({**metadata, "properties": properties})


def property_of(metadata: dict | None, name: str) -> str | None:
    """A metadata property's value (a compatibility group's), None without one."""
    if not isinstance(metadata, dict) or not isinstance(metadata.get("properties"), dict):
        return None
    value = metadata["properties"].get(name)
    return value if isinstance(value, str) else None


def key_part(metadata: dict | None, rule_set: dict | None) -> str:
    """What the metadata and rule set add to a schema id's key ("" without either: the key of a content without
    them is what it was before they were part of it). `confluent:version` is left out: it is the version's number,
    not content (Confluent's lookups ignore it too), so versions differing in it alone share an id."""
    metadata = without_version(metadata)
    if metadata is None and rule_set is None:
        return ""
    return json.dumps([metadata, rule_set], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
