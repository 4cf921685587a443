"""How the governance UI prints stored values that are not its own text.

The one way it renders a stored URL (a schema's `schemaURI`, a sync source's base URL, ...):
`stored_link` makes a link only of an http(s) URL or a relative reference, and prints anything else as text,
so that no stored `javascript:` or `data:` URL becomes a link that runs in the admin's origin when clicked.

Browsers drop tabs and newlines anywhere in a URL and spaces and control characters around it before they read
its scheme (WHATWG URL standard); `safe_href` reads the scheme the same way, so `java\\tscript:` is caught too.

Paths, ids, URLs and event types are long words: `breakable` lets a browser wrap them after their separators
(`/`, `.`, `:`, ...) and between camelCase words, so that a table holding them fits the window instead of widening the page; `shown_time` is
the compact date and time of the lists.
"""

from __future__ import annotations

import re

from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

LINK_SCHEMES = ("http", "https")
_IGNORED = re.compile(r"[\t\n\r]")  # removed anywhere by the URL parser
_AROUND = "".join(chr(c) for c in range(0x21))  # C0 controls and space: stripped at both ends
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def safe_href(url) -> str | None:
    """`url` when a browser would open it as an http(s) URL or as a reference relative to the page; else None."""
    if not isinstance(url, str) or not url:
        return None
    cleaned = _IGNORED.sub("", url).strip(_AROUND)
    if not cleaned or any(ord(c) < 0x20 or c == "\x7f" for c in cleaned):
        return None
    scheme = _SCHEME.match(cleaned)
    if scheme:
        return url if scheme.group(1).lower() in LINK_SCHEMES else None
    # no scheme: a relative reference, unless a ':' before the first '/', '?' or '#' makes the browser see one
    head = re.split(r"[/?#\\]", cleaned, maxsplit=1)[0]
    return url if ":" not in head else None


def stored_link(url, text=None, **attributes) -> str:
    """A link to a stored URL, or the URL as plain text when it is not one to follow (see `safe_href`).
    `text`: what the link shows (default: the URL); `attributes`: more HTML attributes (`id`, `class_`)."""
    shown = breakable(url if text is None else text)
    href = safe_href(url)
    if href is None:
        return format_html("<span class='unsafe-url' title='not an http(s) URL: not a link'>{}</span>", shown or "")
    extra = (
        format_html("".join(f" {name.rstrip('_')}='{{}}'" for name in attributes), *attributes.values())
        if attributes
        else ""
    )
    return format_html("<a href='{}' rel='noopener noreferrer nofollow'{}>{}</a>", href, extra, shown)


_BREAK_AFTER = re.compile(r"(?<=[/.:_\-?&=#,@])|(?<=[a-z])(?=[A-Z])")  # separators, camelCase


def breakable(text) -> str:
    """`text` escaped, with a line-break opportunity (`<wbr>`) after each separator of a path, id or URL and
    between the words of a camelCase name."""
    if text is None:
        return ""
    return mark_safe("<wbr>".join(escape(part) for part in _BREAK_AFTER.split(str(text))))  # noqa: S308 - escaped


def shown_time(moment) -> str:
    """A date and time as the lists show them: `2026-11-25 18:26:17` in the server's time zone, the date kept on
    one line."""
    if not moment:
        return ""
    local = timezone.localtime(moment)
    return format_html(
        "<span style='white-space: nowrap'>{}</span> {}", local.strftime("%Y-%m-%d"), local.strftime("%H:%M:%S")
    )
