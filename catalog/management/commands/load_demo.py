"""`manage.py load_demo`: load the demo registry into an empty registry, and a local admin login if none exists."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from registry.documents.formats import parse_document
from registry.documents.imports import import_document
from registry.models import Group
from registry.services import WriteContext

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"


class Command(BaseCommand):
    help = "Import the demo documents (catalog/demo/*.cereg) when the registry is empty; create admin/admin if no superuser exists."

    def add_arguments(self, parser):
        parser.add_argument("--no-user", action="store_true", help="do not create the local admin user")

    def handle(self, *args, no_user=False, **options):
        if Group.objects.exists():
            self.stdout.write("registry not empty: demo data not loaded")
        else:
            created = 0
            for path in sorted(DEMO_DIR.glob("*.cereg")):
                report = import_document(
                    WriteContext(user="demo", door="import"), parse_document(path.read_bytes(), yaml_format=False)
                )
                created += len(report.created)
            self.stdout.write(f"demo registry loaded: {created} entities from {DEMO_DIR}")
        user_model = get_user_model()
        if not no_user and not user_model.objects.filter(is_superuser=True).exists():
            user_model.objects.create_superuser("admin", "admin@localhost", "admin")
            self.stdout.write("created superuser admin (password admin) for local use")
