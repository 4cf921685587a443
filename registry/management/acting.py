"""Whose rights a management command writes with (docs/teams.md, "Doors"): the system (trusted) unless the operator
names a user (`--user USER`, `--as USER`), whose rights then decide each entity as they would over HTTP, and whom the
audit trail names as a user. A name no active user has is refused before anything is read."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

HELP = (
    "write as this user: each entity needs that user's rights, as over HTTP, and the audit trail names them "
    "(docs/teams.md); default: the system"
)


def add_acting_user(parser) -> None:
    """The `--user USER` option (and its other name `--as USER`) of a command that writes."""
    parser.add_argument("--user", "--as", dest="user", default=None, metavar="USER", help=HELP)


def acting_user(name: str | None, option: str = "--user"):
    """The active user called `name` (None: no name, the system); a CommandError naming it when there is none."""
    if name is None:
        return None
    user = get_user_model().objects.filter(username=name, is_active=True).first()
    if user is None:
        raise CommandError(f"{option} {name}: no active user is called {name!r}")
    return user
