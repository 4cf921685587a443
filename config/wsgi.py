"""WSGI entry point (`gunicorn` reads gunicorn.conf.py, which names `config.wsgi:application`): Django's handler
behind the fast path's WSGI layer (kept answers of public document reads, registry/http/fast_reads.py) and the
de-chunking of request bodies (config/chunked.py)."""

import os

from django.core.wsgi import get_wsgi_application

from config.chunked import ChunkedBodies

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_wsgi_application()  # sets Django up: the apps' modules can be imported from here on

from registry.http.fast_reads import FastReadsApp  # noqa: E402 - needs the apps loaded

application = FastReadsApp(ChunkedBodies(django_application))
