"""Secure settings from the environment: the README's production environment passes `manage.py check --deploy`
without a warning, and each variable turns on what it says (read by a fresh process, as in production)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def documented_production_environment() -> dict[str, str]:
    """The `dotenv` block of the README's "Production" section, with its placeholders filled."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n### Production\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```dotenv\n(.*?)```", section, re.S).group(1)
    env = dict(line.split("=", 1) for line in block.strip().splitlines())
    env["DJANGO_SECRET_KEY"] = "k" * 10 + "-production-secret-0123456789abcdefghijklmnopqrstuvwxyz"
    env["REGISTRY_METRICS_TOKEN"] = "scrape-token"
    return env


def manage(*args: str, env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "REGISTRY_", "DATABASE_"))}
    # the check reads no database: the documented PostgreSQL is replaced by a file of this test's own
    full = {**base, **env, "REGISTRY_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "config.settings"}
    full.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=full, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_prints_no_warning_with_the_documented_production_environment(tmp_path):
    env = documented_production_environment()
    assert {"DJANGO_SECURE_COOKIES", "DJANGO_HSTS_SECONDS", "DJANGO_CSRF_TRUSTED_ORIGINS"} <= set(env)
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env, tmp_path=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced).", result.stdout
    assert "WARNING" not in result.stderr


def test_check_deploy_names_what_the_development_defaults_leave_open(tmp_path):
    # the same check without the secure settings: proof that the one above checks something
    result = manage("check", "--deploy", env={}, tmp_path=tmp_path)
    for warning in ("security.W004", "security.W008", "security.W009", "security.W012", "security.W016"):
        assert warning in result.stdout + result.stderr, warning


def test_each_variable_turns_on_its_setting(tmp_path):
    probe = (
        "import json; from django.conf import settings as s; print(json.dumps({n: getattr(s, n, None) for n in ["
        "'CSRF_TRUSTED_ORIGINS', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SECURE_SSL_REDIRECT', "
        "'SECURE_HSTS_SECONDS', 'SECURE_HSTS_INCLUDE_SUBDOMAINS', 'SECURE_HSTS_PRELOAD', 'SECURE_PROXY_SSL_HEADER', "
        "'USE_X_FORWARDED_HOST']}))"
    )
    on = documented_production_environment()
    on["DJANGO_CSRF_TRUSTED_ORIGINS"] = "https://registry.example.com, https://admin.example.com"
    result = manage("shell", "-c", probe, env=on, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "CSRF_TRUSTED_ORIGINS": ["https://registry.example.com", "https://admin.example.com"],
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_HSTS_PRELOAD": True,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "USE_X_FORWARDED_HOST": True,
    }
    off = manage("shell", "-c", probe, env={}, tmp_path=tmp_path)
    assert json.loads(off.stdout.strip().splitlines()[-1]) == {
        "CSRF_TRUSTED_ORIGINS": [],
        "SESSION_COOKIE_SECURE": False,
        "CSRF_COOKIE_SECURE": False,
        "SECURE_SSL_REDIRECT": False,
        "SECURE_HSTS_SECONDS": 0,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": False,
        "SECURE_HSTS_PRELOAD": False,
        "SECURE_PROXY_SSL_HEADER": None,
        "USE_X_FORWARDED_HOST": False,
    }


def test_behind_the_proxy_https_is_recognised_and_answers_carry_hsts(client, db, settings):
    # what the production settings do to an answer (the values test_each_variable_turns_on_its_setting read)
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = settings.SECURE_HSTS_PRELOAD = True
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    assert client.get("/schemaGroups").status_code == 301  # plain HTTP
    response = client.get("/schemaGroups", HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code == 200
    assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    login = client.get("/admin/login/", HTTP_X_FORWARDED_PROTO="https")
    assert login.status_code == 200
    assert login.cookies["csrftoken"]["secure"] is True
