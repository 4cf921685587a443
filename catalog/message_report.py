"""What the message checks work on and answer: a parsed `Message` and the `Report` of its errors and notes
(shared by catalog.message_checks and catalog.validators.message_metadata)."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_ERRORS = 100


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
    errors: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def error(self, path: str, reason: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append({"path": path, "reason": reason})
