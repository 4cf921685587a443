"""`manage.py export_registry [-o FILE] [--yaml] [--group GROUPS[/ID]]`: the whole registry, one group type or
one group as one registry document. An unknown group type or group is a one-line error with exit status 2."""

from itertools import chain

from django.core.management.base import BaseCommand, CommandError

from registry.documents.exports import document_text
from registry.domain.errors import Problem
from registry.domain.model import registry_model


class Command(BaseCommand):
    help = "Export the registry as a CloudEvents Registry document (JSON by default, YAML with --yaml)."

    def add_arguments(self, parser):
        parser.add_argument("-o", "--output", default=None, help="file to write (default: standard output)")
        parser.add_argument("--yaml", action="store_true", help="write YAML instead of JSON")
        parser.add_argument(
            "--group", default=None, help="only this group, as GROUPS/ID (schemaGroups/g), or this group type (GROUPS)"
        )

    def handle(self, *args, output=None, yaml=False, group=None, **options):
        plural, gid = (group.split("/", 1) + [None])[:2] if group else (None, None)
        if plural is not None and registry_model.get(plural) is None:
            types = ", ".join(gt.plural for gt in registry_model.group_types)
            raise CommandError(
                f"--group {group}: {plural!r} is not a group type ({types}); give GROUPS/ID, e.g. schemaGroups/g",
                returncode=2,
            )
        # written a group at a time (a registry of any size: memory bounded by a chunk of groups); a group that is
        # not there is found before anything is written
        chunks = document_text(plural, gid or None, yaml_format=yaml)
        try:
            first = next(chunks) + next(chunks)
        except Problem as problem:
            raise CommandError(f"--group {group}: {problem.detail}", returncode=2) from None
        text = chain([first], chunks, [] if yaml else ["\n"])  # one chunk at a time, never all of them
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                handle.writelines(text)
            self.stderr.write(f"wrote {output}")
        else:
            for chunk in text:
                self.stdout.write(chunk, ending="")
