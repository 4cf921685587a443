"""`spark_import --master spark://...` on a real standalone Spark cluster (issue 14).

The harness starts a master and two workers of one core each from the installed pyspark distribution, on
loopback; the import runs its executors on those workers (their work directories prove it) and gives the
same result as local mode: the same counts, the same stored entities, idempotent on a second run. Run once,
in the PostgreSQL run of `make test` (a cluster import feeds a production registry; the SQLite run imports
locally in tests/pipeline/test_spark_import.py).
"""

import json
import shutil

import pytest
from django.core.management import call_command

from registry.models import Group, OutboxEvent, Resource, Version
from tests.corpus import documents
from tests.harness.plugin import services_required
from tests.harness.spark_cluster import spark_available, start_spark_cluster

pytestmark = [pytest.mark.slow, pytest.mark.postgres_run, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def cluster():
    if not spark_available():
        if services_required():
            pytest.fail("REQUIRE_SERVICES=1 but Java or pyspark's spark-class is missing")
        pytest.skip("a Spark cluster needs Java")
    started = start_spark_cluster(workers=2, cores=1)
    yield started
    started.stop()


def spark_import(capsys, *args) -> tuple[int, list[str]]:
    try:
        call_command("spark_import", *args)
        code = 0
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().out.strip().splitlines()


def stored() -> dict:
    """What a reader of the registry sees: every version's path with its document, media type, attributes and epoch."""
    return {
        f"{v.resource.group.gid}/{v.resource.rid}/{v.vid}": (
            bytes(v.content or b""),
            v.media_type,
            v.extensions,
            v.epoch,
        )
        for v in Version.objects.select_related("resource__group")
    }


def test_cluster_import_equals_local_import(cluster, tmp_path, capsys):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for path in documents("seed-shape", "*.cereg"):
        shutil.copy(path, inputs / path.name)

    # the same input in local mode first (a dry run writes nothing), then on the cluster
    code, local_lines = spark_import(capsys, str(inputs), "--master", "local[2]", "--dry-run")
    assert code == 0, local_lines
    report = tmp_path / "cluster.json"
    code, lines = spark_import(capsys, str(inputs), "--master", cluster.master_url, "--report", str(report))
    assert code == 0, lines
    assert lines[-1] == local_lines[-1]
    assert lines[-1].endswith("rejected 0")
    created = int(lines[-1].split()[1].rstrip(","))
    assert created == Group.objects.count() + Resource.objects.count() + Version.objects.count() > 100
    assert json.loads(report.read_text())["rejected"] == []
    # the executors ran on the cluster's workers, one on each
    executors = cluster.executor_dirs()
    assert {p.parents[1].name for p in executors} == {"worker-0", "worker-1"}, executors

    # idempotent on the cluster too: nothing changes, no events
    events = OutboxEvent.objects.count()
    before = stored()
    code, lines = spark_import(capsys, str(inputs), "--master", cluster.master_url)
    assert code == 0, lines
    assert lines[-1] == f"created 0, updated 0, unchanged {created}, rejected 0"
    assert OutboxEvent.objects.count() == events
    assert stored() == before


def test_cluster_rejects_entities_one_by_one(cluster, tmp_path, capsys):
    source = tmp_path / "mixed.jsonl"
    source.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                {"path": "/schemaGroups/cluster.g", "description": "imported on a Spark cluster"},
                {
                    "path": "/schemaGroups/cluster.g/schemas/ok/versions/1",
                    "format": "JsonSchema/draft-07",
                    "schema": {"type": "object"},
                },
                {
                    "path": "/schemaGroups/cluster.g/schemas/broken/versions/1",
                    "format": "JsonSchema/draft-07",
                    "schema": {"type": 12},
                },
            ]
        )
        + "\n"
    )
    report = tmp_path / "mixed.json"
    code, lines = spark_import(capsys, str(source), "--master", cluster.master_url, "--report", str(report))
    assert code == 3, lines
    assert lines[-1] == "created 3, updated 0, unchanged 0, rejected 1"
    rejected = json.loads(report.read_text())["rejected"]
    assert [r["path"] for r in rejected] == ["/schemaGroups/cluster.g/schemas/broken/versions/1"]
    assert Version.objects.filter(resource__rid="ok", resource__group__gid="cluster.g").exists()
    assert not Resource.objects.filter(rid="broken").exists()
