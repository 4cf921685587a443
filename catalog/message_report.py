"""What the message checks work on and answer: a parsed `Message` and the `Report` of its errors and notes
(shared by catalog.message_checks and catalog.validators.message_metadata)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

MAX_ERRORS = 100


def as_written(reference: str) -> str:
    return reference


@dataclass
class Message:
    """A message as the checks see it: `attributes` (CloudEvents) or `properties` (other formats), the data."""

    kind: str  # "structured", "envelope"
    properties: dict
    has_data: bool = False
    data: object = None
    data_base64: str | None = None
    errors: list = field(default_factory=list)


@dataclass
class Report:
    """Errors (`{"path", "reason"}`, at most MAX_ERRORS) and notes (what was not checked by design: a schema
    outside this registry, a format no check exists for). A check that could not run is an error marked
    `"unchecked": true` (`unchecked`), never a note: such a message is not valid (issue 24). `reference` shows the
    definition's `schemaurl` in a note as the caller's binding shows the attribute."""

    errors: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    incomplete: bool = False
    reference: Callable[[str], str] = as_written

    def error(self, path: str, reason: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append({"path": path, "reason": reason})

    def refused(self, path: str, reason: str, rule: dict) -> None:
        """A data contract's rule refused the message (confluent.rule_checks): the error names the rule."""
        if len(self.errors) < MAX_ERRORS:
            self.errors.append({"path": path, "reason": reason, "rule": rule})

    def unchecked(self, path: str, reason: str) -> None:
        """A check that could not run at `path`: an error that says so (kept even when the list is full)."""
        entry = {"path": path, "reason": reason, "unchecked": True}
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(entry)
        elif not self.incomplete:
            self.errors[-1] = entry
        self.incomplete = True
