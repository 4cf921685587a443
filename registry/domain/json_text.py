"""JSON from untrusted bytes within bounds: nesting depth is checked on the text before parsing, without
recursion, so a deeply nested document cannot exhaust the stack of any library; and whether a stored JSON
document can be served and exported again (`json_document_problem`). Used by the engine and by the catalog's
format validators. The limits are registry.domain.limits's: `MAX_DEPTH` for one entity's JSON, `MAX_DOCUMENT_DEPTH` for
what carries entities (request bodies, registry documents)."""

import json
import re
import secrets
from itertools import accumulate

from .attributes import unstorable
from .limits import MAX_DEPTH, MAX_DOCUMENT_DEPTH


class TooDeep(ValueError):
    """JSON text nested deeper than a limit (refused before any parser sees it)."""


# A JSON string (its escapes skipped whole; one left open runs to the end of the text, as an unterminated one reads),
# and a run of characters that are not brackets
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """The deepest nesting of objects and arrays, ignoring brackets inside strings. The strings and every other
    character are cut out by regular expressions and the depth summed over the brackets left, at C speed: a loop over
    each character in Python was most of the time of reading a large import."""
    brackets = _NOT_BRACKETS.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets), initial=0))


def nesting_exceeds(text: str, limit: int) -> bool:
    """Whether `text` nests objects and arrays deeper than `limit`. The count of brackets bounds the depth
    from above and is taken at C speed, so only a text holding more than `limit` of them is scanned."""
    return text.count("[") + text.count("{") > limit and json_depth(text) > limit


def parse_json_limited(content: bytes, max_depth: int = MAX_DEPTH):
    """The JSON value of `content`; ValueError with a clear message when it is not UTF-8 JSON or too deep."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError("is not UTF-8 text")
    if nesting_exceeds(text, max_depth):
        raise ValueError(f"is nested deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"is not valid JSON: {exc}")


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def _no_duplicates(pairs):
    out = dict(pairs)  # at C speed; only an object with a duplicate key is walked again, to name the first one
    if len(out) < len(pairs):
        seen = set()
        for key, _value in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen.add(key)
    return out


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is too large for JSON's interoperable range")
    return value


def strict_loads(text: str, max_depth: int = MAX_DOCUMENT_DEPTH):
    """json.loads that refuses NaN/Infinity, numbers that overflow to infinity (1e999) and duplicate keys
    (RFC 8259 interoperable JSON), and (TooDeep) text nested deeper than `max_depth`: by default what a request
    body or a registry document may hold, one entity's `MAX_DEPTH` and the levels around it."""
    if nesting_exceeds(text, max_depth):
        raise TooDeep(f"is nested deeper than {max_depth} levels")
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite, object_pairs_hook=_no_duplicates)


def load_json_document(content: bytes, max_depth: int = MAX_DEPTH) -> tuple[object, str | None]:
    """(the parsed document, None), or (None, why it could not be stored, served and exported again): not
    UTF-8, nested deeper than `max_depth`, not strict JSON (NaN, Infinity, duplicate keys), or holding a NUL
    character or an unpaired surrogate (PostgreSQL and UTF-8 output refuse both). Parsed once: reads check
    and use the same value. An empty document is (None, None)."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, "the document is not UTF-8 text"
    if not text.strip():
        return None, None
    try:
        value = strict_loads(text, max_depth)
    except TooDeep as exc:
        return None, f"the document {exc}"
    except ValueError as exc:
        return None, f"the document is not valid JSON: {exc}"
    # UTF-8 text holds no lone surrogate and JSON text no raw NUL: both can only come from \u escapes
    problem = unstorable(value, "document") if "\\u" in text else None
    return (None, f"the {problem}") if problem else (value, None)


def canonical_json(content: bytes, max_depth: int = MAX_DEPTH) -> tuple[object, str] | None:
    """(the document, its text) when `content` is a document `load_json_document` reads without a problem and is
    written exactly as `json.dumps(value, ensure_ascii=False)` writes its value, so that its text can stand for the
    value in JSON output written that way (the exports splice it: no parse with hooks, no writing it again); else
    None (read it with `load_json_document`). Parsed without hooks, at C speed: the text of a dumped value holds no
    duplicate key (were there one, the text would differ from the dump of what it parses to); one with `NaN`,
    `Infinity` or a `\\u` escape (a NUL or a lone surrogate: `unstorable`) anywhere is left to the strict parse."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\\u" in text or "NaN" in text or "Infinity" in text or nesting_exceeds(text, max_depth):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return (value, text) if json.dumps(value, ensure_ascii=False) == text else None


def json_document_problem(content: bytes, max_depth: int = MAX_DEPTH) -> str | None:
    """Why a document sent as JSON could not be stored, served and exported again, or None (see
    `load_json_document`)."""
    return load_json_document(content, max_depth)[1]


def exportable(value):
    """`value` with what JSON output and PostgreSQL cannot carry replaced: unpaired surrogates and NUL by
    U+FFFD, NaN and infinities by null. For exporting documents stored before the write-time checks, whose
    members must be written as JSON (a definition's document is merged into the exported object)."""
    if isinstance(value, str):
        if "\x00" in value or not _encodes(value):
            return "".join("\ufffd" if c == "\x00" or 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
        return value
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {exportable(k): exportable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [exportable(v) for v in value]
    return value


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Spliced:
    """Documents written into JSON output as their stored text: `self(text)` gives a string to put in the value's
    place, `dumps(value)` is `json.dumps(value, ensure_ascii=False)` with each such string's quoted form replaced by
    its text. The string is a NUL, a random token of this instance and the text's index: no stored text holds one
    (PostgreSQL's text holds no NUL; a token no one has seen cannot be written)."""

    def __init__(self):
        token = secrets.token_hex(8)
        self._prefix = f"\x00{token}:"
        self._pattern = re.compile(r'"\\u0000' + token + r':(\d+)"')
        self._texts: list[str] = []

    def __call__(self, text: str) -> str:
        self._texts.append(text)
        return f"{self._prefix}{len(self._texts) - 1}"

    def dumps(self, value) -> str:
        text = json.dumps(value, ensure_ascii=False)
        if self._texts:
            pieces = self._pattern.split(text)
            texts = self._texts
            pieces[1::2] = [texts[int(index)] for index in pieces[1::2]]
            text = "".join(pieces)
            texts.clear()
        return text
