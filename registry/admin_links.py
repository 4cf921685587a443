"""The one way the governance UI renders a stored URL (a schema's `schemaURI`, a sync source's base URL, ...):
`stored_link` makes a link only of an http(s) URL or a relative reference, and prints anything else as text,
so that no stored `javascript:` or `data:` URL becomes a link that runs in the admin's origin when clicked.

Browsers drop tabs and newlines anywhere in a URL and spaces and control characters around it before they read
its scheme (WHATWG URL standard); `safe_href` reads the scheme the same way, so `java\\tscript:` is caught too.
"""

from __future__ import annotations

import re

from django.utils.html import format_html

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
    shown = url if text is None else text
    href = safe_href(url)
    if href is None:
        return format_html("<span class='unsafe-url' title='not an http(s) URL: not a link'>{}</span>", shown or "")
    extra = (
        format_html("".join(f" {name.rstrip('_')}='{{}}'" for name in attributes), *attributes.values())
        if attributes
        else ""
    )
    return format_html("<a href='{}' rel='noopener noreferrer nofollow'{}>{}</a>", href, extra, shown)
