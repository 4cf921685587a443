"""Start and stop throwaway servers on free loopback ports: PostgreSQL (as the `postgres` user, since
initdb refuses root), Redis, and any process a test needs (Celery workers, servers).

Binaries: PostgreSQL from PG_BIN (default /usr/lib/postgresql/15/bin), redis-server from PATH.
"""
from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


class ServiceUnavailable(RuntimeError):
    """A binary the service needs is not installed."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not become ready within {timeout:.0f} s")
        time.sleep(0.1)


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class Service:
    name: str
    url: str
    port: int
    directory: str
    stopper: Callable[[], None]
    extra: dict = field(default_factory=dict)

    def stop(self) -> None:
        try:
            self.stopper()
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)


def pg_bin() -> Path:
    return Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))


def postgres_available() -> bool:
    return all((pg_bin() / tool).exists() for tool in ("initdb", "pg_ctl", "postgres"))


def start_postgres(timeout: float = 60) -> Service:
    """initdb + pg_ctl start in a fresh temp dir, trust auth, listening on 127.0.0.1 only."""
    if not postgres_available():
        raise ServiceUnavailable(f"PostgreSQL binaries not found in {pg_bin()} (set PG_BIN)")
    directory = tempfile.mkdtemp(prefix="registry-pg-")
    data = Path(directory) / "data"
    port = free_port()
    as_postgres: list[str] = []
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(directory, user.pw_uid, user.pw_gid)
        as_postgres = ["runuser", "-u", "postgres", "--"]
    run = dict(check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    subprocess.run([*as_postgres, str(pg_bin() / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                    "--locale=C", "-E", "UTF8"], **run)
    options = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={directory} " \
              "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    subprocess.run([*as_postgres, str(pg_bin() / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                    str(Path(directory) / "log"), "-w", "-t", str(int(timeout)), "start"], **run)

    def stop():
        subprocess.run([*as_postgres, str(pg_bin() / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    wait_for(lambda: port_open(port), timeout, "PostgreSQL")
    return Service("postgresql", f"postgres://postgres@127.0.0.1:{port}/postgres", port, directory, stop)


def redis_available() -> bool:
    return shutil.which("redis-server") is not None


def start_redis(timeout: float = 30, port: int | None = None) -> Service:
    """redis-server without persistence on 127.0.0.1 (a given port lets a test restart it in place)."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise ServiceUnavailable("redis-server not found (apt-get install redis-server)")
    directory = tempfile.mkdtemp(prefix="registry-redis-")
    port = port or free_port()
    process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                                "no", "--dir", directory], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def ping() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop():
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()

    wait_for(ping, timeout, "Redis")
    return Service("redis", f"redis://127.0.0.1:{port}/0", port, directory, stop, {"process": process})


@dataclass
class ManagedProcess:
    """A subprocess started for a test, in its own process group so that stopping it stops its children."""

    process: subprocess.Popen
    log: Path

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20) -> None:
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, sig)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=timeout)

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def start_process(argv: list[str], env: dict, ready: Callable[[], bool] | None = None, timeout: float = 60,
                  cwd: str | None = None) -> ManagedProcess:
    log = Path(tempfile.mkstemp(prefix="registry-proc-", suffix=".log")[1])
    handle = log.open("wb")
    process = subprocess.Popen(argv, env=env, cwd=cwd, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
    managed = ManagedProcess(process, log)
    if ready is not None:
        try:
            wait_for(lambda: process.poll() is None and ready(), timeout, " ".join(argv[:3]))
        except TimeoutError:
            managed.kill()
            raise TimeoutError(f"{argv[0]} did not become ready; its output:\n{managed.output()[-3000:]}")
    return managed
