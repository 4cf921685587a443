"""Benchmark of the bulk import (issue 6). Prints figures; asserts nothing.

Generates about 100,000 entities (schema groups x schemas x versions, plus definition groups with
definitions), imports them with `spark_import --master local[2]` into a throwaway PostgreSQL, and compares
the time per entity with importing a sample of the same input through the REST API (`POST /`).

    .venv/bin/python bench/spark_import.py [--groups 40 --schemas 250 --versions 8 --definitions 2000]
    .venv/bin/python bench/spark_import.py --cluster 2   # also on a standalone cluster of 2 one-core workers

The same input is imported again (unchanged: answered from its fingerprint, without Spark) and once more after
a change elsewhere in the registry (read again by Spark, every entity unchanged), each with where its time
goes. With `--cluster N` the same input is imported a second time, into a fresh database, through a throwaway
Spark standalone cluster (a master and N workers of one core, loopback only), and the two summary lines are
compared: the cluster must give the same result as local[2].
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def definitions_document(groups: int, per_group: int) -> dict:
    out = {"specversion": "0.5-wip", "definitionGroups": {}}
    for g in range(groups):
        gid = f"com.example.events{g}"
        out["definitionGroups"][gid] = {
            "format": "CloudEvents/1.0",
            "definitions": {
                f"Event{d}": {
                    "format": "CloudEvents/1.0",
                    "metadata": {
                        "attributes": {
                            "type": {"value": f"com.example.event{g}.{d}"},
                            "source": {"type": "uritemplate", "value": "/{tenant}/orders"},
                        }
                    },
                    "schemaformat": "JsonSchema/draft-07",
                    "schemaurl": f"https://schemas.example.com/{g}/{d}.json",
                }
                for d in range(per_group)
            },
        }
    return out


def print_steps(stderr: str) -> None:
    print("  where its time goes (seconds since the command started; Python and Django start before 0):")
    for line in stderr.splitlines():
        if line.strip().split(" ", 1)[0].replace(".", "", 1).isdigit():
            print("   ", line.strip())


def peak_rss_mib(pid_pattern: str) -> float:
    out = subprocess.run(["ps", "-eo", "rss,args"], capture_output=True, text=True).stdout
    return max([int(line.split()[0]) / 1024 for line in out.splitlines()[1:] if re.search(pid_pattern, line)] or [0])


def main():
    from bench.generate_registry import document

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--groups", type=int, default=40)
    parser.add_argument("--schemas", type=int, default=250)
    parser.add_argument("--versions", type=int, default=8)
    parser.add_argument("--definition-groups", type=int, default=5)
    parser.add_argument("--definitions", type=int, default=1000, help="per definition group")
    parser.add_argument("--rest-sample", type=int, default=2, help="schema groups imported through the REST API")
    parser.add_argument(
        "--cluster",
        type=int,
        default=0,
        metavar="N",
        help="also import on a standalone Spark cluster of N one-core workers",
    )
    args = parser.parse_args()

    from tests.harness import services

    postgres = services.start_postgres()
    tmp = Path(tempfile.mkdtemp(prefix="bench-spark-"))
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url,
        "REGISTRY_VAR_DIR": str(tmp),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    try:
        inputs = tmp / "in"
        inputs.mkdir()
        for g in range(0, args.groups, 10):  # several files, as a real bulk import has
            part = document(min(10, args.groups - g), args.schemas, args.versions)
            part["schemaGroups"] = {
                k.replace("group", f"group{g}-"): {**v, "id": k.replace("group", f"group{g}-")}
                for k, v in part["schemaGroups"].items()
            }
            (inputs / f"schemas-{g}.cereg").write_text(json.dumps(part))
        (inputs / "definitions.cereg").write_text(
            json.dumps(definitions_document(args.definition_groups, args.definitions))
        )
        entities = args.groups * (1 + args.schemas * (1 + args.versions)) + args.definition_groups * (
            1 + 2 * args.definitions
        )
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        peak = {"driver": 0.0, "executors": 0.0}
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "manage.py", "spark_import", str(inputs), "--master", "local[2]", "-v", "0"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        while process.poll() is None:
            peak["driver"] = max(peak["driver"], peak_rss_mib(r"manage.py spark_import"))
            peak["executors"] = max(peak["executors"], peak_rss_mib(r"pyspark.daemon|pyspark/worker|java.*SparkSubmit"))
            time.sleep(0.5)
        spark_seconds = time.perf_counter() - started
        last = process.stdout.read().strip().splitlines()[-1]
        print(
            f"spark_import local[2]: {entities} entities in {spark_seconds:.1f} s "
            f"({spark_seconds / entities * 1000:.3f} ms/entity), goal <= 60 s; {last}"
        )
        print(f"peak memory: driver {peak['driver']:.0f} MiB, executors and JVM {peak['executors']:.0f} MiB")
        started = time.perf_counter()
        again = subprocess.run(
            [sys.executable, "manage.py", "spark_import", str(inputs), "--master", "local[2]", "-v", "2"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        again_seconds = time.perf_counter() - started
        print(
            f"the same input again (unchanged): {again_seconds:.1f} s, {spark_seconds / again_seconds:.1f}x faster "
            f"than the first import (goal >= 3x); {again.stdout.strip().splitlines()[-1]}"
        )
        print_steps(again.stderr)
        # a change elsewhere in the registry: the same input is read again (Spark), its entities all unchanged
        subprocess.run(
            [
                sys.executable,
                "manage.py",
                "shell",
                "-c",
                (
                    "from registry.documents.imports import import_document; from registry.services import WriteContext; "
                    "import_document(WriteContext(user='bench'), {'schemaGroups': {'elsewhere': {}}})"
                ),
            ],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        started = time.perf_counter()
        reread = subprocess.run(
            [sys.executable, "manage.py", "spark_import", str(inputs), "--master", "local[2]", "-v", "2"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        reread_seconds = time.perf_counter() - started
        print(
            f"the same input after a change elsewhere (read again): {reread_seconds:.1f} s, "
            f"{spark_seconds / reread_seconds:.1f}x faster than the first import; "
            f"{reread.stdout.strip().splitlines()[-1]}"
        )
        print_steps(reread.stderr)
        if args.cluster:
            cluster_import(args.cluster, postgres, env, inputs, entities, last)

        sample = document(args.rest_sample, args.schemas, args.versions)
        sample["schemaGroups"] = {f"rest.{k}": {**v, "id": f"rest.{k}"} for k, v in sample["schemaGroups"].items()}
        sample_entities = args.rest_sample * (1 + args.schemas * (1 + args.versions))
        (tmp / "sample.cereg").write_text(json.dumps(sample))
        code = (
            "import django, time, json; django.setup();"
            "from django.contrib.auth.models import User; from rest_framework.test import APIClient;"
            "u = User.objects.create_superuser('b', 'b@x', 'b'); c = APIClient(); c.force_authenticate(u);"
            f"body = open('{tmp / 'sample.cereg'}').read(); t = time.perf_counter();"
            "r = c.post('/', body, content_type='application/json'); assert r.status_code == 200, r.content[:300];"
            "print(time.perf_counter() - t)"
        )
        rest_seconds = float(
            subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
            .stdout.strip()
            .splitlines()[-1]
        )
        per_rest = rest_seconds / sample_entities
        per_spark = spark_seconds / entities
        print(
            f"REST import (POST /, {sample_entities} entities): {rest_seconds:.1f} s ({per_rest * 1000:.3f} ms/entity); "
            f"spark_import is {per_rest / per_spark:.1f}x faster per entity (goal >= 20x)"
        )
    finally:
        postgres.stop()


def cluster_import(workers: int, postgres, env: dict, inputs: Path, entities: int, local_last: str) -> None:
    """The same input into a fresh database through a standalone cluster; prints the time and the comparison."""
    import psycopg

    from tests.harness.spark_cluster import start_spark_cluster

    with psycopg.connect(postgres.url, autocommit=True) as connection:
        connection.execute("CREATE DATABASE bench_cluster")
    cluster_env = {**env, "DATABASE_URL": postgres.url.rsplit("/", 1)[0] + "/bench_cluster"}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=cluster_env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    started = time.perf_counter()
    cluster = start_spark_cluster(workers=workers, cores=1)
    cluster_seconds = time.perf_counter() - started
    try:
        started = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "manage.py", "spark_import", str(inputs), "--master", cluster.master_url, "-v", "0"],
            cwd=ROOT,
            env=cluster_env,
            stdout=subprocess.PIPE,
            text=True,
        )
        seconds = time.perf_counter() - started
    finally:
        cluster.stop()
    last = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else f"exit {out.returncode}"
    print(
        f"spark_import on a standalone cluster ({workers} workers x 1 core, started in {cluster_seconds:.1f} s): "
        f"{entities} entities in {seconds:.1f} s ({seconds / entities * 1000:.3f} ms/entity); {last}"
    )
    print(f"same result as local[2]: {'yes' if last == local_last else 'NO: ' + local_last}")


if __name__ == "__main__":
    main()
