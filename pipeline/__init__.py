"""The bulk-import pipeline on Apache Spark: `manage.py spark_import`, import runs as Celery tasks."""
