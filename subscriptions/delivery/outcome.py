"""What one send attempt produced, whatever the protocol."""

from dataclasses import dataclass


@dataclass
class Outcome:
    ok: bool
    status_code: int | None = None
    error: str = ""
    retry_after: str | None = None
