"""The Celery application: `celery -A registry worker` and `celery -A registry beat`.

Without CELERY_BROKER_URL the settings make tasks run eagerly in the calling process.

Database connections in workers are kept as Django keeps them between requests: before and after each
task, a connection older than CONN_MAX_AGE or left unusable by an error is closed (Django's
`close_old_connections`), the others are reused. Celery's Django fixup would otherwise close every
connection around every task (unless CELERY_DB_REUSE_MAX is set, as config/settings.py does), and a new
PostgreSQL connection per task cost more worker CPU than the deliveries the task made, plus a backend
process started on the server each time.
"""

import os

from celery import Celery, signals
from django.db import close_old_connections as close_connections_if_old

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("registry")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.task_prerun.connect
@signals.task_postrun.connect
def close_old_connections(task=None, **kwargs):
    if task is not None and getattr(task.request, "is_eager", False):
        return  # an eager task runs inside its caller's request or transaction: its connection is the caller's
    close_connections_if_old()
