"""The JSON Schema engine of message checks (issue 24): jsonschema's validator of a draft, bounded and honest.

`bounded_validator_class(cls)` extends jsonschema's validator class `cls` (Draft7Validator ...) so that:

- every keyword evaluation is a step of the check's budget (catalog.validators.budget): a schema and data that
  would keep a worker busy end with the budget's 503 problem instead;
- regular expressions (`pattern`, `patternProperties`, the patterns behind `additionalProperties` and
  `unevaluatedProperties`, `format: regex`) are matched in linear time (catalog.validators.linear_regex);
- `uniqueItems` compares canonical forms in a set (catalog.validators.json_canonical), not every pair (quadratic
  in the items);
- a keyword that fails (`multipleOf: 0.01` on an integer too large for a float: OverflowError; a RecursionError)
  yields an `UncheckedError` naming what could not be checked, instead of ending the whole validation: the
  other errors are kept, and the caller reports the check as not passed (a check that could not run is never
  a pass); a `$ref` that does not resolve (nothing is fetched: catalog.validators.json_references) is one of
  them, naming the reference. Each one also counts in `unchecked_count()`, so that an unchecked keyword under `not` or inside an
  `anyOf` branch, where jsonschema consumes the error, still fails the message.

jsonschema offers no hook for its regular expression engine: its keyword functions call `re.search` (and
helpers that do) through their module globals. The keyword functions of the extended class are therefore
copies of jsonschema's own, bound to globals in which `re` is the linear engine's stand-in and the helpers are
likewise rebound copies: jsonschema itself, and every other user of it in the process, stay untouched.
"""

from __future__ import annotations

import contextvars
import functools
import types

from jsonschema import FormatChecker, _legacy_keywords, _utils
from jsonschema.exceptions import ValidationError
from jsonschema.validators import extend, validator_for

from . import budget
from .json_canonical import all_unique
from .json_references import unresolvable_reason
from .linear_regex import is_regex, linear_re

_unchecked: contextvars.ContextVar[list | None] = contextvars.ContextVar("unchecked_keywords", default=None)


class UncheckedError(ValidationError):
    """A keyword that could not be evaluated on this instance: never a pass."""


def _rebind(fn, names: dict):
    """A copy of function `fn` whose module globals are overlaid with `names`."""
    scope = {**fn.__globals__, **names}
    copy = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    if fn.__name__ in names:  # a recursive helper calls itself: its copy must call the copy
        scope[fn.__name__] = copy
    return copy


@functools.cache
def _linear_names() -> dict:
    """The globals that jsonschema's keyword functions reach regular expressions through, rebound."""
    names: dict = {"re": linear_re}
    names["find_additional_properties"] = _rebind(_utils.find_additional_properties, {"re": linear_re})
    evaluated = _rebind(
        _utils.find_evaluated_property_keys_by_schema,
        {"re": linear_re, "find_evaluated_property_keys_by_schema": None},
    )
    legacy_evaluated = _rebind(
        _legacy_keywords.find_evaluated_property_keys_by_schema,
        {"re": linear_re, "find_evaluated_property_keys_by_schema": None},
    )
    names["uniq"] = all_unique
    return {"modern": {**names, "find_evaluated_property_keys_by_schema": evaluated}, "legacy": legacy_evaluated}


def _linear(fn):
    """jsonschema's keyword function `fn`, rebound to the linear regular expressions and the canonical uniq."""
    rebound = _linear_names()
    names = dict(rebound["modern"])
    if fn.__globals__ is _legacy_keywords.__dict__:
        names["find_evaluated_property_keys_by_schema"] = rebound["legacy"]
    return _rebind(fn, names)


def _note_unchecked() -> None:
    found = _unchecked.get()
    if found is not None:
        found.append(1)


def _guarded(name: str, fn):
    """Keyword `name` as one budget step; a failure inside it becomes an UncheckedError."""

    def keyword(validator, value, instance, schema):
        budget.spend()
        try:
            errors = fn(validator, value, instance, schema)
            if errors:
                yield from errors
        except ValidationError:
            raise
        except RecursionError:
            _note_unchecked()
            yield UncheckedError(f"could not be checked against {name!r}: nested too deeply")
        except Exception as exc:  # noqa: BLE001  any failure of the keyword on this value: reported, never a pass
            _note_unchecked()
            reason = unresolvable_reason(exc) or (
                str(exc).splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            )
            yield UncheckedError(f"could not be checked against {name!r}: {reason}")

    keyword.__name__ = fn.__name__
    return keyword


def _format_checker(cls):
    """The draft's format checker, with `regex` judged by the linear engines."""
    checker = FormatChecker(formats=())
    checker.checkers = dict(cls.FORMAT_CHECKER.checkers)
    checker.checks("regex")(lambda instance: not isinstance(instance, str) or is_regex(instance))
    return checker


_bounded_classes: set = set()


def _bounded_validator_for(schema, default):
    """jsonschema's `validator_for` as the bounded classes' `evolve` calls it: the bounded class of the draft a
    subschema's `$schema` names. jsonschema's own would answer its plain class, and the subschema and everything
    below it would be checked without the budget and with Python's backtracking `re` (where a `pattern` such as
    `^(a+)+$` takes exponential time: tests/catalog/test_check_budgets.py)."""
    found = validator_for(schema, default=default)
    return found if found in _bounded_classes else bounded_validator_class(found)


@functools.cache
def bounded_validator_class(cls):
    """jsonschema's validator class `cls`, extended as the module docstring says (built once per draft); a
    subschema that names a draft in `$schema` is checked by that draft's bounded class too."""
    if cls in _bounded_classes:
        return cls
    keywords = {name: _guarded(name, _linear(fn)) for name, fn in cls.VALIDATORS.items()}
    bounded = extend(cls, validators=keywords)
    bounded.FORMAT_CHECKER = _format_checker(cls)
    bounded.evolve = _rebind(bounded.evolve, {"validator_for": _bounded_validator_for})
    _bounded_classes.add(bounded)
    return bounded


def unchecked_count(run):
    """Call `run()` and answer (its result, how many keyword evaluations could not be checked during it)."""
    found: list = []
    token = _unchecked.set(found)
    try:
        return run(), len(found)
    finally:
        _unchecked.reset(token)


__all__ = ["UncheckedError", "bounded_validator_class", "unchecked_count"]
