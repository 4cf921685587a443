"""`manage.py import_registry [--owners=keep|drop] [--user USER] [--force] PATH...`: import registry documents (JSON or
YAML), each all or nothing. The system imports (`--user USER`: that user, with their rights: a document touching an
entity they may not write is rejected, naming it); a registry admin's or the system's import makes the teams the
groups' owners name when missing (and prints them); `--owners=drop` leaves the owners out (a copy into another
organisation: docs/deploy.md). A reference that names nothing refuses the document, naming it; `--force` imports it as
written and prints a warning (a backup holding references left dangling by a forced delete)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from registry.documents.formats import is_yaml, parse_document
from registry.documents.imports import OWNERS_MODES, ImportReport, import_document
from registry.domain.errors import Problem
from registry.management.acting import acting_user, add_acting_user
from registry.management.progress import progress
from registry.services import WriteContext


def summarize(report: ImportReport) -> dict[str, dict[str, int]]:
    """Counts per entity kind (last path segment type: group, resource, version)."""
    summary: dict[str, dict[str, int]] = {}
    for outcome in ("created", "updated", "unchanged"):
        for path in getattr(report, outcome):
            parts = path.strip("/").split("/")
            kind = parts[0] if len(parts) == 2 else parts[2] if len(parts) == 4 else "versions"
            summary.setdefault(kind, {"created": 0, "updated": 0, "unchanged": 0})[outcome] += 1
    return summary


class Command(BaseCommand):
    help = "Import CloudEvents Registry documents (.cereg JSON, .cereg.yaml YAML); prints a summary per type."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="document files")
        add_acting_user(parser)
        parser.add_argument("--base-url", default=None, help="the registry's public URL (event source)")
        parser.add_argument(
            "--owners",
            choices=OWNERS_MODES,
            default="keep",
            help="the groups' owners: keep them (making the teams they name that do not exist, empty) or drop them "
            "(a copy into another organisation: new groups get none, groups already here keep theirs)",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="import references that name nothing as written, with a warning each (a backup that holds references "
            "left dangling by a forced delete); without it they refuse the document",
        )

    def handle(self, *args, paths=(), user=None, base_url=None, owners="keep", force=False, **options):
        actor = acting_user(user)
        total = ImportReport()
        failed = 0
        files = [Path(p) for p in paths]
        for path in progress(files, desc="importing", unit="file", disable=len(files) < 2 or options["verbosity"] < 1):
            if not path.is_file():
                raise CommandError(f"{path}: no such file")
            try:
                doc = parse_document(path.read_bytes(), yaml_format=is_yaml(filename=path.name))
                ctx = WriteContext(user=user, actor=actor, base_url=base_url or "", door="import")
                report = import_document(ctx, doc, owners=owners, force=force)
                for warning in report.warnings:
                    self.stderr.write(f"{path}: warning: {warning['path']}: {warning['reason']}")
                total.merge(report)
            except Problem as problem:
                failed += 1
                self.stderr.write(f"{path}: {problem.detail}")
                for error in problem.errors:
                    self.stderr.write(
                        f"  {error['path']}: {error['reason']}" if isinstance(error, dict) else f"  {error}"
                    )
        for kind, counts in summarize(total).items():
            self.stdout.write(
                f"{kind}: created {counts['created']}, updated {counts['updated']}, unchanged {counts['unchanged']}"
            )
        self.stdout.write(
            f"total: created {len(total.created)}, updated {len(total.updated)}, unchanged {len(total.unchanged)}"
        )
        if total.teams_created:
            self.stdout.write(f"teams created: {', '.join(total.teams_created)} (empty: add their members)")
        if failed:
            raise CommandError(f"{failed} of {len(files)} document(s) were rejected")
