"""`manage.py import_asyncapi FILE... [--group-prefix P] [--dry-run] [--user USER]`: import AsyncAPI 2.6 / 3.x
documents (JSON or YAML), all in one transaction, all or nothing. `$ref`s to files are read next to the document that
holds them. The system imports; `--user USER`: that user, with their rights (an entity they may not write refuses the
whole import, naming it)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from asyncapi.services import import_asyncapi
from asyncapi.sources import Source
from registry.domain.errors import Problem
from registry.management.acting import acting_user, add_acting_user
from registry.services import WriteContext


def beside(directory: Path):
    def read(name: str) -> bytes:
        return (directory / name).read_bytes()

    return read


def kind_of(path: str) -> str:
    parts = path.strip("/").split("/")
    return parts[0] if len(parts) == 2 else parts[2] if len(parts) == 4 else "versions"


class Command(BaseCommand):
    help = (
        "Import AsyncAPI 2.6, 3.0 and 3.1 documents into endpoints, message groups, messages and schemas "
        "(docs/asyncapi.md); prints what was created, updated and left unchanged."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", help="AsyncAPI documents (.json, .yaml, .yml)")
        parser.add_argument(
            "--group-prefix",
            default=None,
            help="prefix of the ids of the groups made (default: each document's title in PascalCase; '' for none)",
        )
        parser.add_argument("--dry-run", action="store_true", help="check and report; write nothing")
        add_acting_user(parser)
        parser.add_argument("--base-url", default=None, help="the registry's public URL (event source)")

    def handle(self, *args, files=(), group_prefix=None, dry_run=False, user=None, base_url=None, **options):
        actor = acting_user(user)
        sources = []
        for name in files:
            path = Path(name)
            if not path.is_file():
                raise CommandError(f"{path}: no such file")
            sources.append(Source(path.name, path.read_bytes(), read_beside=beside(path.resolve().parent)))
        try:
            report = import_asyncapi(
                ctx=WriteContext(user=user, actor=actor, base_url=base_url or "", door="import"),
                sources=sources,
                group_prefix=group_prefix,
                dry_run=dry_run,
            )
        except Problem as problem:
            if not problem.errors:
                self.stderr.write(problem.detail)
            for error in problem.errors:
                if isinstance(error, dict):
                    entity = f" ({error['entity']})" if error.get("entity") else ""
                    self.stderr.write(f"{error.get('path')}{entity}: {error.get('reason')}")
            raise CommandError(f"nothing was imported ({problem.status} {problem.title.lower()})")
        verb = "would " if dry_run else ""
        if dry_run or options["verbosity"] > 1:
            for outcome, word in (("created", "create"), ("updated", "update")):
                for path in getattr(report, outcome):
                    self.stdout.write(f"{verb}{word if dry_run else outcome} {path}")
        counts: dict[str, dict[str, int]] = {}
        for outcome in ("created", "updated", "unchanged"):
            for path in getattr(report, outcome):
                counts.setdefault(kind_of(path), {"created": 0, "updated": 0, "unchanged": 0})[outcome] += 1
        for kind, numbers in counts.items():
            self.stdout.write(
                f"{kind}: created {numbers['created']}, updated {numbers['updated']}, unchanged {numbers['unchanged']}"
            )
        total = (
            f"total: created {len(report.created)}, updated {len(report.updated)}, unchanged {len(report.unchanged)}"
        )
        self.stdout.write(total + (" (dry run: nothing was written)" if dry_run else ""))
