"""The registry entity's own epoch and modification time: they move, in the writing transaction, when a group is
added or removed (xRegistry 1.0 core/spec.md "epoch": a nested collection's additions and removals, not the
changes of its entities)."""

from __future__ import annotations

from django.db.models import F

from ..models import RegistryState
from .context import WriteContext


def touch_registry(ctx: WriteContext) -> None:
    """A group was added or removed in this transaction."""
    if not RegistryState.objects.filter(pk=1).update(epoch=F("epoch") + 1, modified_on=ctx.now):
        RegistryState.objects.get_or_create(pk=1, defaults={"epoch": 2, "created_on": ctx.now, "modified_on": ctx.now})
