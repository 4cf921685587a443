"""Admin forms that write through the registry's services: validation errors land next to the field they
name, an epoch conflict (someone saved meanwhile) is a clear message and the user's edit stays on screen."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from django import forms
from django.db import transaction

from ..domain.errors import Problem
from ..representations import is_json_media_type
from ..services import WriteContext


class JSONField(forms.CharField):
    """A formatted JSON editor: pretty-printed on display, parsed and checked on save."""

    widget = forms.Textarea(
        attrs={
            "rows": 12,
            "cols": 100,
            "class": "vLargeTextField json-editor",
            "spellcheck": "false",
            "style": "font-family: monospace",
        }
    )

    def __init__(self, *args, kind=dict, **kwargs):
        self.kind = kind
        kwargs.setdefault("required", False)
        super().__init__(*args, **kwargs)

    def prepare_value(self, value):
        if isinstance(value, dict | list):
            return json.dumps(value, indent=2, ensure_ascii=False)
        return value

    def to_python(self, value):
        if value in (None, ""):
            return self.kind()
        if isinstance(value, dict | list):
            return value
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc}")
        if not isinstance(parsed, self.kind):
            raise forms.ValidationError(f"must be a JSON {'object' if self.kind is dict else 'array'}")
        return parsed


def pretty_document(content: bytes | str | None) -> str:
    """A document as editable text: JSON pretty-printed (keys in their order), anything else as it is."""
    if isinstance(content, bytes | bytearray | memoryview):
        text = bytes(content).decode("utf-8", "replace")
    else:
        text = content or ""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


class DocumentField(forms.CharField):
    """A document editor: a monospace textarea; JSON documents are checked for syntax before any write
    (see DocumentFormMixin), the format's own validation is the service's."""

    widget = forms.Textarea(
        attrs={
            "rows": 18,
            "cols": 100,
            "class": "vLargeTextField json-editor",
            "spellcheck": "false",
            "style": "font-family: monospace",
        }
    )

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("strip", False)
        super().__init__(*args, **kwargs)


if TYPE_CHECKING:
    _Form = forms.BaseForm  # (the form class the mixin comes before)
else:
    _Form = object


class DocumentFormMixin(_Form):
    """clean_document(): a JSON media type requires a parseable JSON document (the error names the line)."""

    def clean_document(self):
        document = self.cleaned_data.get("document", "")
        if is_json_media_type(self.data.get(self.add_prefix("media_type")) or self.initial.get("media_type")):
            try:
                json.loads(document)
            except ValueError as exc:
                raise forms.ValidationError(f"not valid JSON: {exc}")
        return document


FIELD_OF = {
    "id": "gid",
    "name": "name",
    "description": "description",
    "tags": "tags",
    "docs": "docs",
    "version": "vid",
    "format": "format",
    "compatibility": "compatibility",
}


def attach_problem(form: forms.Form, problem: Problem, fallback: str | None = None) -> None:
    """Put each error next to the field its attribute path names (else on the form)."""
    if problem.kind == "epoch-mismatch":
        form.add_error(
            None,
            f"Someone else saved this meanwhile ({problem.detail}). Your edit is still below: "
            "reload the page in another tab to see their change, then save again.",
        )
        return
    if problem.kind == "incompatible-version":
        form.add_error(
            None,
            "Refused: this version is not compatible with the earlier versions under the schema's "
            "compatibility level. Nothing was saved; the reasons are listed next to the document.",
        )
    messages = problem.errors or [problem.detail]
    for message in messages:
        text = (
            message
            if isinstance(message, str)
            else (
                f"{message.get('path')}: {message.get('change', '')}"
                + (f" ({message['reason']})" if message.get("reason") else "")
            )
        )
        head = text.split(": ", 1)[-1] if text.startswith("/") else text
        attribute = head.split(" ", 1)[0].split(".", 1)[0].split("[", 1)[0].rstrip(":")
        field = FIELD_OF.get(attribute) or (attribute if attribute in form.fields else None)
        if field not in form.fields or problem.kind == "incompatible-version":  # paths inside the schema
            field = fallback if fallback in form.fields else None
        form.add_error(field, text)


class ServiceForm(forms.Form):
    """A form that writes through a service once it is valid (`save`, called by the admin view after
    `is_valid()`, as the HackSoft styleguide has the admin call services): the write runs in a savepoint, and a
    refused write becomes form errors, with nothing written."""

    def __init__(self, *args, request=None, **kwargs):
        self.request = request
        self.result = None
        super().__init__(*args, **kwargs)

    def context(self) -> WriteContext:
        return WriteContext.from_request(self.request)

    def perform(self, data: dict):  # pragma: no cover - subclasses implement it
        raise NotImplementedError

    def save(self) -> bool:
        """Write the validated data through the service: True when written (`result` holds what it returned),
        False with the refusal as form errors."""
        try:
            with transaction.atomic():
                self.result = self.perform(self.cleaned_data)
        except Problem as problem:
            attach_problem(self, problem, fallback=getattr(self, "problem_field", None))
            return False
        return True
