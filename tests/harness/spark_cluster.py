"""A throwaway Spark standalone cluster: one master and N workers from the installed pyspark distribution.

pyspark's wheel ships `bin/spark-class` (not the `sbin/start-*.sh` scripts of a full Spark download), so the
master and the workers are started as `spark-class org.apache.spark.deploy.master.Master` /
`...worker.Worker`, each in its own process group, on free loopback ports, with a temp work directory.
The master's REST submission server (fixed port 6066) is turned off so that two clusters never clash.

    cluster = start_spark_cluster(workers=2, cores=1)
    ... spark_import --master cluster.master_url ...
    cluster.stop()

Used by tests/pipeline/test_spark_cluster.py and bench/spark_import.py --cluster.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.harness.services import ManagedProcess, free_port, start_process, wait_for


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def spark_available() -> bool:
    return shutil.which("java") is not None and (spark_home() / "bin" / "spark-class").exists()


@dataclass
class SparkCluster:
    master_url: str
    work_dir: Path
    master: ManagedProcess
    workers: list[ManagedProcess] = field(default_factory=list)

    def executor_dirs(self) -> list[Path]:
        """The directories the workers made for executors of applications (`app-*/N`), one per executor."""
        return sorted(p for p in self.work_dir.glob("worker-*/app-*/*") if p.is_dir())

    def stop(self) -> None:
        for process in [*self.workers, self.master]:
            process.stop()
        shutil.rmtree(self.work_dir, ignore_errors=True)


def _registered_workers(master: ManagedProcess) -> int:
    return master.output().count("Registering worker ")


def start_spark_cluster(workers: int = 2, cores: int = 1, memory: str = "1g", timeout: float = 90) -> SparkCluster:
    """Start a master and `workers` workers (each `cores` cores) on loopback; return when all registered."""
    home = spark_home()
    work_dir = Path(tempfile.mkdtemp(prefix="spark-cluster-"))
    env = {
        **os.environ,
        "SPARK_HOME": str(home),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOG_DIR": str(work_dir / "logs"),
        "SPARK_NO_DAEMONIZE": "1",
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
        # the executors run the project's validators: the same interpreter (and packages) as the driver
        "PYSPARK_PYTHON": sys.executable,
    }
    spark_class = str(home / "bin" / "spark-class")
    port = free_port()
    master = start_process(
        [
            spark_class,
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            str(free_port()),
        ],
        env=env,
    )
    cluster = SparkCluster(master_url=f"spark://127.0.0.1:{port}", work_dir=work_dir, master=master)
    try:

        def master_up() -> bool:
            if master.process.poll() is not None:
                raise RuntimeError(f"the Spark master exited: {master.output()[-3000:]}")
            return f"Successfully started service 'sparkMaster' on port {port}" in master.output()

        wait_for(master_up, timeout, "the Spark master")
        for number in range(workers):
            worker_dir = work_dir / f"worker-{number}"
            worker_dir.mkdir()
            cluster.workers.append(
                start_process(
                    [
                        spark_class,
                        "org.apache.spark.deploy.worker.Worker",
                        cluster.master_url,
                        "--host",
                        "127.0.0.1",
                        "--cores",
                        str(cores),
                        "--memory",
                        memory,
                        "--webui-port",
                        str(free_port()),
                        "--work-dir",
                        str(worker_dir),
                    ],
                    env=env,
                )
            )
        wait_for(lambda: _registered_workers(master) >= workers, timeout, f"{workers} Spark workers")
    except BaseException:
        cluster.stop()
        raise
    return cluster
