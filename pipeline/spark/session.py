"""The Spark context: `local[*]` unless SPARK_MASTER or --master names a cluster.

The import uses RDDs only, so it starts a SparkContext, not a SparkSession, whose SQL side would add
seconds to every start. Executors run the project's validators, so they need the project on their
PYTHONPATH and the same Python packages (requirements/base.txt); on a cluster, install both on every
executor host (see the README).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pyspark import SparkConf, SparkContext

PROJECT_DIR = Path(__file__).resolve().parents[2]


def _loopback_master(master: str) -> bool:
    """Whether a `spark://HOST:PORT[,HOST:PORT]` master URL names loopback hosts only."""
    hosts = [part.rsplit(":", 1)[0].strip("[]") for part in master.removeprefix("spark://").split(",")]
    return bool(hosts) and all(host in ("localhost", "::1") or host.startswith("127.") for host in hosts)


def spark_context(master: str, app_name: str = "registry-import"):
    if master.startswith("local") or _loopback_master(master):
        # stay on loopback in local mode, and with a master on loopback: the executors of such a cluster connect
        # back to the driver on this machine's loopback (its host name may resolve to an address they cannot reach)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

    python_path = os.pathsep.join([str(PROJECT_DIR), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    conf = (
        SparkConf()
        .setMaster(master)
        .setAppName(app_name)
        .set("spark.ui.enabled", "false")
        .set("spark.ui.showConsoleProgress", "false")
        .set("spark.executorEnv.PYTHONPATH", python_path)
        .set("spark.executorEnv.PYSPARK_PYTHON", os.environ["PYSPARK_PYTHON"])
        .set("spark.driver.memory", os.environ.get("SPARK_DRIVER_MEMORY", "2g"))
        .set("spark.python.worker.reuse", "true")
    )
    os.environ["PYTHONPATH"] = python_path
    context = SparkContext.getOrCreate(conf)
    context.setLogLevel("ERROR")
    return context
