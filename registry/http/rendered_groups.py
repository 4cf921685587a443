"""Whole-registry answers (`GET /?inline`, the exports of both bindings) rendered one group at a time, each group's
part kept per worker until that group changes: the first read after a write renders only the groups it changed.

Rendering the whole registry costs Python work for every version (loading the rows into models, parsing each
document, writing JSON). The whole answer is kept under the registry's change marker
(rendered_answers.py), so any write anywhere renders it all again. Here each group's part is kept under the group's
state (registry/store/group_states.py: one query for every group of a type, a few milliseconds), so after a write only
the groups whose state moved are loaded and rendered; the others are the bytes rendered before. A part is kept
under the state read before it was rendered: a write committed in between keeps a newer part under an older state,
which no later read sees again (a group's states never come back).

Memory: per process, at most REGISTRY_RENDERED_ANSWER_BYTES of parts (least recently used dropped first; a part
larger than that is not kept), besides the whole answers rendered_answers.py keeps (as much again): a
registry/store/bounded_cache.py cache, `rendered_groups` in the metrics.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

from django.conf import settings
from django.core.signals import setting_changed

from ..access.read_scope import EVERYTHING, ReadScope
from ..domain.model import GroupType
from ..models import Group
from ..store import selectors
from ..store.bounded_cache import BoundedCache
from ..store.group_states import group_states

logger = logging.getLogger(__name__)
BATCH = 50  # groups loaded with their resources and versions at a time (memory while rendering)


class RenderedGroups:
    """Groups' parts under their states (registry/store/bounded_cache.py)."""

    def __init__(self):
        self._cache = BoundedCache("rendered_groups", max_bytes=lambda: settings.REGISTRY_RENDERED_ANSWER_BYTES)

    def get(self, key: tuple, state: str) -> bytes | None:
        return self._cache.get(key, state)

    def put(self, key: tuple, state: str, part: bytes) -> None:
        self._cache.put(key, part, size=len(part), version=state)

    def clear(self) -> None:
        self._cache.clear()

    @property
    def size(self) -> int:
        return self._cache.size


rendered_groups = RenderedGroups()


def _forget(**_kwargs) -> None:
    """A changed setting (tests) may change any part."""
    rendered_groups.clear()


setting_changed.connect(_forget, dispatch_uid="registry.http.rendered_groups")


def group_parts(
    variant: tuple,
    gt: GroupType,
    render: Callable[[Group], bytes],
    states: dict[str, str] | None = None,
    scope: ReadScope = EVERYTHING,
) -> Iterator[tuple[str, bytes]]:
    """(id, part) of each group of `gt` that `scope` reads, in id order, the part as `render` writes it (given the
    group with its resources and versions loaded), kept under the group's state and `variant` (everything else the
    part depends on: the answer, the base URL; not the caller, who only decides which groups are written): a kept
    part when the state is the same, else rendered now. `states`: the groups' states when the caller read them
    (`group_states`, less the groups `scope` hides)."""
    if states is None:
        hidden = scope.hidden_ids(gt.plural) if not scope.everything else set()
        states = {gid: state for gid, state in group_states(gt).items() if gid not in hidden}
    pending: list[str] = []
    count = [0]

    def rendered() -> Iterator[tuple[str, bytes]]:
        if not pending:
            return
        ids = list(pending)
        pending.clear()
        for group in selectors.iter_groups(gt, inline=True, ids=ids, chunk_size=BATCH, scope=scope):
            part = render(group)
            rendered_groups.put((variant, gt.plural, group.gid), states[group.gid], part)
            count[0] += 1
            yield group.gid, part

    for gid, state in states.items():
        part = rendered_groups.get((variant, gt.plural, gid), state)
        if part is None:
            pending.append(gid)
            if len(pending) >= BATCH:
                yield from rendered()
            continue
        yield from rendered()  # the groups before this one first: the order is the groups'
        yield gid, part
    yield from rendered()
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s %s: rendered %d of %d groups", variant[0], gt.plural, count[0], len(states))


def joined(parts: Iterator[tuple[str, bytes]]) -> Iterator[bytes]:
    """The parts of a JSON object's members with `, ` between them."""
    first = True
    for _gid, part in parts:
        yield part if first else b", " + part
        first = False
