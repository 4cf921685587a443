"""WSGI entry point (`gunicorn` reads gunicorn.conf.py, which names `config.wsgi:application`)."""

import os

from django.core.wsgi import get_wsgi_application

from config.chunked import ChunkedBodies

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = ChunkedBodies(get_wsgi_application())
