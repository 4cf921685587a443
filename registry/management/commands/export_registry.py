"""`manage.py export_registry [-o FILE] [--yaml]`: the whole registry as one registry document."""

from django.core.management.base import BaseCommand

from registry.documents.exports import export_document
from registry.documents.formats import dump_document


class Command(BaseCommand):
    help = "Export the registry as a CloudEvents Registry document (JSON by default, YAML with --yaml)."

    def add_arguments(self, parser):
        parser.add_argument("-o", "--output", default=None, help="file to write (default: standard output)")
        parser.add_argument("--yaml", action="store_true", help="write YAML instead of JSON")
        parser.add_argument("--group", default=None, help="only this group, as GROUPS/ID (schemaGroups/g)")

    def handle(self, *args, output=None, yaml=False, group=None, **options):
        plural, gid = (group.split("/", 1) + [None])[:2] if group else (None, None)
        text = dump_document(export_document(plural, gid), yaml_format=yaml)
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
            self.stderr.write(f"wrote {output}")
        else:
            self.stdout.write(text, ending="")
