"""Every shell block of the README, run against a live server from a fresh copy of the repository (issue 26).

A new user found README commands that failed from a fresh clone (inputs under `../shared/`, an `events.jsonl`
nobody gave, a diff of a version nobody created, brokers nobody said how to start, a cluster import without
SPARK_LOCAL_IP). This test copies the repository's files (what a clone holds: tracked and new files, nothing
ignored), starts `make run PORT=N` there (with REGISTRY_ALLOW_PRIVATE_SINKS=1, as the broker walkthroughs say),
and runs every ```sh block of README.md in order, in that directory, with the README's ports replaced
(tests/readme/blocks.py) and `TOKEN` set to the admin's token. A block passes when bash (`-e -o pipefail`) ends
with status 0, no curl answer is a 5xx, every 4xx it meets is one the block's text names (`refused (409)`), and
nothing prints a traceback. Blocks tagged in the README are skipped with their reason, or run once the
harness has what they need (RabbitMQ, xrcg, Java).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.harness.gunicorn import ROOT, answers
from tests.harness.services import ServiceUnavailable, free_port, require_services, start_process, start_rabbitmq
from tests.readme.blocks import readme_blocks

README = ROOT / "README.md"
CURL_WRAPPER = """#!/bin/sh
# curl, logging the status of every answer it received (tests/readme/test_readme_commands.py)
headers=$(mktemp)
"$REAL_CURL" -D "$headers" "$@"
status=$?
args=$(printf '%s ' "$@" | tr '\\n' ' ')
grep -a '^HTTP/' "$headers" | awk '{print $2}' | while read -r code; do printf '%s %s\\n' "$code" "$args" >> "$README_CURL_LOG"; done
rm -f "$headers"
exit $status
"""


def test_the_readme_blocks_are_tagged_well_and_need_nothing_outside_the_repository():
    """Fast: the tags parse, and no block that runs reads `../shared` (a fresh clone has no such directory)."""
    blocks = readme_blocks(README)
    assert len(blocks) >= 10
    for block in blocks:
        if block.skip is None:
            assert "../shared" not in block.text, f"README.md:{block.line} reads ../shared"


def fresh_copy(directory: Path) -> Path:
    """The repository's files as a clone has them (tracked and new, not ignored), and the shared .venv."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.split(b"\0")
    copy = directory / "clone"
    for name in filter(None, listed):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            target = copy / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    (copy / ".venv").symlink_to((ROOT / ".venv").resolve())
    return copy


def curl_bin(directory: Path) -> Path:
    bin_dir = directory / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "curl"
    wrapper.write_text(CURL_WRAPPER)
    wrapper.chmod(0o755)
    return bin_dir


def run_block(text: str, env: dict, cwd: Path, log: Path, timeout: float = 600) -> tuple[int, str, list[str]]:
    """(exit status, output, curl's `STATUS ARGS` lines) of one block; its background jobs are stopped after.
    The output goes to a file: a job the block leaves running (`broker &`) would hold a pipe open."""
    log.write_text("")
    script, output_file = cwd.parent / "block.sh", cwd.parent / "block.out"
    script.write_text(text)
    with open(output_file, "w") as output:
        process = subprocess.Popen(
            ["bash", "-e", "-o", "pipefail", str(script)],
            cwd=cwd,
            env={**env, "README_CURL_LOG": str(log)},
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            code = process.wait(timeout=timeout)
            note = ""
        except subprocess.TimeoutExpired:
            code, note = -9, f"\n(killed after {timeout:.0f} s)"
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # what the block started with `&` (a broker, a Spark master)
            except ProcessLookupError:
                pass
            process.wait()
    return code, output_file.read_text(errors="replace") + note, log.read_text().splitlines()


@pytest.mark.slow
@pytest.mark.own_sqlite_server
def test_every_readme_shell_block_runs_against_a_live_server(tmp_path):
    blocks = readme_blocks(README)
    clone = fresh_copy(tmp_path)
    port = free_port()
    env = {
        **os.environ,
        "SQLITE_PATH": str(tmp_path / "registry.sqlite3"),
        "REGISTRY_VAR_DIR": str(tmp_path / "var"),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "CELERY_BROKER_URL": "",
        "REGISTRY_ALLOW_PRIVATE_SINKS": "1",
    }
    for name in ("DATABASE_URL", "REGISTRY_TEST_DB", "REGISTRY_BASE_URL", "PYTHONPATH"):
        env.pop(name, None)
    server = start_process(
        ["make", "-o", ".venv/.installed", "run", f"PORT={port}"],
        env=env,
        cwd=str(clone),
        ready_check=lambda: answers(port),
        timeout=240,
    )
    services = []
    try:
        token = subprocess.run(
            [str(clone / ".venv/bin/python"), "manage.py", "drf_create_token", "admin"],
            cwd=clone,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[2]
        ports = {"8000": port, "9092": free_port(), "7077": free_port(), "9999": free_port()}
        available = {"java"} if shutil.which("java") else set()
        unavailable: dict[str, str] = {}
        needed = set().union(*(b.needs for b in blocks if b.skip is None))
        if "rabbitmq" in needed:
            try:
                rabbit = start_rabbitmq()
                services.append(rabbit)
                ports["5672"] = rabbit.port
                available.add("rabbitmq")
            except ServiceUnavailable as exc:
                unavailable["rabbitmq"] = str(exc)
        if "xrcg" in needed:
            from tests.harness.xrcg import VENV, ensure_xrcg

            try:
                ensure_xrcg()
                (clone / ".venv-xrcg").symlink_to(VENV)
                available.add("xrcg")
            except ServiceUnavailable as exc:
                unavailable["xrcg"] = str(exc)
        block_env = {
            **env,
            "TOKEN": token,
            "REAL_CURL": shutil.which("curl"),
            "PATH": f"{curl_bin(tmp_path)}{os.pathsep}{env['PATH']}",
        }
        failures, skipped, ran = [], [], 0
        for block in blocks:
            where = f"README.md:{block.line}"
            if block.skip is not None:
                skipped.append(f"{where}: {block.skip}")
                continue
            missing = block.needs - available
            if missing:
                reason = "; ".join(unavailable.get(n, f"{n} is not installed") for n in sorted(missing))
                if require_services():
                    failures.append(f"{where}: needs {sorted(missing)}: {reason}")
                else:
                    skipped.append(f"{where}: {reason}")
                continue
            ran += 1
            code, output, answers_seen = run_block(block.with_ports(ports), block_env, clone, tmp_path / "curl.log")
            (tmp_path / f"block-{block.line}.out").write_text(output)  # kept with the test's tmp_path for reading
            problems = []
            if code != 0:
                problems.append(f"exit status {code}")
            allowed = block.allowed_statuses()
            for line in answers_seen:
                status = int(line[:3]) if line[:3].isdigit() else 0
                if status >= 500 or (status >= 400 and status not in allowed) or not status:
                    problems.append(f"HTTP {line[:300]}")
            if "Traceback" in output:
                problems.append("a traceback")
            if problems:
                failures.append(f"{where}: {'; '.join(problems)}\n--- output:\n{output[-3000:]}")
        print(f"\nREADME blocks: {ran} run, {len(skipped)} skipped", *skipped, sep="\n  ")
        assert not failures, "\n\n".join(failures)
        assert "Traceback" not in server.output(), server.output()[-5000:]
    finally:
        server.stop()
        for service in services:
            service.stop()
