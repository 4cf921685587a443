"""Regular expressions of users' schemas, matched in bounded time (issue 24): JSON Schema `pattern`,
`patternProperties` and `format: regex`, and the compatibility checker's property-name patterns.

Python's `re` backtracks: `^(a+)+$` against a run of `a` and a `!` takes time exponential in the run. RE2 (google-re2) matches in time
linear in the text, whatever the pattern, and is tried first. RE2 has no lookaround and no backreferences; a
pattern that needs them (`^(?!draft)`) is matched by the `regex` module, a backtracking engine that takes a
timeout: the time left to the running check (catalog.validators.budget), so a catastrophic one ends the check
with the budget's problem instead of holding the worker. Outside a check it gets REGEX_FALLBACK_SECONDS.

RE2's syntax is close to ECMA-262's, which JSON Schema names: `\\d` and `\\w` are ASCII, `$` is the end of the
text (Python's `re` also matches before a final newline), `\\p{L}` is understood. A pattern neither engine
compiles raises `PatternError`.
"""

from __future__ import annotations

import functools
import re

from registry.store.bounded_cache import BoundedCache

from . import budget

REGEX_FALLBACK_SECONDS = 1.0  # the regex module's timeout when no check budget runs
CACHE_SIZE = 1024


class PatternError(ValueError):
    """The pattern is not a regular expression either engine accepts."""


@functools.lru_cache(maxsize=1)
def _re2_options():
    # here: RE2 loads with the first pattern of a user's schema, not at the start-up of every process
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 otherwise logs every refused pattern on stderr
    return options


_compiled = BoundedCache("compiled_patterns", max_entries=CACHE_SIZE)  # by the pattern, all they are built from


def compiled(pattern: str):
    """(engine, compiled pattern): ("re2", ...) when RE2 takes it, else ("regex", ...); PatternError otherwise (not
    kept: raised again)."""
    found = _compiled.get(pattern)
    if found is None:
        found = _compile(pattern)
        _compiled.put(pattern, found)
    return found


def _compile(pattern: str):
    # here: RE2 and the regex module load with the first pattern of a user's schema, not at start-up
    import re2

    try:
        return "re2", re2.compile(pattern, _re2_options())
    except re2.error:
        pass
    # here: the regex module loads only for a pattern RE2 does not take
    import regex

    try:
        return "regex", regex.compile(pattern, regex.VERSION0)
    except (regex.error, RecursionError, OverflowError, ValueError) as exc:
        raise PatternError(f"not a regular expression: {str(exc)[:200] or type(exc).__name__}") from None


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches somewhere in `text` (JSON Schema's unanchored `pattern` semantics)."""
    engine, program = compiled(pattern)
    if engine == "re2":
        return program.search(text) is not None
    left = budget.remaining()
    try:
        # half the time left: the regex module looks at its clock only now and then, and overshoots
        return program.search(text, timeout=left / 2 if left is not None else REGEX_FALLBACK_SECONDS) is not None
    except TimeoutError:
        if left is None:
            raise PatternError(f"matching took longer than {REGEX_FALLBACK_SECONDS:g} s") from None
        raise budget.Exhausted() from None


def is_regex(pattern: str) -> bool:
    """Whether `pattern` compiles (JSON Schema's `format: regex`)."""
    try:
        compiled(pattern)
    except PatternError:
        return False
    return True


class LinearRe:
    """A stand-in for the `re` module inside jsonschema's keyword functions (catalog.validators.json_engine):
    `search(pattern, string)` as above; anything else is `re`'s."""

    def search(self, pattern, string, flags=0):
        return True if search(pattern, string) else None

    def __getattr__(self, name):
        return getattr(re, name)


linear_re = LinearRe()

__all__ = ["PatternError", "is_regex", "linear_re", "search"]
