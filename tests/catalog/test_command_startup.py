"""Issue 29 (start-up): the CI commands (`validate_messages`, `check_schema`) start without loading what only the
server, the admin or the workers use: the views and the API schema generator, the admin's modules, Celery, Spark,
the brokers' clients, Graphviz. Each command runs in a fresh interpreter (this one has loaded everything), on a
database without tables: the run fails at its first query, after start-up, the system checks and the command's
own modules. And `manage.py check` still runs the admin's checks on every registered admin, though the admin's
modules are no longer loaded at start-up (registry/governance/discovery.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (module name prefix, what it is): none of these may be loaded by a CI command
SERVER_ONLY = {
    "celery": "Celery",
    "kombu": "Celery's messaging",
    "pyspark": "Spark",
    "paho": "the MQTT client",
    "nats": "the NATS client",
    "proton": "the AMQP client",
    "confluent_kafka": "the Kafka client",
    "graphviz": "Graphviz",
    "drf_spectacular.generators": "the OpenAPI generator",
    "config.urls": "the URL configuration (every view)",
}
PROJECT_APPS = ("registry", "catalog", "endpoints", "subscriptions", "pipeline", "sync", "confluent", "asyncapi")

RUN = """
import atexit, json, runpy, sys
atexit.register(lambda: open(sys.argv.pop(), "w").write(json.dumps(sorted(sys.modules))))
sys.argv = ["manage.py", *sys.argv[1:]]
runpy.run_path("manage.py", run_name="__main__")
"""


def loaded_modules(tmp_path: Path, *args: str) -> set[str]:
    out = tmp_path / "modules.json"
    env = {**os.environ, "SQLITE_PATH": str(tmp_path / "empty.sqlite3"), "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("DATABASE_URL", None)
    subprocess.run(
        [sys.executable, "-c", RUN, *args, str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    return set(json.loads(out.read_text()))


def server_only(modules: set[str]) -> list[str]:
    found = [f"{name} ({what})" for name, what in SERVER_ONLY.items() if name in modules]
    # the apps' admin modules, views (api/), tasks and the admin's helpers
    found += sorted(
        m
        for m in modules
        if m.split(".")[0] in PROJECT_APPS
        and (
            m.split(".")[-1] in ("admin", "tasks", "urls")
            or ".api." in f"{m}."
            or (
                m.startswith("registry.admin_")
                and m not in ("registry.governance.discovery", "registry.governance.actions")
            )
        )
    )
    return found


def test_ci_commands_load_no_server_module(tmp_path):
    message = tmp_path / "m.jsonl"
    message.write_text(json.dumps({"specversion": "1.0", "type": "t", "id": "1", "source": "/s"}) + "\n")
    schema = tmp_path / "s.json"
    schema.write_text('{"type": "object"}')
    runs = [
        ("validate_messages", str(message)),
        ("validate_messages", str(message), "--definition", "g/d"),
        ("check_schema", "g/s", str(schema)),
    ]
    for args in runs:
        modules = loaded_modules(tmp_path, *args)
        assert "catalog.management.commands." + args[0] in modules  # the command did start
        assert server_only(modules) == [], args


def test_admin_checks_run_on_the_discovered_admins(tmp_path):
    """In a fresh process, `manage.py check` finds an admin action that declares no permission (registry.E101)
    and checks the apps' admins, discovered for the check."""
    script = """
import django, json, sys
django.setup()
from django.contrib import admin
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.core.management.base import SystemCheckError

@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    actions = ["touch"]

    def touch(self, request, queryset):
        pass

try:
    call_command("check", tags=["admin"])
    errors = ""
except SystemCheckError as exc:
    errors = str(exc)
print(json.dumps({"errors": errors, "admins": sorted(m._meta.label for m in admin.site._registry)}))
"""
    env = {**os.environ, "SQLITE_PATH": str(tmp_path / "empty.sqlite3"), "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.splitlines()[-1])
    assert "registry.E101" in found["errors"] and "sessions.Session: touch" in found["errors"]
    assert {"catalog.Schema", "subscriptions.Subscription", "sync.SyncSource"} <= set(found["admins"])


def test_the_dashboard_panels_follow_the_apps_order(tmp_path):
    """The admin's modules are discovered when the URLs load, in INSTALLED_APPS order, whatever the views import."""
    script = """
import django, json
django.setup()
import config.urls
from registry.governance import dashboard
print(json.dumps([panel.template.split("/")[1] for panel in dashboard.panels]))
"""
    env = {**os.environ, "SQLITE_PATH": str(tmp_path / "empty.sqlite3"), "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[-1]) == [
        "registry",
        "registry",
        "subscriptions",
        "subscriptions",
        "asyncapi",
    ]
