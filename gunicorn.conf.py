"""gunicorn's settings for the registry (`gunicorn` in the checkout reads this file by itself).

Threads (`gthread`): a worker keeps answering while some of its threads wait for slow uploads, so a few slow
clients cannot stall every worker. gunicorn's own error answers (a bad request line, a URI or headers over
its limits) are problem documents like the application's, through the worker class in config/. Put a
buffering proxy (nginx, a cloud load balancer) in front in production: it absorbs slow clients and holds
TLS. Environment: GUNICORN_BIND, WEB_CONCURRENCY (workers), GUNICORN_THREADS, GUNICORN_TIMEOUT.
"""

import multiprocessing
import os

wsgi_app = "config.wsgi:application"
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000").split(",")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = "config.gunicorn_worker.ProblemThreadWorker"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))  # a request the import limits let through ends well within
graceful_timeout = 30
keepalive = 5
limit_request_line = 8190  # gunicorn's largest: version URIs in query strings (`?uri=`) are up to 4,096 characters
