"""xrcg (PyPI `xrcg`, the xRegistry code generator and catalog client) in a virtualenv of its own,
`.venv-xrcg` at the repository root: xrcg pulls in pandas, boto3, Azure clients and its own pins, which must
not meet the project's `.venv`. Created once (pinned version, `pip install xrcg==XRCG_VERSION`) and reused
while its marker file names the same version; a file lock keeps parallel test processes from building it
twice. :func:`ensure_xrcg` raises :class:`ServiceUnavailable` when it cannot be created (no network to the
package index, no `venv` module): tests skip then, or fail under REQUIRE_SERVICES=1."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.harness.services import ServiceUnavailable

ROOT = Path(__file__).resolve().parents[2]
XRCG_VERSION = "0.11.0"  # `pip index versions xrcg`: the newest release when this was written
VENV = ROOT / ".venv-xrcg"
MARKER = VENV / "xrcg-version"


def xrcg_binary() -> Path:
    return VENV / "bin" / "xrcg"


def ensure_xrcg(timeout: float = 900) -> Path:
    """The path of a working `xrcg` executable of version XRCG_VERSION, creating `.venv-xrcg` if needed."""
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(ROOT / ".venv-xrcg.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if MARKER.exists() and MARKER.read_text().strip() == XRCG_VERSION and xrcg_binary().exists():
            return xrcg_binary()
        shutil.rmtree(VENV, ignore_errors=True)
        try:
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True, timeout=120)
            pip = [str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            subprocess.run(
                pip + [f"xrcg=={XRCG_VERSION}"],
                check=True,
                capture_output=True,
                text=True,
                timeout=timeout,
                env={**os.environ, "PIP_NO_INPUT": "1"},
            )
            version = subprocess.run([str(xrcg_binary()), "--version"], capture_output=True, text=True, timeout=120)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            shutil.rmtree(VENV, ignore_errors=True)
            detail = getattr(exc, "stderr", "") or ""
            raise ServiceUnavailable(f"cannot create {VENV.name} with xrcg=={XRCG_VERSION}: {exc} {detail[-2000:]}")
        if version.returncode != 0:
            shutil.rmtree(VENV, ignore_errors=True)
            raise ServiceUnavailable(f"xrcg {XRCG_VERSION} installed but does not run: {version.stderr[-2000:]}")
        MARKER.write_text(XRCG_VERSION + "\n")
        return xrcg_binary()


def run_xrcg(
    *args: str, timeout: float = 300, env: dict | None = None, cwd: str | None = None
) -> subprocess.CompletedProcess:
    """Run `xrcg ARGS` (no shell), capturing its output as text."""
    return subprocess.run(
        [str(ensure_xrcg()), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
