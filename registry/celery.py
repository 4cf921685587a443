"""The Celery application: `celery -A registry worker` and `celery -A registry beat`.

Without CELERY_BROKER_URL the settings make tasks run eagerly in the calling process.
"""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("registry")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
