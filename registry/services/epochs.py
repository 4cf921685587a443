"""The epoch check of a write (docs/api-contract.md section 5): a write that names an epoch applies only while
the entity is at that epoch; any other value (not an unsigned integer, or another number) is 409."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..domain.errors import epoch_mismatch

if TYPE_CHECKING:
    from ..models import Group, Resource, Version


def check_epoch(path: str, entity: Group | Resource | Version, epoch: object) -> None:
    """409 unless `epoch` is None (not named) or the entity's current epoch."""
    if epoch is None:
        return
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch != entity.epoch:
        raise epoch_mismatch(path, epoch, entity.epoch)
