"""An insert the database refused, told apart by the constraint it broke: the unique id of its kind (another
writer created the same id meanwhile: 409 "already exists"), or anything else (a foreign key whose parent was
deleted meanwhile, a value the column cannot hold: a 4xx naming the entity, never "already exists" for something
that does not exist, never a 500)."""

from __future__ import annotations

from django.db import IntegrityError

from ..domain.errors import Problem


def insert_refused(exc: IntegrityError, *, constraint: str, path: str) -> Problem:
    """The problem of an insert at `path` that the database refused with `exc`; `constraint` is the name of the
    unique constraint on the kind's id (PostgreSQL and SQLite both name a functional unique index in the error)."""
    text = str(exc)
    if constraint in text:
        return Problem("id-exists", "{subject} already exists", subject=path)
    if "FOREIGN KEY" in text or "foreign key" in text:
        return Problem("not-found", "{subject} could not be written: what holds it was deleted meanwhile", subject=path)
    return Problem("bad-request", f"{{subject}} could not be stored: {text.splitlines()[0][:200]}", subject=path)
