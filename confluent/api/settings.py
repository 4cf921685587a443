"""Config (compatibility levels), modes and compatibility tests."""

from __future__ import annotations

from catalog.validators import budget
from catalog.validators.compatibility import LEVELS, check_compatibility
from registry.access.throttles import AnonymousRateThrottle
from registry.http.requests import declared_flags, json_body

from .. import selectors, services
from ..attributes import COMPATIBILITY, CONFIG_ATTRIBUTES, CONFIG_CHECKS, CONFIG_SETTINGS, MODE
from ..contracts import named, normal_metadata, normal_rule_set, property_of
from ..errors import (
    INVALID_COMPATIBILITY,
    INVALID_CONFIG,
    INVALID_MODE,
    INVALID_RULE_SET,
    INVALID_SCHEMA,
    ConfluentError,
    version_not_found,
)
from ..numbering import contracts_of
from ..schema_types import prepare, referenced_documents
from ..subjects import parse
from .base import ConfluentView, answer, flag
from .inputs import registration


def level_in(value) -> str:
    if not isinstance(value, str) or value.lower() not in LEVELS:
        raise ConfluentError(
            INVALID_COMPATIBILITY,
            f"Invalid compatibility level {value!r}. Valid values are {', '.join(level.upper() for level in LEVELS)}",
        )
    return value.lower()


# Confluent's config members this registry does not keep (aliases, rule validation, compatibility policies): refused
# rather than accepted and forgotten
NOT_SERVED = ("alias", "aliasForDeks", "validateNewSchemas", "validateRules", "compatibilityPolicy")


def config_changes(body: dict) -> dict:
    """The attributes a PUT /config body changes (confluent.attributes.CONFIG_SETTINGS -> value, None removing one),
    as Confluent's `ConfigValue.update`: a member present sets (null: removes) its setting, one absent keeps it; an
    empty metadata or rule set removes it. 42203 for a level that is none, 42210 for a rule set Confluent refuses,
    42201 for a metadata of another shape, 422 for another member of another JSON type, each naming the member."""
    for name in NOT_SERVED:
        if body.get(name) is not None:
            raise ConfluentError(INVALID_CONFIG, f"{name}: not served by this registry (docs/confluent.md)")
    changes: dict = {}
    for name in ("compatibilityLevel", "compatibility"):  # the clients send `compatibility`; both are Confluent's
        if name in body:
            changes[COMPATIBILITY] = None if body[name] is None else level_in(body[name])
    for member, attribute in CONFIG_ATTRIBUTES.items():
        if member not in body:
            continue
        value = body[member]
        if value is not None:
            problem = CONFIG_CHECKS[member][0](value)
            if problem:
                code = {"defaultRuleSet": INVALID_RULE_SET, "overrideRuleSet": INVALID_RULE_SET}.get(member)
                code = code or (INVALID_SCHEMA if member.endswith("Metadata") else INVALID_CONFIG)
                raise ConfluentError(code, f"Invalid config: {named(member, problem)}")
            if member.endswith("Metadata"):
                value = normal_metadata(value)
            elif member.endswith("RuleSet"):
                value = normal_rule_set(value)
        changes[attribute] = value
    return changes


def mode_in(body: dict) -> str:
    value = body.get("mode")
    if not isinstance(value, str) or value.upper() not in selectors.MODES:
        raise ConfluentError(INVALID_MODE, f"Invalid mode {value!r}. Valid values are {', '.join(selectors.MODES)}")
    return value.upper()


class ConfigView(ConfluentView):
    flags = declared_flags(get="defaultToGlobal")

    # the config is attributes of groups and schemas: the services check each write (registry.access.permissions)
    def get(self, request, subject=None):
        """The config: global (the default context's group's), a context's (`:.ctx:`) or a subject's own (40408 when
        it has none, unless `?defaultToGlobal=true`: then the config that applies to it, member by member)."""
        default_to_global = flag(request, "defaultToGlobal")  # read (400 when not a boolean) wherever it is given
        if subject is None:
            return answer(selectors.config_in_scope(None))
        found = parse(subject, allow_context=True)
        if default_to_global:
            return answer(selectors.config_in_scope(found))
        own = selectors.own_config(found)
        if found.is_context:
            own = {"compatibilityLevel": selectors.effective_compatibility(found).upper(), **own}
        if not own:
            raise ConfluentError(40408, f"Subject '{subject}' does not have subject-level compatibility configured")
        return answer(own)

    def put(self, request, subject=None):
        """Set members of the config (a member absent is kept, null removes it); the answer is the scope's own
        config after the write, as Confluent's (`compatibility` for the level)."""
        changes = config_changes(json_body(request))
        found = parse(subject, allow_context=True) if subject is not None else None
        services.set_config(ctx=self.context(), subject=found, changes=changes)
        scope = found or parse(":.:", allow_context=True)
        own = selectors.own_config(scope)
        level = own.pop("compatibilityLevel", None)
        if changes.get(COMPATIBILITY):  # as set (a level equal to the one inherited is not kept: it is inherited)
            level = changes[COMPATIBILITY].upper()
        elif scope.is_context:
            level = selectors.effective_compatibility(scope).upper()
        return answer({**({"compatibility": level} if level else {}), **own})

    def delete(self, request, subject=None):
        """Remove the config of the scope (every member: the level, defaults, overrides, compatibility group,
        normalize, validateFields); the answer is the config it had."""
        found = parse(subject, allow_context=True) if subject is not None else None
        scope = found or parse(":.:", allow_context=True)
        old = selectors.own_config(scope)
        if scope.is_context:
            old["compatibilityLevel"] = (
                old.get("compatibilityLevel") or selectors.effective_compatibility(scope).upper()
            )
        elif not old:
            raise ConfluentError(40401, f"Subject '{subject}' not found.")
        services.set_config(ctx=self.context(), subject=found, changes=dict.fromkeys(CONFIG_SETTINGS))
        return answer(old)


class ModeView(ConfluentView):
    # modes are attributes of groups and schemas (confluent.attributes): the services check each write
    flags = declared_flags(get="defaultToGlobal", put="force")

    def get(self, request, subject=None):
        """The mode: global (the default context's), a context's (`:.ctx:`) or a subject's (40409 when it has none of
        its own, unless `?defaultToGlobal=true`)."""
        default_to_global = flag(request, "defaultToGlobal")  # read (400 when not a boolean) wherever it is given
        if subject is None:
            return answer({"mode": selectors.effective_mode(None)})
        found = parse(subject, allow_context=True)
        if own_mode(found) is None and not default_to_global:
            raise ConfluentError(40409, f"Subject '{subject}' does not have subject-level mode configured")
        return answer({"mode": selectors.effective_mode(found)})

    def put(self, request, subject=None):
        mode = mode_in(json_body(request))
        found = parse(subject, allow_context=True) if subject is not None else None
        services.set_mode(ctx=self.context(), subject=found, mode=mode, force=flag(request, "force"))
        return answer({"mode": mode})

    def delete(self, request, subject):
        found = parse(subject, allow_context=True)
        own = own_mode(found)
        if own is None:
            raise ConfluentError(40409, f"Subject '{subject}' does not have subject-level mode configured")
        services.set_mode(ctx=self.context(), subject=found, mode=None)
        return answer({"mode": own})


class GlobalModeView(ModeView):
    """`/mode`: the global mode is read and set, never deleted (405, its `Allow` without DELETE)."""

    http_method_names = [name for name in ModeView.http_method_names if name != "delete"]

    def http_method_not_allowed(self, request, *args, **kwargs):
        if request.method == "DELETE":
            raise ConfluentError(405, "the global mode cannot be deleted; PUT READWRITE instead", status=405)
        return super().http_method_not_allowed(request, *args, **kwargs)


def own_mode(found) -> str | None:
    return selectors.group_mode(found.group_id) if found.is_context else selectors.subject_setting(found, MODE)


class CompatibilityView(ConfluentView):
    post_reads = read_only_check = True  # a test only reads: as public as a read
    flags = declared_flags(post="verbose normalize")
    # the catalog's checker runs a caller's schema: anonymous callers as on the other check routes (issue 24)
    throttle_classes, throttle_scope = [AnonymousRateThrottle], "checks"

    def post(self, request, subject, version=None):
        """Whether a schema could be registered: against one version (`.../versions/V`, at the level's direction)
        or against the versions the level covers (`.../versions`); `?verbose=true` gives the checker's reasons.
        Parsing the candidate and comparing it share one budget (REGISTRY_CHECK_SECONDS; past it 503, 50002)."""
        with budget.limit("the compatibility test"):
            return self._test(request, subject, version)

    def _test(self, request, subject, version):
        found = parse(subject)
        verbose = flag(request, "verbose")
        flag(request, "normalize")
        inp = registration(json_body(request))
        level = selectors.effective_compatibility(found)
        resource = selectors.find_resource(found)
        rows = selectors.subject_versions(resource, documents=True) if resource is not None else []
        if version is not None:
            number = selectors.parse_version(version)
            if resource is None or not rows:
                raise ConfluentError(40401, f"Subject '{subject}' not found.")
            row = (
                selectors.latest_row(resource, rows)
                if number is None
                else next((r for r in rows if r.number == number), None)
            )
            if row is None:
                raise version_not_found(subject, number)
            rows, level = [row], level.removesuffix("_transitive")
        references = services.resolve_references(inp.references, found)
        prepared = prepare(inp.schema_type, inp.schema, references)
        config = selectors.config_in_scope(found, resource)
        group = config.get("compatibilityGroup")
        if (
            group and rows and resource is not None
        ):  # only the versions of the candidate's compatibility group (as a registration's check)
            latest = selectors.latest_live(resource)
            candidate = services.contracts(services.checked_contracts(inp), prepared, config, latest, merge=True)
            mine = property_of(candidate.metadata, group)
            rows = [row for row in rows if property_of(contracts_of(row.version.extensions)[0], group) == mine]
        messages = []
        if rows and rows[-1].schema_id.schema_type != prepared.schema_type:
            messages.append(f"schemaType {prepared.schema_type} differs from {rows[-1].schema_id.schema_type}")
        else:
            previous = [bytes(row.version.content or b"") for row in rows]
            referenced = prepared.referenced or referenced_documents(references)  # a JSON Schema's too
            for issue in check_compatibility(prepared.format, level, previous, prepared.document, referenced):
                messages.append(f"{issue.path}: {issue.change} ({issue.reason})")
        out: dict[str, object] = {"is_compatible": not messages}
        if verbose:
            out["messages"] = messages
        return answer(out)
