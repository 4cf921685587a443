"""Benchmark of change-event delivery (issue 5): PostgreSQL, Redis, two Celery workers (thread pools) and
beat, one subscription with a local HTTP sink. Three loads, each printed as events delivered per second and
commit-to-delivered latency p50/p99: one writer changing the registry through the services; a steady
--rate of change events for --seconds; a burst of --changes changes in one transaction and how fast it
drains. Prints figures; asserts nothing (goals: >= 500 events/s, p99 <= 1 s under that load).

    .venv/bin/python bench/delivery_throughput.py [--changes 1000] [--rate 500] [--seconds 10] [--concurrency 8]
        [--kafka] [--amqp]  (a Kafka subscription on a Tansu broker, an AMQP one on a RabbitMQ node, beside the
        HTTP one: their figures are printed under the HTTP ones)
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

received: dict[str, float] = {}  # subject -> when the sink first received it
kafka_received: dict[str, float] = {}  # subject -> when the Kafka consumer first read it (--kafka)
amqp_received: dict[str, float] = {}  # subject -> when the AMQP receiver first read it (--amqp)


class SinkLog:
    """What the sink process (bench/http_sink.py) has written so far, read incrementally into `received`."""

    def __init__(self, path: Path):
        self.path, self.offset = path, 0

    def read(self) -> None:
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        complete = data[: data.rfind(b"\n") + 1]
        self.offset += len(complete)
        for line in complete.decode().splitlines():
            subject, at = line.split("\t")
            received.setdefault(subject, float(at))


def wait_for(sink_log: SinkLog, committed: dict, timeout: float) -> None:
    deadline = time.time() + timeout
    sink_log.read()
    while any(path not in received for path in committed) and time.time() < deadline:
        time.sleep(0.05)
        sink_log.read()


def cpu_seconds(pids) -> float:
    """User + system CPU time of these processes (all their threads), from /proc."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


def kafka_consumer(bootstrap: str, topic: str, stop) -> None:
    """Read the topic from its start (assign(), no consumer group to join) into `kafka_received` until `stop`."""
    import json

    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "bench", "enable.auto.commit": False, "fetch.wait.max.ms": 10}
    )
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    while not stop.is_set():
        message = consumer.poll(0.1)
        if message is not None and message.error() is None:
            kafka_received.setdefault(json.loads(message.value())["subject"], time.time())
    consumer.close()


KAFKA_BOOTSTRAP: list[str] = []


def amqp_consumer(url: str, address: str, stop, ready) -> None:
    """Receive from the queue (declared by this receiver's attach) into `amqp_received` until `stop`."""
    import json

    from proton import Timeout
    from proton.utils import BlockingConnection

    connection = BlockingConnection(url, timeout=15)
    receiver = connection.create_receiver(address, credit=10_000)
    ready.set()
    while not stop.is_set():
        try:
            message = receiver.receive(timeout=0.2)
        except Timeout:
            continue
        body = bytes(message.body) if isinstance(message.body, memoryview) else message.body
        amqp_received.setdefault(json.loads(body)["subject"], time.time())
        receiver.accept()
    connection.close()


def kafka_subjects(bootstrap: str, topic: str) -> set[str]:
    """The subjects of every event in the topic, read from its start."""
    import json

    from tests.subscriptions.test_delivery_kafka import read_back

    return {json.loads(m.value())["subject"] for m in read_back(bootstrap, topic, count=10**9, timeout=5)}


def report_broker(name: str, received_at: dict, what: str, committed: dict) -> None:
    """The same figures for a broker's subscription (--kafka, --amqp), once its events arrived (or 120 s)."""
    deadline = time.time() + 120
    while any(p not in received_at for p in committed) and time.time() < deadline:
        time.sleep(0.05)
    latencies = sorted(received_at[p] - committed[p] for p in committed if p in received_at)
    missing = [p for p in committed if p not in received_at]
    if missing and name == "Kafka":  # Tansu can let a live consumer skip a record: read the log again
        print(
            f"  Kafka, {what}: {len(missing)} not seen by the live consumer; in the topic on a fresh read: "
            f"{len(set(missing) & kafka_subjects(KAFKA_BOOTSTRAP[0], 'bench'))}"
        )
    elif missing:
        print(f"  {name}, {what}: {len(missing)} not received")
    if not latencies:
        print(f"  {name}, {what}: nothing delivered")
        return
    span = max(received_at[p] for p in committed if p in received_at) - min(committed.values())
    print(
        f"  {name}, {what}: {len(latencies)} of {len(committed)} delivered, {len(latencies) / span:.0f} events/s; "
        f"commit-to-delivered p50 {statistics.median(latencies) * 1000:.0f} ms, "
        f"p99 {latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000:.0f} ms"
    )


def report_brokers(what: str, committed: dict, args) -> None:
    if args.kafka:
        report_broker("Kafka", kafka_received, what, committed)
    if args.amqp:
        report_broker("AMQP", amqp_received, what, committed)


def report(what: str, committed: dict, worker_cpu: float) -> None:
    """Delivered rate from the first commit to the last delivery, commit-to-delivered latency, and the
    workers' CPU time per event (the figure that other load on the machine does not change much)."""
    latencies = sorted(received[p] - committed[p] for p in committed if p in received)
    if not latencies:
        print(f"{what}: nothing delivered")
        return
    span = max(received[p] for p in committed if p in received) - min(committed.values())
    print(
        f"{what}: {len(latencies)} of {len(committed)} delivered, {len(latencies) / span:.0f} events/s; "
        f"commit-to-delivered p50 {statistics.median(latencies) * 1000:.0f} ms, "
        f"p99 {latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000:.0f} ms (goals >= 500/s, p99 <= 1 s); "
        f"workers' CPU {worker_cpu / len(latencies) * 1000:.2f} ms per event"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--changes", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8, help="threads per worker")
    parser.add_argument("--rate", type=int, default=500, help="change events per second of the steady load")
    parser.add_argument("--seconds", type=float, default=10, help="how long the steady load lasts")
    parser.add_argument("--kafka", action="store_true", help="a Kafka subscription (Tansu broker) beside the HTTP one")
    parser.add_argument("--amqp", action="store_true", help="an AMQP subscription (RabbitMQ) beside the HTTP one")
    args = parser.parse_args()
    from tests.harness import services

    postgres, redis = services.start_postgres(), services.start_redis()
    tmp = Path(tempfile.mkdtemp(prefix="bench-delivery-"))
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url,
        "CELERY_BROKER_URL": redis.url,
        "REGISTRY_VAR_DIR": str(tmp),
        "REGISTRY_ALLOW_PRIVATE_SINKS": "1",
        "REGISTRY_WEBHOOK_HANDSHAKE": "0",
        "REGISTRY_SWEEP_SECONDS": "1",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    os.environ.update(env)
    sink_port, sink_log = services.free_port(), SinkLog(tmp / "received.tsv")
    sink_log.path.touch()
    processes = []
    try:
        processes.append(
            services.start_process(
                [sys.executable, str(ROOT / "bench" / "http_sink.py"), str(sink_port), str(sink_log.path)],
                env,
                ready=lambda: services.port_open(sink_port),
            )
        )
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        celery = [sys.executable, "-m", "celery", "-A", "registry"]
        for name in ("w1", "w2"):
            processes.append(
                services.start_process(
                    [
                        *celery,
                        "worker",
                        "-P",
                        "threads",
                        "-c",
                        str(args.concurrency),
                        "-n",
                        f"{name}@%h",
                        "--without-gossip",
                        "--without-mingle",
                        "-l",
                        "error",
                    ],
                    env,
                    cwd=str(ROOT),
                )
            )
        processes.append(
            services.start_process([*celery, "beat", "-s", str(tmp / "beat"), "-l", "error"], env, cwd=str(ROOT))
        )
        import django

        django.setup()
        from django.utils import timezone

        from registry.services import EntityAddress, WriteContext, create_group
        from subscriptions.services import create_subscription

        create_subscription(data={"protocol": "HTTP", "sink": f"http://127.0.0.1:{sink_port}/hook"})
        if args.kafka:
            import threading

            kafka = services.start_kafka(topics=("bench",))
            KAFKA_BOOTSTRAP.append(kafka.extra["bootstrap"])
            stop_consumer = threading.Event()
            threading.Thread(
                target=kafka_consumer, args=(kafka.extra["bootstrap"], "bench", stop_consumer), daemon=True
            ).start()
            create_subscription(
                data={"protocol": "KAFKA", "sink": kafka.url, "protocolsettings": {"topicname": "bench"}}
            )
        if args.amqp:
            import threading

            rabbitmq = services.start_rabbitmq()
            stop_receiver, receiver_ready = threading.Event(), threading.Event()
            threading.Thread(
                target=amqp_consumer, args=(rabbitmq.url, "/queue/bench", stop_receiver, receiver_ready), daemon=True
            ).start()
            receiver_ready.wait(30)
            create_subscription(
                data={"protocol": "AMQP", "sink": rabbitmq.url, "protocolsettings": {"address": "/queue/bench"}}
            )
        time.sleep(3)  # workers up
        from django.db import transaction

        from registry.services.events import emit_updated

        # 1. through the services, one writer: what one API client's changes see
        workers = [process.pid for process in processes[1:3]]
        committed, cpu = {}, cpu_seconds(workers)
        started = time.time()
        for n in range(args.changes):
            create_group(
                ctx=WriteContext(user="bench"), address=EntityAddress("schemaGroups"), data={"id": f"bench{n}"}
            )
            committed[f"/schemaGroups/bench{n}"] = time.time()
        rate = args.changes / (time.time() - started)
        wait_for(sink_log, committed, 120)
        report(f"one writer through the services ({rate:.0f} changes/s)", committed, cpu_seconds(workers) - cpu)
        report_brokers("one writer", committed, args)

        # 2. a steady load at --rate: every 50 ms one transaction writes the change events due by then (the
        # engine's emit_updated, which every service calls after its write: 500 full registry writes a second
        # would need more cores than the workers have here)
        committed, emitted, tick = {}, 0, 0.05
        cpu, started = cpu_seconds(workers), time.time()
        while time.time() - started < args.seconds:
            due = int((time.time() - started + tick) * args.rate) - emitted
            paths = [f"/schemaGroups/load{emitted + k}" for k in range(due)]
            emitted += due
            with transaction.atomic():
                transaction.on_commit(lambda paths=paths: committed.update(dict.fromkeys(paths, time.time())))
                for path in paths:
                    emit_updated(WriteContext(user="bench"), path, timezone.now())
            time.sleep(max(0.0, tick - (time.time() - started) % tick))
        offered = len(committed) / (time.time() - started)
        wait_for(sink_log, committed, 120)
        report(
            f"steady load of {offered:.0f} offered events/s for {args.seconds:.0f} s",
            committed,
            cpu_seconds(workers) - cpu,
        )
        report_brokers(f"steady load of {offered:.0f} offered events/s", committed, args)

        # 3. a burst: many changes in one transaction, then how fast the workers drain them
        committed, cpu = {}, cpu_seconds(workers)
        paths = [f"/schemaGroups/burst{n}" for n in range(args.changes)]
        with transaction.atomic():
            transaction.on_commit(lambda: committed.update(dict.fromkeys(paths, time.time())))  # at commit
            for path in paths:
                create_group(
                    ctx=WriteContext(user="bench"),
                    address=EntityAddress("schemaGroups"),
                    data={"id": path.rsplit("/", 1)[1]},
                )
        wait_for(sink_log, committed, 120)
        report(f"burst of {args.changes} changes in one transaction", committed, cpu_seconds(workers) - cpu)
        report_brokers("burst", committed, args)
        if args.kafka:
            stop_consumer.set()
            kafka.stop()
        if args.amqp:
            stop_receiver.set()
            rabbitmq.stop()
    finally:
        for process in processes:
            process.kill()
        redis.stop()
        postgres.stop()


if __name__ == "__main__":
    main()
