"""`manage.py spark_import PATH... [--master URL] [--dry-run] [--report PATH] [--as USER] [--force]`
(docs/api-contract.md section 9). `--as USER` (or `--user USER`, as the other commands that write name it): each entity
is written only if that user may write it (docs/teams.md); one it may not is rejected into the report. An entity whose
reference names nothing is rejected naming it; `--force` writes it as it is and lists the reference in the report's
`warnings` (a backup holding references left dangling by a forced delete).

Prints progress (a bar on stderr, plain lines when it is not a terminal; with `-v 2` a line per step with the seconds since the start, to see where
the time goes), the report's path, and last `created N, updated N, unchanged N, rejected N`.
Exit status 0 when nothing was rejected, 3 when the run completed with rejected entities, 1 on failure.
"""

import sys
import time

from django.core.management.base import BaseCommand, CommandError

from pipeline.services import run_spark_import
from registry.management.acting import acting_user, add_acting_user
from registry.management.progress import progress as progress_bar


class Command(BaseCommand):
    help = "Bulk-import registry documents and JSON-lines entity files with Apache Spark."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="files, directories or globs")
        parser.add_argument("--master", default=None, help="Spark master URL (default: SPARK_MASTER or local[*])")
        parser.add_argument("--dry-run", action="store_true", help="validate and compare, write nothing")
        parser.add_argument("--report", default=None, help="where to write the JSON report")
        add_acting_user(parser)
        parser.add_argument(
            "--force",
            action="store_true",
            help="write entities whose references name nothing as they are, each reference a warning of the report "
            "(without it they are rejected)",
        )

    def handle(self, *args, paths=(), master=None, dry_run=False, report=None, user=None, force=False, **options):
        actor = acting_user(user, "--as")
        timed = options["verbosity"] >= 2
        bar = progress_bar(unit="step", desc="spark_import", disable=options["verbosity"] < 1 or timed)
        started = time.perf_counter()

        def progress(message):
            if timed:
                sys.stderr.write(f"{time.perf_counter() - started:7.1f} s  {message}\n")
            bar.set_postfix_str(message)
            bar.update(1)

        try:
            result = run_spark_import(
                list(paths),
                master=master,
                dry_run=dry_run,
                report_path=report,
                user=user,  # a name only with its user's rights: a name alone wrote as the system (issue 37)
                actor=actor,
                progress=progress,
                force=force,
            )
        except FileNotFoundError as exc:
            raise CommandError(f"no such input: {exc}")
        finally:
            bar.close()
        self.stdout.write(f"report: {result.report_path}")
        self.stdout.write(result.summary())
        if result.rejected:
            sys.exit(3)
