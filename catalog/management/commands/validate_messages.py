"""`manage.py validate_messages FILE...`: check concrete messages against their definitions (CI pipelines)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.ci_checks import (
    SYSTEM_CHECKS,
    LocalValidator,
    RemoteError,
    RemoteValidator,
    UsageError,
    read_messages,
    split_definition,
)


class Command(BaseCommand):
    requires_system_checks = SYSTEM_CHECKS
    help = (
        "Validate messages (JSON lines, or one JSON message per file) against their message definitions: "
        'named by a {"definition": "G/D", "message": ...} wrapper or --definition, else picked by the '
        "CloudEvents type within --group (or the first definition group declaring it). Prints "
        "FILE:LINE: PATH: REASON per problem and a summary; exit 0 when all pass, 1 otherwise, 2 on usage "
        "errors and when a check could not run (no verdict)."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE", help="JSON lines or JSON message files")
        parser.add_argument("--group", default=None, help="definition group to pick definitions in by type")
        parser.add_argument(
            "--definition", default=None, metavar="G/D", help="definition for messages that do not name one"
        )
        parser.add_argument(
            "--registry",
            default=None,
            metavar="URL",
            help="validate through this server's endpoints instead of the local store",
        )
        parser.add_argument("--token", default=None, help="API token for --registry (Authorization: Token ...)")

    def handle(self, *args, files=(), group=None, definition=None, registry=None, token=None, **options):
        paths = [Path(f) for f in files]
        for path in paths:
            if not path.is_file():
                raise CommandError(f"{path}: no such file", returncode=2)
        if definition:
            try:
                split_definition(definition)
            except UsageError as exc:
                raise CommandError(str(exc), returncode=2) from exc
        if token and not registry:
            raise CommandError("--token goes with --registry", returncode=2)
        validator = RemoteValidator(registry, token) if registry else LocalValidator()
        total = invalid = unchecked = 0
        try:
            if group is not None and not validator.has_group(group):  # one error, not every message invalid
                raise CommandError(f"--group {group}: no such definition group", returncode=2)
            for path in paths:
                try:
                    entries = list(read_messages(path))
                except (OSError, UnicodeDecodeError) as exc:
                    raise CommandError(f"{path}: {exc}", returncode=2) from exc
                for entry in entries:
                    total += 1
                    if entry.problem is not None:
                        invalid += 1
                        unchecked += entry.unchecked
                        self.stdout.write(f"{entry.file}:{entry.line}: message: {entry.problem}")
                        continue
                    outcome = validator.check(entry, group=group, definition=definition)
                    if outcome.problems:
                        invalid += 1
                    unchecked += outcome.unchecked
                    for where, reason in outcome.problems:
                        self.stdout.write(f"{entry.file}:{entry.line}: {where}: {reason}")
                    if options["verbosity"] >= 2:
                        for note in outcome.notes:
                            self.stdout.write(f"{entry.file}:{entry.line}: note: {note}")
        except RemoteError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        finally:
            if isinstance(validator, RemoteValidator):  # (a registry's: its HTTP client)
                validator.close()
        summary = f"{total} messages, {invalid} invalid"
        self.stdout.write(summary + (f", {unchecked} not fully checked" if unchecked else ""))
        if unchecked:
            raise SystemExit(2)
        if invalid:
            raise SystemExit(1)
