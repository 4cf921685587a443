"""The round trips of one new version and the time its schema's row lock is held (issue 29), in process, one
client, on a throwaway PostgreSQL: a schema of each count of `--existing` versions (filled as
version_writes_one_schema.py does), then `--writes` POSTs of new versions through Django's test client. Each
statement the connection sends is timed through `connection.execute_wrapper`, the commit too; the lock is the
resource's `FOR UPDATE`. Prints, per count, the medians per write: statements sent; of those after the lock, the
round trips (statements sent together in a pipeline count as one, marked `|` in `--show`); the time from the lock
to the commit's end, which a queue of writers of one schema waits for (from the lock's answer, or from its sending
when it is sent in a pipeline with what follows: then its own round trip counts too), the part of it spent in
`execute` and the commit, and this thread's CPU time in it; the whole request's time (and this thread's CPU in it). `--cprofile`: where the
Python time goes (`--cpu-clock`: its CPU time). Asserts nothing; profiles the checkout it is in.

    .venv/bin/python bench/write_lock_profile.py [--existing 10,100,1000] [--writes 200] [--broker redis] [--show]
"""

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BODY = (
    '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": '
    '{"a": {"type": "string"}, "n": {"type": "integer", "description": "v%d"}}}'
)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--existing", default="10,100,1000")
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--show", action="store_true", help="print the statements of the last write")
    parser.add_argument("--broker", choices=["redis"], help="a throwaway Redis as the broker (the relay is queued)")
    parser.add_argument(
        "--cprofile",
        choices=["request", "lock"],
        help="print where the Python time goes (cProfile) in the whole request, or from the lock to the commit",
    )
    parser.add_argument(
        "--cpu-clock", action="store_true", help="cProfile counts this thread's CPU time (not the time waited)"
    )
    args = parser.parse_args()
    from tests.harness import services

    postgres = services.start_postgres()
    os.environ.update(
        DATABASE_URL=postgres.url,
        REGISTRY_VAR_DIR=tempfile.mkdtemp(prefix="bench-lock-"),
        DJANGO_DEBUG="0",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    os.environ.pop("CELERY_BROKER_URL", None)
    redis = services.start_redis() if args.broker else None
    if redis is not None:
        os.environ["CELERY_BROKER_URL"] = redis.url
    os.chdir(ROOT)
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from bench.version_writes_one_schema import FILL, cpu_seconds, cpu_since, postgres_pids

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_superuser("bench", "b@example.com", "pw")
    client = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    client.put("/schemaGroups/bench", "{}", content_type="application/json")
    events: list[tuple[str, float, float, object]] = []  # (sql, start, end, the pipeline it was queued in or None)
    profile = (cProfile.Profile(time.thread_time) if args.cpu_clock else cProfile.Profile()) if args.cprofile else None

    def timed(execute, sql, params, many, context):
        began = time.perf_counter()
        pipeline = getattr(connection.connection, "_pipeline", None)  # psycopg's (private): a bench's look
        try:
            return execute(sql, params, many, context)
        finally:
            events.append((sql, began, time.perf_counter(), pipeline, time.thread_time()))
            if args.cprofile == "lock" and "FOR UPDATE" in sql and "resource" in sql:
                profile.enable()

    from psycopg import _pipeline
    from psycopg.pq import TransactionStatus

    pipeline_exit = _pipeline.Pipeline.__exit__

    def timed_pipeline_exit(self, *exc):
        """A COMMIT sent with a pipeline's statements (`sent_together(then_commit=True)`) ends when the pipeline does."""
        result = pipeline_exit(self, *exc)
        if self._conn.info.transaction_status == TransactionStatus.IDLE and any(e[3] is self for e in events):
            now = time.perf_counter()
            events.append(("COMMIT", now, now, self, time.thread_time()))  # (in the pipeline's round trip)
        return result

    _pipeline.Pipeline.__exit__ = timed_pipeline_exit

    def round_trips(sent: list) -> int:
        """Statements sent alone, and each pipeline's statements as one."""
        return sum(1 for i, e in enumerate(sent) if e[3] is None or i == 0 or sent[i - 1][3] is not e[3])

    try:
        for count in [int(n) for n in args.existing.split(",")]:
            schema = f"s{count}"
            answer = client.post(
                "/schemaGroups/bench/schemas",
                BODY % 0,
                content_type="application/json",
                HTTP_REGISTRY_ID=schema,
                HTTP_REGISTRY_FORMAT="JsonSchema/draft-07",
            )
            assert answer.status_code == 201, answer.content
            os.environ.update(FILL_SCHEMA=schema, FILL_COUNT=str(count))
            exec(FILL, {})
            rows = []
            pg_before = cpu_seconds(postgres_pids(postgres))
            for n in range(args.writes):
                events.clear()
                with connection.execute_wrapper(timed):
                    original = connection._commit

                    def commit(original=original):
                        began = time.perf_counter()
                        try:
                            return original()
                        finally:
                            events.append(("COMMIT", began, time.perf_counter(), None, time.thread_time()))
                            if args.cprofile == "lock":
                                profile.disable()

                    connection._commit = commit
                    began, began_cpu = time.perf_counter(), time.thread_time()
                    if args.cprofile == "request":
                        profile.enable()
                    answer = client.post(
                        f"/schemaGroups/bench/schemas/{schema}", BODY % (n + 1), content_type="application/json"
                    )
                    if args.cprofile == "request":
                        profile.disable()
                    ended, ended_cpu = time.perf_counter(), time.thread_time()
                    del connection._commit
                assert answer.status_code == 201, answer.content
                locks = [i for i, (sql, *_t) in enumerate(events) if "FOR UPDATE" in sql and "resource" in sql]
                lock = locks[0]
                commit_at = next(i for i, (sql, *_t) in enumerate(events) if sql == "COMMIT" and i > lock)
                after = events[lock + 1 : commit_at + 1]
                rows.append(
                    (
                        len(events),
                        len(after),
                        round_trips(events[lock : commit_at + 1]) - 1,  # (the lock's own is not after it)
                        (events[commit_at][2] - events[lock][2]) * 1000,
                        sum(e - b for _s, b, e, _p, _c in after) * 1000,
                        (events[commit_at][4] - events[lock][4]) * 1000,
                        (ended - began) * 1000,
                        (ended_cpu - began_cpu) * 1000,
                    )
                )
            pg_ms = cpu_since(pg_before, postgres_pids(postgres)) * 1000 / args.writes
            print(
                f"{count:>6} versions: {statistics.median(r[0] for r in rows):.0f} statements, "
                f"{statistics.median(r[1] for r in rows):.0f} after the lock in "
                f"{statistics.median(r[2] for r in rows):.0f} round trips; lock held "
                f"{statistics.median(r[3] for r in rows):.2f} ms (in execute and commit "
                f"{statistics.median(r[4] for r in rows):.2f}, this thread's CPU {statistics.median(r[5] for r in rows):.2f}); "
                f"request {statistics.median(r[6] for r in rows):.2f} ms (its CPU {statistics.median(r[7] for r in rows):.2f}); "
                f"PostgreSQL's CPU {pg_ms:.2f} ms a write"
            )
            if profile is not None:
                profile.create_stats()
                stats = pstats.Stats(profile).sort_stats(os.environ.get("SORT", "cumulative"))
                stats.print_stats(int(os.environ.get("TOP", "40")))
                if os.environ.get("CALLERS"):  # who calls the functions whose names match this
                    stats.print_callers(os.environ["CALLERS"])
            if args.show:
                t0 = events[0][1]
                c0 = events[0][4]
                for sql, b, e, p, c in events:
                    print(
                        f"   {(b - t0) * 1000:7.2f} +{(e - b) * 1000:5.2f} cpu {(c - c0) * 1000:6.2f} {'|' if p else ' '} {sql[:120]}"
                    )
    finally:
        connection.close()
        postgres.stop()
        if redis is not None:
            redis.stop()


if __name__ == "__main__":
    main()
