"""`manage.py check_schema GROUP/SCHEMA FILE`: the compatibility dry run of a candidate version (CI pipelines)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.ci_checks import (
    SYSTEM_CHECKS,
    RemoteError,
    UsageError,
    local_compatibility,
    media_type_for,
    remote_compatibility,
)
from registry.domain.errors import Problem


class Command(BaseCommand):
    requires_system_checks = SYSTEM_CHECKS
    help = (
        "Check FILE as a new version of schema GROUP/SCHEMA without writing it (the compatibility dry run). "
        "Prints VERSION: PATH: CHANGE: REASON per incompatibility, or 'compatible (level L, against "
        "versions ...)'; exit 0 when compatible, 1 otherwise, 2 on errors (unknown schema, invalid document)."
    )

    def add_arguments(self, parser):
        parser.add_argument("schema", metavar="GROUP/SCHEMA")
        parser.add_argument("file", metavar="FILE", help="the candidate document")
        parser.add_argument(
            "--format", default=None, help="the candidate's format (e.g. JsonSchema/draft-07); default: the schema's"
        )
        parser.add_argument(
            "--media-type", default=None, help="the document's media type (default: by the file's extension)"
        )
        parser.add_argument(
            "--registry",
            default=None,
            metavar="URL",
            help="check through this server's endpoint instead of the local store",
        )
        parser.add_argument("--token", default=None, help="API token for --registry (Authorization: Token ...)")

    def handle(self, *args, schema="", file="", format=None, media_type=None, registry=None, token=None, **options):
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"{path}: no such file", returncode=2)
        document = path.read_bytes()
        media_type = media_type or media_type_for(path)
        try:
            if registry:
                verdict = remote_compatibility(registry, token, schema, document, media_type, format)
            else:
                if token:
                    raise UsageError("--token goes with --registry")
                verdict = local_compatibility(schema, document, media_type, format)
        except Problem as problem:
            lines = [f"{schema}: {problem.detail}"] + [
                f"  {e['path']}: {e['reason']}" if isinstance(e, dict) and "path" in e else f"  {e}"
                for e in problem.errors
            ]
            raise CommandError("\n".join(lines), returncode=2) from problem
        except (RemoteError, UsageError) as exc:
            raise CommandError(f"{schema}: {exc}", returncode=2) from exc
        against = ", ".join(verdict.get("against") or []) or "none"
        summary = f"(level {verdict.get('level')}, against versions {against})"
        if verdict.get("compatible"):
            self.stdout.write(f"compatible {summary}")
            return
        for issue in verdict.get("incompatibilities") or []:
            self.stdout.write(
                f"{', '.join(issue.get('versions') or []) or '-'}: {issue.get('path')}: {issue.get('change')}: "
                f"{issue.get('reason')}"
            )
        self.stdout.write(f"incompatible {summary}")
        raise SystemExit(1)
