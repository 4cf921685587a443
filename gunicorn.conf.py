"""gunicorn's settings for the registry (`gunicorn` in the checkout reads this file by itself).

Threads (`gthread`): a worker keeps answering while some of its threads wait for slow uploads, so a few slow
clients cannot stall every worker. Behind a buffering proxy no client is slow, and one thread a worker answers more
(the threads of a process contend for its interpreter lock: document reads about 2,500 -> 3,200-3,400 a second on a
2-core machine with 4 workers of 1 thread instead of 4 workers of 4, docs/performance.md): the files in deploy/ set
GUNICORN_THREADS=1. gunicorn's own error
answers (a bad request line, a URI or headers over its limits) are problem documents like the application's,
through the worker class in config/. Put a
buffering proxy (nginx, a cloud load balancer) in front in production: it absorbs slow clients and holds
TLS. Environment: GUNICORN_BIND, WEB_CONCURRENCY (workers), GUNICORN_THREADS, GUNICORN_TIMEOUT,
PROMETHEUS_MULTIPROC_DIR, LOG_FORMAT (`json`: gunicorn's own log lines are JSON objects too, like the
application's).

The secret key: gunicorn serves production, where Django signs sessions, CSRF tokens and password reset links with
DJANGO_SECRET_KEY. Without one, config/settings.py falls back to a development key everyone can read in this
repository, so gunicorn refuses to start (`Error: DJANGO_SECRET_KEY ...`, exit status 1) unless DJANGO_DEBUG=1, when it
warns instead; `make run` (Django's development server) still runs without one.

Metrics (operations/metrics.py): the workers count requests in prometheus-client's multiprocess mode, in files
of one directory that a scrape adds up, whichever worker answers it. PROMETHEUS_MULTIPROC_DIR names it (unset: a
new temporary directory); it is emptied when gunicorn starts, and a dead worker's files are marked.
"""

import multiprocessing
import os
import shutil
import tempfile
from pathlib import Path

wsgi_app = "config.wsgi:application"
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000").split(",")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = "config.gunicorn_worker.ProblemThreadWorker"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))  # a request the import limits let through ends well within
graceful_timeout = 30
keepalive = 5
limit_request_line = 8190  # gunicorn's largest: version URIs in query strings (`?uri=`) are up to 4,096 characters

if os.environ.get("LOG_FORMAT", "").strip().lower() == "json":
    # one format on stderr for a log pipeline to parse: gunicorn's error log as the application's (operations/logs.py)
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "operations.logs.json_formatter"}},
        "filters": {"request_id": {"()": "operations.logs.RequestIdFilter"}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "filters": ["request_id"],
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {"gunicorn.error": {"handlers": ["console"], "level": "INFO", "propagate": False}},
    }

# before any worker starts: the workers inherit it, and prometheus-client reads it when they import it
own_prometheus_dir = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if own_prometheus_dir:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="registry-prometheus-")


INSECURE_KEY = "insecure-development-key-set-DJANGO_SECRET_KEY"  # config/settings.py's fallback


def insecure_secret_key() -> str | None:
    """Why the environment's DJANGO_SECRET_KEY must not serve production, or None."""
    key = os.environ.get("DJANGO_SECRET_KEY") or ""
    if not key:
        return (
            "DJANGO_SECRET_KEY is not set: Django would sign sessions and CSRF tokens with a key published in the code"
        )
    if key == INSECURE_KEY or key.startswith("django-insecure-"):
        return "DJANGO_SECRET_KEY is a development key"
    return None


def on_starting(server):
    """Refuse to serve production with a development secret key; a previous run's counts are not this one's."""
    if problem := insecure_secret_key():
        advice = "set it to 50 or more random characters (README, Production)"
        if os.environ.get("DJANGO_DEBUG", "").strip().lower() not in {"1", "true", "yes", "on"}:
            on_exit(server)  # the metrics directory made above
            raise RuntimeError(f"{problem}; {advice}. gunicorn did not start.")
        server.log.warning("WARNING: %s; %s. Serving anyway: DJANGO_DEBUG is on.", problem, advice)
    directory = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.db"):
        stale.unlink()


def post_worker_init(worker):
    """The loaded application's objects (Django's, the libraries') leave the cycle collector's generations
    (`gc.freeze`, after a collection of what loading left): they live as long as the worker, and every full
    collection scanned them all (issue 29, docs/performance.md); while a collection runs, a worker holding a
    schema's lock holds up every writer of that schema. Objects freed by their reference counts are freed as
    before. The URLconf, and with it every view module, is loaded first (Django loads it with the first request:
    each new worker's first answer, say the first read after a restart, took seconds), so its objects are frozen
    too."""
    import gc

    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - loads the URLconf
    gc.collect()
    gc.freeze()


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    if own_prometheus_dir:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
