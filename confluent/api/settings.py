"""Config (compatibility levels), modes and compatibility tests."""

from __future__ import annotations

from catalog.validators import budget
from catalog.validators.compatibility import LEVELS, check_compatibility
from registry.http.requests import json_body
from registry.throttles import AnonymousRateThrottle

from .. import selectors, services
from ..attributes import MODE
from ..errors import INVALID_COMPATIBILITY, INVALID_MODE, ConfluentError, version_not_found
from ..schema_types import prepare
from ..subjects import parse
from .base import ConfluentView, answer, flag
from .inputs import registration


def level_in(body: dict) -> str:
    value = body.get("compatibility", body.get("compatibilityLevel"))
    if not isinstance(value, str) or value.lower() not in LEVELS:
        raise ConfluentError(
            INVALID_COMPATIBILITY,
            f"Invalid compatibility level {value!r}. Valid values are {', '.join(level.upper() for level in LEVELS)}",
        )
    return value.lower()


def mode_in(body: dict) -> str:
    value = body.get("mode")
    if not isinstance(value, str) or value.upper() not in selectors.MODES:
        raise ConfluentError(INVALID_MODE, f"Invalid mode {value!r}. Valid values are {', '.join(selectors.MODES)}")
    return value.upper()


class ConfigView(ConfluentView):
    # compatibility levels are attributes of groups and schemas: the services check each write (registry.permissions)

    def get(self, request, subject=None):
        """The level: global (the default context's), a context's (`:.ctx:`) or a subject's (40408 when it has none
        of its own, unless `?defaultToGlobal=true`)."""
        if subject is None:
            return answer({"compatibilityLevel": selectors.global_compatibility().upper()})
        found = parse(subject, allow_context=True)
        if found.is_context:
            own = selectors.group_compatibility(found.group_id)
        else:
            own = selectors.subject_compatibility(found)
        if own is None:
            if not flag(request, "defaultToGlobal"):
                raise ConfluentError(40408, f"Subject '{subject}' does not have subject-level compatibility configured")
            own = selectors.effective_compatibility(found)
        return answer({"compatibilityLevel": own.upper()})

    def put(self, request, subject=None):
        level = level_in(json_body(request))
        found = parse(subject, allow_context=True) if subject is not None else None
        services.set_compatibility(ctx=self.context(), subject=found, level=level)
        return answer({"compatibility": level.upper()})

    def delete(self, request, subject=None):
        found = parse(subject, allow_context=True) if subject is not None else None
        if found is None:
            old = selectors.global_compatibility()
        elif found.is_context:
            old = selectors.group_compatibility(found.group_id) or selectors.effective_compatibility(found)
        else:
            old = selectors.subject_compatibility(found)
            if old is None:
                raise ConfluentError(40401, f"Subject '{subject}' not found.")
        services.set_compatibility(ctx=self.context(), subject=found, level=None)
        return answer({"compatibilityLevel": old.upper()})


class ModeView(ConfluentView):
    # modes are attributes of groups and schemas (confluent.attributes): the services check each write

    def get(self, request, subject=None):
        """The mode: global (the default context's), a context's (`:.ctx:`) or a subject's (40409 when it has none of
        its own, unless `?defaultToGlobal=true`)."""
        if subject is None:
            return answer({"mode": selectors.effective_mode(None)})
        found = parse(subject, allow_context=True)
        if own_mode(found) is None and not flag(request, "defaultToGlobal"):
            raise ConfluentError(40409, f"Subject '{subject}' does not have subject-level mode configured")
        return answer({"mode": selectors.effective_mode(found)})

    def put(self, request, subject=None):
        mode = mode_in(json_body(request))
        found = parse(subject, allow_context=True) if subject is not None else None
        services.set_mode(ctx=self.context(), subject=found, mode=mode, force=flag(request, "force"))
        return answer({"mode": mode})

    def delete(self, request, subject=None):
        if subject is None:
            raise ConfluentError(405, "the global mode cannot be deleted; PUT READWRITE instead", status=405)
        found = parse(subject, allow_context=True)
        own = own_mode(found)
        if own is None:
            raise ConfluentError(40409, f"Subject '{subject}' does not have subject-level mode configured")
        services.set_mode(ctx=self.context(), subject=found, mode=None)
        return answer({"mode": own})


def own_mode(found) -> str | None:
    return selectors.group_mode(found.group_id) if found.is_context else selectors.subject_setting(found, MODE)


class CompatibilityView(ConfluentView):
    post_reads = True
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
            if not rows:
                raise ConfluentError(40401, f"Subject '{subject}' not found.")
            row = rows[-1] if number is None else next((r for r in rows if r.number == number), None)
            if row is None:
                raise version_not_found(subject, number)
            rows, level = [row], level.removesuffix("_transitive")
        references = services.resolve_references(inp.references, found)
        prepared = prepare(inp.schema_type, inp.schema, references)
        messages = []
        if rows and rows[-1].schema_id.schema_type != prepared.schema_type:
            messages.append(f"schemaType {prepared.schema_type} differs from {rows[-1].schema_id.schema_type}")
        else:
            previous = [bytes(row.version.content or b"") for row in rows]
            for issue in check_compatibility(prepared.format, level, previous, prepared.document, prepared.referenced):
                messages.append(f"{issue.path}: {issue.change} ({issue.reason})")
        out = {"is_compatible": not messages}
        if verbose:
            out["messages"] = messages
        return answer(out)
