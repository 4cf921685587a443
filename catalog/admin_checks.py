"""Admin pages of the checks before shipping (CONTRACT section 12), rendering only: a message validated
against a definition (`catalog.message_checks`), a candidate schema version's compatibility dry run and the
semantic diff of two versions (`catalog.checks`). Nothing here writes; the forms only read what was pasted."""

from __future__ import annotations

import json
from typing import cast

from django import forms
from django.utils.html import escape, format_html, format_html_join

from registry.domain.errors import Problem
from registry.governance.forms import DocumentField, DocumentFormMixin, attach_problem
from registry.http.requests import loads_strict
from registry.services import VersionInput, WriteContext

from . import checks, message_checks
from .message_skeleton import skeleton

MESSAGE_KINDS = [
    ("", "detect: a structured CloudEvent (has specversion, no headers), else an envelope"),
    (message_checks.STRUCTURED, "structured CloudEvent (application/cloudevents+json)"),
    ("application/json", 'envelope {"headers": {...}, "body": ...} (application/json)'),
]
MONOSPACE = {
    "rows": 16,
    "cols": 100,
    "class": "vLargeTextField json-editor",
    "spellcheck": "false",
    "style": "font-family: monospace",
}


class MessageForm(forms.Form):
    """A pasted message; `verdict()` is the definition's check of it (Problems become form errors)."""

    kind = forms.ChoiceField(choices=MESSAGE_KINDS, required=False, label="Message kind")
    message = forms.CharField(
        strip=False,
        widget=forms.Textarea(attrs=MONOSPACE),
        help_text="a structured CloudEvent (JSON), or an envelope with headers and body",
    )

    def clean_message(self):
        try:
            return loads_strict(self.cleaned_data["message"].encode(), "message")
        except Problem as problem:
            raise forms.ValidationError(problem.detail)

    def verdict(self, resource, base_url: str, scope) -> dict | None:
        """The check's verdict (`scope`: what the admin user may read), or None with the form's error."""
        try:
            doc = message_checks.definition_document(resource.group.gid, resource.rid)
            message = message_checks.parse_message(
                self.cleaned_data.get("kind") or "application/json", self.cleaned_data["message"]
            )
            return message_checks.check_message(doc, message, base_url, scope)
        except Problem as problem:
            self.add_error("message", problem.detail)
            return None


def message_initial(resource, base_url: str) -> dict:
    """The message form's first content: a skeleton of a message of this definition (none when the definition
    cannot be read: the check itself then says why)."""
    try:
        doc = message_checks.definition_document(resource.group.gid, resource.rid)
        message = skeleton(doc, base_url)
    except Problem:
        return {}
    kind = message_checks.STRUCTURED if "specversion" in message else "application/json"
    return {"kind": kind, "message": json.dumps(message, indent=2, ensure_ascii=False)}


class CandidateForm(DocumentFormMixin, forms.Form):
    """A candidate version of a schema; `verdict()` is the compatibility dry run (nothing saved)."""

    media_type = forms.CharField(initial="application/json", label="Media type")
    format = forms.CharField(required=False, help_text="blank: the latest version's format")
    document = DocumentField(
        help_text="checked as a new version would be: validated against its format, then "
        "compared with the earlier versions at the schema's compatibility level"
    )

    def verdict(self, request, resource) -> dict | None:
        data = self.cleaned_data
        attributes = {"format": data["format"]} if data.get("format") else {}
        inp = VersionInput(document=data["document"].encode(), media_type=data["media_type"], attributes=attributes)
        try:
            return checks.schema_compatibility(
                WriteContext.from_request(request), resource.group.gid, resource.rid, inp
            )
        except Problem as problem:
            attach_problem(self, problem, "document")
            return None


def _mark(ok: bool, good: str, bad: str) -> str:
    return format_html("<span class='{}'>{}</span>", "verdict-ok" if ok else "verdict-bad", good if ok else bad)


def message_verdict_section(verdict: dict, definition_path: str) -> dict:
    """valid / invalid, each error's path next to its reason, then the notes (what was not checked)."""
    head = format_html(
        "<p id='message-verdict'>{} against {}</p>", _mark(verdict["valid"], "valid", "invalid"), definition_path
    )
    errors = ""
    if verdict["errors"]:
        rows = format_html_join(
            "",
            "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td></tr>",
            ((e["path"], e["reason"], _rule_shown(e.get("rule"))) for e in verdict["errors"]),
        )
        errors = f"<table id='message-errors'><tr><th>path</th><th>reason</th><th>rule</th></tr>{rows}</table>"
    notes = ""
    if verdict.get("notes"):
        items = format_html_join("", "<li>{}</li>", ((n,) for n in verdict["notes"]))
        notes = f"<h3>Notes</h3><ul id='message-notes'>{items}</ul>"
    return {"title": "Verdict", "html": head + errors + notes}


def _rule_shown(rule: dict | None) -> str:
    """The data contract's rule that refused a message: `name: expression`."""
    if not rule:
        return ""
    return f"{rule.get('name')}: {rule.get('expr', '')}" if rule.get("expr") else str(rule.get("name"))


class MigrationForm(forms.Form):
    """A sample message and a migration rule of a schema version's data contract; `result()` is the dry run
    (`catalog.checks.migration_dry_run`: nothing written; problems become form errors)."""

    mode = forms.ChoiceField(
        choices=[
            ("UPGRADE", "UPGRADE: a message of an earlier major version read as this version's"),
            ("DOWNGRADE", "DOWNGRADE: a message of this version read as an earlier version's"),
        ]
    )
    rule = forms.ChoiceField(required=False, help_text="blank: every JSONATA migration rule of the mode, in order")
    expr = forms.CharField(
        required=False,
        strip=False,
        label="Expression",
        widget=forms.Textarea(attrs={**MONOSPACE, "rows": 4}),
        help_text="a JSONata expression to try instead of a stored rule (nothing is saved)",
    )
    message = forms.CharField(
        strip=False, widget=forms.Textarea(attrs=MONOSPACE), help_text="the sample message (JSON)"
    )

    def __init__(self, *args, rule_names=(), **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["rule"]).choices = [
            ("", "(every rule of the mode)"),
            *((name, name) for name in rule_names),
        ]

    def clean_message(self):
        try:
            return loads_strict(self.cleaned_data["message"].encode(), "message")
        except Problem as problem:
            raise forms.ValidationError(problem.detail)

    def result(self, version) -> dict | None:
        data = self.cleaned_data
        body = {"message": data["message"], "mode": data["mode"]}
        if data.get("rule"):
            body["rule"] = data["rule"]
        if data.get("expr"):
            body["expr"] = data["expr"]
        resource = version.resource
        try:
            return checks.migration_dry_run(resource.group.gid, resource.rid, version.vid, body)
        except Problem as problem:
            self.add_error("expr" if data.get("expr") else "message", problem.detail)
            return None


def migration_section(result: dict) -> dict:
    """The migrated message, the rules that ran, and (UPGRADE) whether it fits this version's schema."""
    ran = format_html_join(", ", "<code>{}</code>", ((rule["name"],) for rule in result["rules"]))
    head = format_html("<p id='migration-rules'>{} ran ({})</p>", ran, result["mode"])
    fits = ""
    if "valid" in result:
        fits = format_html(
            "<p id='migration-fits'>{} this version's schema</p>", _mark(result["valid"], "fits", "does not fit")
        )
        if result["errors"]:
            rows = format_html_join(
                "", "<tr><td><code>{}</code></td><td>{}</td></tr>", ((e["path"], e["reason"]) for e in result["errors"])
            )
            fits += f"<table id='migration-errors'><tr><th>path</th><th>reason</th></tr>{rows}</table>"
    shown = json.dumps(result["message"], indent=2, ensure_ascii=False)
    body = format_html("<pre id='migrated-message'>{}</pre>", shown)
    return {"title": "Migrated message (nothing was saved)", "html": head + fits + body}


def compatibility_verdict_section(verdict: dict) -> dict:
    """compatible or not, the level, the versions compared, each incompatibility with the version it breaks."""
    against = ", ".join(verdict["against"]) or "none (nothing to compare at this level or format)"
    head = format_html(
        "<p id='compatibility-verdict'>{} at level <strong>{}</strong>; compared with version(s): {}</p>",
        _mark(verdict["compatible"], "compatible", "incompatible"),
        verdict["level"],
        against,
    )
    table = ""
    if verdict["incompatibilities"]:
        rows = format_html_join(
            "",
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (i.get("path"), i.get("change"), i.get("reason"), ", ".join(i.get("versions") or []))
                for i in verdict["incompatibilities"]
            ),
        )
        table = (
            "<table id='incompatibilities'><tr><th>path</th><th>change</th><th>reason</th>"
            f"<th>breaks versions</th></tr>{rows}</table>"
        )
    return {"title": "Verdict (nothing was saved)", "html": head + table}


def _shown(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def changes_section(resource, a, b) -> dict:
    """The semantic diff of `catalog.checks` (JSON Schema, Avro, Protobuf schemas), else the unified line diff."""
    if resource.resource_type == "schemas":
        try:
            diff = checks.version_diff(resource.group.gid, resource.rid, a.vid, b.vid)
        except Problem as problem:
            return {"title": "Changes", "html": format_html("<p id='version-diff'>{}</p>", problem.detail)}
    else:
        diff = {
            "format": None,
            "line_diff": checks.line_diff(
                bytes(a.content or b""),
                bytes(b.content or b""),
                f"{resource.path}/versions/{a.vid}",
                f"{resource.path}/versions/{b.vid}",
            ),
        }
    if isinstance(diff, dict):
        text = diff["line_diff"] or "(the documents are the same)"
        return {"title": "Changes (line diff)", "html": f"<pre id='line-diff'>{escape(text)}</pre>"}
    if not diff:
        return {"title": "Changes", "html": "<p id='semantic-diff'>No semantic change.</p>"}
    rows = "".join(
        format_html(
            "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td>"
            "<td>{}</td></tr>",
            c["path"],
            c["change"],
            _shown(c["old"]),
            _shown(c["new"]),
            _mark(c["backward"], "yes", "no"),
            _mark(c["forward"], "yes", "no"),
        )
        for c in diff
    )
    return {
        "title": f"Changes from version {a.vid} to version {b.vid}",
        "html": "<table id='semantic-diff'><tr><th>path</th><th>change</th><th>old</th><th>new</th>"
        f"<th>backward</th><th>forward</th></tr>{rows}</table>",
    }
