"""RFC 6570 level 1 URI templates: literals and `{name}` expressions only.

Written by hand: the uritemplate libraries parse levels 1 to 4 and accept operators (`{+x}`, `{?x}`) and
modifiers (`{x*}`, `{x:3}`) that level 1 forbids, so none of them can tell a level 1 template apart.
"""

import re

VARNAME = re.compile(r"^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$")
FORBIDDEN_LITERALS = set(" \"'<>\\^`|")


def level1_error(template, *, literals: bool = True) -> str | None:
    """None when `template` is a valid RFC 6570 level 1 template, else what is wrong. `literals=False` checks
    the expressions only (an option value that is not a URI may hold any character around them)."""
    if not isinstance(template, str):
        return "must be a string"
    index = 0
    while index < len(template):
        char = template[index]
        if char == "{":
            end = template.find("}", index)
            if end < 0:
                return f"unclosed '{{' at position {index}"
            name = template[index + 1 : end]
            if not name:
                return f"empty expression at position {index}"
            if name[0] in "+#./;?&=,!@|":
                return f"'{{{name}}}' uses an operator; only level 1 '{{name}}' expressions are allowed"
            if not VARNAME.fullmatch(name):
                return f"'{{{name}}}' is not a level 1 expression (one variable name, no modifiers)"
            index = end + 1
            continue
        if char == "}":
            return f"unmatched '}}' at position {index}"
        if literals and (char in FORBIDDEN_LITERALS or ord(char) < 0x20 or ord(char) == 0x7F):
            return f"character {char!r} is not allowed in a URI template"
        index += 1
    return None
