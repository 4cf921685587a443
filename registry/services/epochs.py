"""The epoch check of a write (docs/api-contract.md section 5): a write that names an epoch applies only while
the entity is at that epoch; any other value (not an unsigned integer, or another number) is 409. `parse_epoch`: an epoch as a client writes it (a body's member, a header, `?epoch`), 400 unless an unsigned
integer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..domain.errors import Problem, epoch_mismatch

if TYPE_CHECKING:
    from ..models import Group, Resource, Version


def check_epoch(path: str, entity: Group | Resource | Version, epoch: object) -> None:
    """409 unless `epoch` is None (not named) or the entity's current epoch."""
    if epoch is None:
        return
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch != entity.epoch:
        raise epoch_mismatch(path, epoch, entity.epoch)


def parse_epoch(value: object, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, str):
        if not value.isdigit() or not value.isascii():
            raise Problem("bad-request", f"{where}: epoch must be an unsigned integer, not {value[:40]!r}")
        if len(value.lstrip("0")) > 20:  # epochs are unsigned 64-bit integers
            raise Problem("bad-request", f"{where}: epoch {value[:20]}... is larger than any epoch")
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Problem("bad-request", f"{where}: epoch must be an unsigned integer, not {str(value)[:40]}")
    return value
