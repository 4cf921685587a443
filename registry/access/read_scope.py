"""What a caller may read when public reads are off (docs/teams.md, "Reads when public reads are off"): every group
without owners, and the groups with owners where one of the caller's teams holds a role (any: `reader`, `editor` or
`owner`); a registry admin reads everything, and so does everyone when public reads are on (REGISTRY_PUBLIC_READ).

The reads of many groups at once (the collections of groups, `GET /?inline`, the exports, search, the catalog map,
the Confluent API's lists, the admin's changelists) take the caller's `ReadScope` and keep to it: a group outside it
is left out with everything it holds, as if it were not there. A read of one group or of what it holds asks the
group's rule instead (registry/access/permissions.py `group.read`: 403 naming the group).

`ReadScope.key()` names what a scope shows, so that an answer rendered for one caller (registry/http/
rendered_answers.py) is served again only to callers who see the same: `"all"` for everyone who may read every group
(the answer every worker keeps once), else a digest of the ids of the groups hidden from the caller.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db.models import Q

from . import permissions

EVERYTHING_KEY = "all"


class ReadScope:
    """The groups a caller reads: every group (`teams` None), or those without owners and those whose owners name
    one of `teams`."""

    def __init__(self, teams: frozenset[str] | None = None):
        self.teams = teams
        self._hidden: dict[str, tuple[str, int]] | None = None

    @property
    def everything(self) -> bool:
        return self.teams is None

    def q(self, prefix: str = "") -> Q:
        """The rows this scope reads: groups (`prefix` ""), or what they hold through `prefix` ("group__" from a
        resource, "resource__group__" from a version)."""
        if self.everything:
            return Q()
        owners = f"{prefix}extensions__owners"
        readable = ~Q(**{f"{prefix}extensions__has_key": "owners"}) | Q(**{owners: {}}) | Q(**{owners: None})
        if self.teams:
            readable |= Q(**{f"{owners}__has_any_keys": sorted(self.teams)})
        return readable

    def q_of_events(self, field: str = "owners") -> Q:
        """The change events (`field`: the path to OutboxEvent.owners, the owners their group had) this scope
        reads."""
        if self.everything:
            return Q()
        readable = Q(**{f"{field}__isnull": True}) | Q(**{field: {}})
        if self.teams:
            readable |= Q(**{f"{field}__has_any_keys": sorted(self.teams)})
        return readable

    def filter(self, queryset, prefix: str = ""):
        return queryset if self.everything else queryset.filter(self.q(prefix))

    def may_read(self, owners: dict | None) -> bool:
        """Whether this scope reads a group whose owners are `owners`."""
        return self.everything or not owners or bool(self.teams and self.teams & set(owners))

    def hidden(self) -> dict[str, tuple[str, int]]:
        """The groups hidden from this scope: lower-cased store path -> (path, primary key); one query, once."""
        if self._hidden is None:
            # here: settings-free code imports this module, where importing the models fails
            from ..models import Group

            self._hidden = {}
            if not self.everything:
                rows = Group.objects.exclude(self.q()).order_by("pk").values_list("group_type", "gid", "pk")
                self._hidden = {f"/{t}/{g}".lower(): (f"/{t}/{g}", pk) for t, g, pk in rows}
        return self._hidden

    def hides(self, path: str) -> bool:
        """Whether the entity at store path `path` (a group or anything beneath it) is in a group hidden here."""
        return not self.everything and permissions.group_path_of(path).lower() in self.hidden()

    def hidden_ids(self, plural: str) -> set[str]:
        """The ids of the groups of type `plural` hidden here."""
        return {path.split("/")[2] for path, _pk in self.hidden().values() if path.split("/")[1] == plural}

    def key(self) -> str:
        """What this scope shows, for keeping rendered answers and tagging them: "all" when nothing is hidden."""
        if not self.hidden():
            return EVERYTHING_KEY
        digest = hashlib.blake2b(digest_size=16)
        for _path, pk in self.hidden().values():
            digest.update(b"%d," % pk)
        return "hidden:" + digest.hexdigest()


EVERYTHING = ReadScope()


def scope_for(user) -> ReadScope:
    """The read scope of `user` (None: the system, which reads everything)."""
    if settings.REGISTRY_PUBLIC_READ or user is None or permissions.is_registry_admin(user):
        return EVERYTHING
    return ReadScope(permissions.teams_of(user))
