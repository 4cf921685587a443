"""The Spark session: `local[*]` unless SPARK_MASTER or --master names a cluster.

Executors run the project's validators, so they need the project on their PYTHONPATH and the same Python
packages (requirements/base.txt); on a cluster, install both on every executor host (see the README).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]


def spark_session(master: str, app_name: str = "registry-import"):
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # stay on loopback in local mode
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    python_path = os.pathsep.join([str(PROJECT_DIR), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    builder = (SparkSession.builder.master(master).appName(app_name)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.executorEnv.PYTHONPATH", python_path)
               .config("spark.executorEnv.PYSPARK_PYTHON", os.environ["PYSPARK_PYTHON"])
               .config("spark.driver.memory", os.environ.get("SPARK_DRIVER_MEMORY", "2g"))
               .config("spark.python.worker.reuse", "true"))
    os.environ["PYTHONPATH"] = python_path
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
