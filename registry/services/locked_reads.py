"""A resource's row lock, and what a new version reads under it sent with the lock in one round trip (issue 29).

Every write of a resource's versions takes the resource's row lock (`SELECT ... FOR UPDATE`) and holds it until it
commits, so the round trips it makes under the lock bound how many versions of one resource are written per second.
A new version reads, under the lock, the version it inherits from, the numbers after the resource's version counter
(its id) and the check of the earlier documents this process keeps (registry/store/earlier_documents.py).

On PostgreSQL they are sent with the lock (registry/sent_together.py): the server runs a connection's statements one
after the other and, at the default isolation level (READ COMMITTED), each one sees what was committed when it
starts, so reads queued behind the lock run once it is granted and see what its previous holder committed, as they
would in a round trip of their own. They are keyed by the resource's id, which only the lock's answer gives: the id
this process last locked at the same group, type and id is sent with the lock, and when the answer names another
(the first write here, a resource deleted and made again) the reads are sent again with the right one. The version
it inherits from is read through the resource's row (a subquery), as the lock left it; the ids asked about are the
numbers after the counter this process last saw there, enough of them for the versions others wrote meanwhile.

The group's row is read (and kept from being deleted, `FOR KEY SHARE`) before the resource's lock, in a round trip of
its own (`resources.get_group`) the first time; after that the group as this process last read it stands for it until
the lock, and its row is read again with the lock, in the same round trip (`lock_for_new_version(group_again=True)`).
When the row read is not the one this process kept, the write goes on with the row read (its id changed: the reads are
sent again with it; no row: 404).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection

from ..domain.errors import not_found
from ..models import Group, Resource, Version
from ..sent_together import Selected, select, sent_together
from ..store.earlier_documents import EarlierSent, earlier_documents_sent
from .versions import NEXT_ID_CANDIDATES, next_version_id, next_version_id_sent, send_taken_ids

# (group's id, resource type, resource id) -> the resource row's id and the version counter this process last saw
_ids: dict[tuple[int, str, str], tuple[int, int]] = {}
# (group type, group id) -> the group's row as this process last read it with a resource's lock (PostgreSQL)
_groups: dict[tuple[str, str], Group] = {}
IDS = 10_000  # at most so many kept (then forgotten at once: the next write of each sends its reads again)
GUESSED_IDS = 32  # the numbers after the counter last seen that a write asks about with the lock


class LockSent:
    """`lock_resource`'s statement, sent; called once the answer is in: the locked resource (404 when there is none);
    `close()` when the answer is not wanted."""

    def __init__(self, group: Group, rplural: str, rid: str, selected: Selected | None, found: list):
        self.group, self.rplural, self.rid, self.selected, self.found = group, rplural, rid, selected, found

    def __call__(self) -> Resource:
        found = self.selected.instances() if self.selected is not None else self.found
        return _found(self.group, self.rplural, self.rid, found)

    def close(self) -> None:
        if self.selected is not None:
            self.selected.close()


def lock_resource_sent(group: Group, rplural: str, rid: str) -> LockSent:
    """`lock_resource`'s statement sent (on PostgreSQL, in a transaction: to go in a `sent_together()` block); call
    the result for the locked resource once the answer is in."""
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        # written out: every write of a version waits for the lock and then holds it while it works, and the ORM's
        # compilation of this query was a tenth of that time
        table, group_column = (connection.ops.quote_name(n) for n in (Resource._meta.db_table, "group_id"))
        selected = select(
            Resource,
            f"SELECT * FROM {table} WHERE {group_column} = %s AND resource_type = %s AND rid = %s "
            "ORDER BY id LIMIT 1 FOR UPDATE",
            [group.pk, rplural, rid],
        )
        return LockSent(group, rplural, rid, selected, [])
    found = Resource.objects.select_for_update().filter(group=group, resource_type=rplural, rid=rid).first()
    return LockSent(group, rplural, rid, None, [found] if found is not None else [])


def group_sent(plural: str, gid: str) -> Selected:
    """The group's row, kept from being deleted until the transaction ends (`FOR KEY SHARE`: `resources.get_group`
    says why), sent (PostgreSQL: to go in a `sent_together()` block)."""
    table = connection.ops.quote_name(Group._meta.db_table)
    return select(Group, f"SELECT * FROM {table} WHERE group_type = %s AND gid = %s FOR KEY SHARE", [plural, gid])


def _row(group: Group) -> tuple:
    return tuple(getattr(group, field.attname) for field in Group._meta.concrete_fields)


def _found(group: Group, rplural: str, rid: str, found: list) -> Resource:
    if not found:
        raise not_found(f"{group.path}/{rplural}/{rid}")
    resource = found[0]
    resource.group = group
    return resource


@dataclass
class LockedReads:
    """The locked resource (its `latest` read; its `group` the row read with the lock, or the one given), the function
    that gives its next version id (None when the write names one) and the one that gives its earlier documents (None:
    `earlier_documents` reads them)."""

    resource: Resource
    next_id: Callable[[], str] | None
    earlier: Callable | None


def seen_group(plural: str, gid: str) -> Group | None:
    """The group as this process last read it with a resource's lock (PostgreSQL), to stand for it until the next lock,
    which reads it again (`lock_for_new_version(group_again=True)`); None: not seen (read it first)."""
    return _groups.get((plural, gid)) if connection.vendor == "postgresql" else None


def lock_for_new_version(
    group: Group, rplural: str, rid: str, *, new_id: bool, group_again: bool = False
) -> LockedReads:
    """The resource locked, and what a new version of it reads under the lock (module docstring); `new_id`: the
    write names no version id (the next number is read); `group_again`: `group` is the one this process kept
    (`seen_group`), its row is read again with the lock (the resource's `group` is then the row read, the same object
    when it did not change)."""
    key = (group.pk, rplural, rid)
    guess = _ids.get(key) if connection.vendor == "postgresql" else None
    with sent_together():
        group_read = group_sent(group.group_type, group.gid) if group_again else None
        locked = lock_resource_sent(group, rplural, rid)
        guessed = _reads_by_row(*guess, new_id) if guess is not None else None
    if group_read is not None:
        found = group_read.instances()
        if not found or found[0].pk != group.pk:  # deleted (and maybe made again) since this process kept it
            _groups.pop((group.group_type, group.gid), None)
            locked.close()
            if guessed is not None:
                guessed.close()
            if not found:
                raise not_found(group.path)
            return lock_for_new_version(found[0], rplural, rid, new_id=new_id)  # (its key share is taken)
        if _row(found[0]) != _row(group):
            group = found[0]  # changed since: the write goes on with the row read
    if connection.vendor == "postgresql":
        if len(_groups) >= IDS:
            _groups.clear()
        _groups[(group.group_type, group.gid)] = group
    resource = locked()
    resource.group = group
    if len(_ids) >= IDS:
        _ids.clear()
    _ids[key] = (resource.pk, resource.version_counter)
    if guessed is not None and guess is not None and guess[0] == resource.pk:
        return guessed.answers(resource)
    if guessed is not None:
        guessed.close()  # the reads of another row (the first write here, a resource deleted and made again)
    with sent_together():  # the same reads, by the values the lock's answer gave
        latest = (
            select(Version, f"SELECT * FROM {connection.ops.quote_name(Version._meta.db_table)} WHERE id = %s", [lid])
            if (lid := resource.latest_id) is not None
            else None
        )
        next_id = next_version_id_sent(resource) if new_id else None
        earlier = earlier_documents_sent(resource.pk)
    _set_latest(resource, latest)
    return LockedReads(resource, next_id, earlier)


def _set_latest(resource: Resource, latest: Selected | None) -> None:
    found = latest.instances() if latest is not None else []
    if found and found[0].pk == resource.latest_id:
        resource.latest = found[0]


class _ReadsByRow:
    """The reads of the resource with a given row id, sent (`_reads_by_row`); `answers(resource)` once the lock's
    answer is in, for that resource; `close()` when the lock named another row."""

    def __init__(self, latest: Selected, asked: list[str], taken, earlier: EarlierSent | None):
        self.latest, self.asked, self.taken, self.earlier = latest, asked, taken, earlier

    def answers(self, resource: Resource) -> LockedReads:
        _set_latest(resource, self.latest)
        next_id = None
        if self.taken is not None:
            ids = {vid for (vid,) in self.taken.fetchall()}
            self.taken.close()
            next_id = _next_id(resource, set(self.asked), ids)
        return LockedReads(resource, next_id, self.earlier)

    def close(self) -> None:
        self.latest.close()
        if self.taken is not None:
            self.taken.close()
        if self.earlier is not None:
            self.earlier.close()


def _reads_by_row(resource_id: int, counter: int, new_id: bool) -> _ReadsByRow:
    """The reads of the resource with this row id (PostgreSQL), sent. The version it inherits from is read through
    the locked row; the ids asked about are the GUESSED_IDS numbers after `counter`, the counter this process last
    saw there (the locked row's counter is only known from the lock's answer; asking about numbers given as values
    keeps the query on the (resource, vid) index whatever the planner knows of the table)."""
    qn = connection.ops.quote_name
    resources, versions = qn(Resource._meta.db_table), qn(Version._meta.db_table)
    latest = select(
        Version, f"SELECT * FROM {versions} WHERE id = (SELECT latest_id FROM {resources} WHERE id = %s)", [resource_id]
    )
    asked = [str(n) for n in range(counter + 1, counter + 1 + GUESSED_IDS)] if new_id else []
    taken = send_taken_ids(resource_id, asked) if new_id else None
    return _ReadsByRow(latest, asked, taken, earlier_documents_sent(resource_id))


def _next_id(resource: Resource, asked: set[str], taken: set[str]) -> Callable[[], str]:
    """`next_version_id` from the answer of `_reads_by_row`'s query, when it asked about every number it needs (the
    others wrote fewer than GUESSED_IDS - NEXT_ID_CANDIDATES versions here since this process last did)."""

    def answer() -> str:
        counter = resource.version_counter
        candidates = [str(n) for n in range(counter + 1, counter + 1 + NEXT_ID_CANDIDATES)]
        if all(candidate in asked for candidate in candidates):
            for candidate in candidates:
                if candidate not in taken:
                    resource.version_counter = int(candidate)
                    return candidate
        return next_version_id(resource)  # numbers it did not ask about, or all taken (ids given by writers)

    return answer
