"""Parsing JSON from untrusted bytes within bounds: nesting depth is checked on the text before parsing,
without recursion, so a deeply nested document cannot exhaust the stack of any library."""
import json

MAX_DEPTH = 256


def json_depth(text: str) -> int:
    """The deepest nesting of objects and arrays, ignoring brackets inside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


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
