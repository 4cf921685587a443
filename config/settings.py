"""The one settings module, driven by the environment.

No DATABASE_URL means SQLite under var/; no CELERY_BROKER_URL means eager Celery;
no SPARK_MASTER means local[*]. Every variable is listed in the README's configuration table.
"""

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("REGISTRY_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def sqlite_database(name: str) -> dict:
    """A DATABASES entry of the SQLite file `name`: every transaction begins with BEGIN IMMEDIATE (it waits for the
    write lock from its first statement, never upgrades a read to a write), writers take turns
    (registry/sqlite_backend), and a write waits SQLITE_TIMEOUT seconds for its turn, then answers 503
    (registry.http.database_errors)."""
    return {
        "ENGINE": "registry.sqlite_backend",
        "NAME": name,
        "OPTIONS": {"timeout": env_int("SQLITE_TIMEOUT", 20), "transaction_mode": "IMMEDIATE"},
    }


def database_from_url(url: str) -> dict:
    """Turn postgres://user:pass@host:port/name (or sqlite:///path) into a DATABASES entry."""
    parsed = urlparse(url)
    if parsed.scheme in {"sqlite", "sqlite3"}:
        return sqlite_database(unquote(parsed.path) or ":memory:")
    if parsed.scheme not in {"postgres", "postgresql", "pgsql"}:
        raise ValueError(f"DATABASE_URL: unsupported scheme {parsed.scheme!r}")
    entry = {
        # Django's, with a pool that does not hand out a connection PostgreSQL has ended (config/postgresql/base.py)
        "ENGINE": "config.postgresql",
        "NAME": unquote(parsed.path.lstrip("/")),
        "USER": unquote(parsed.username or ""),
        "PASSWORD": unquote(parsed.password or ""),
        "HOST": parsed.hostname or "",
        "PORT": str(parsed.port or ""),
        "CONN_MAX_AGE": env_int("DATABASE_CONN_MAX_AGE", 60),
    }
    # psycopg's connection pool (Django 5.1+): a process holds at most DATABASE_POOL_SIZE connections whatever
    # its threads (the development server starts one per request); a request waits DATABASE_POOL_TIMEOUT seconds
    # for a free one, then answers 503 (registry.http.database_errors). 0 turns the pool off (DATABASE_CONN_MAX_AGE).
    pool_size = env_int("DATABASE_POOL_SIZE", 8)
    if pool_size > 0:
        timeout = float(os.environ.get("DATABASE_POOL_TIMEOUT") or 5)
        # prepare_threshold: psycopg prepares a statement sent with server-side parameters after 5 uses on a pooled
        # connection: the statements written out (registry/compiled_reads.py, registry/sent_together.py: look-ups by
        # keys, the writes' inserts and updates); Django's own queries bind their parameters client-side and are never
        # prepared. Django turns it off by default for poolers like PgBouncer, which is why it is on only with this pool.
        entry["OPTIONS"] = {
            "pool": {"min_size": 1, "max_size": pool_size, "timeout": timeout},
            "prepare_threshold": 5,
        }
        entry["CONN_MAX_AGE"] = 0  # a pooled connection goes back to the pool at the end of each request
        entry["CONN_HEALTH_CHECKS"] = True  # the pool checks a connection before handing it out (config/postgresql)
    return entry


DEBUG = env_bool("DJANGO_DEBUG", False)
# without DJANGO_SECRET_KEY, a key everyone can read: gunicorn.conf.py refuses to serve with it (DJANGO_DEBUG off)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or "insecure-development-key-set-DJANGO_SECRET_KEY"
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",")
    if h.strip()
]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]
TRUST_FORWARDED = env_bool("DJANGO_TRUST_FORWARDED", False)
if TRUST_FORWARDED:
    USE_X_FORWARDED_HOST = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# HTTPS in production (README, "Production"): cookies sent over HTTPS only, plain HTTP redirected (behind a proxy
# that holds TLS, with DJANGO_TRUST_FORWARDED=1), and HSTS; the probes and /metrics are answered before the
# redirect (operations/views.py)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", False)
SECURE_SSL_REDIRECT = env_bool("DJANGO_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", False)

INSTALLED_APPS = [
    "registry.governance.discovery.AdminConfig",  # django.contrib.admin, its modules loaded on first use
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files for /api/docs/, served from here, not from a CDN
    "registry",
    "endpoints",
    "catalog",
    "subscriptions",
    "pipeline",
    "sync",
    "confluent",
    "operations",
    "asyncapi",
]

MIDDLEWARE = [
    # request id, request metrics, access log; then /healthz, /readyz and /metrics, before the host check and the
    # HTTPS redirect (operations/middleware.py)
    "operations.middleware.RequestContextMiddleware",
    "operations.middleware.OperationsMiddleware",
    "registry.http.database_errors.DatabaseUnavailableMiddleware",  # a database down or busy: 503, never 500
    "registry.http.fast_reads.FastDocumentReads",  # public document reads: a kept answer after one query
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
APPEND_SLASH = False
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
WSGI_APPLICATION = "config.wsgi.application"

if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": database_from_url(os.environ["DATABASE_URL"])}
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {"default": sqlite_database(os.environ.get("SQLITE_PATH", str(VAR_DIR / "registry.sqlite3")))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
if env_bool("REGISTRY_TEST_FAST_PASSWORDS", False):
    # the test harness only (tests/harness/plugin.py): the default PBKDF2 is slow by design, paid for every
    # user a test creates and every login; never for real passwords
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# where collectstatic writes (the container image collects them at build time, outside the data volume)
STATIC_ROOT = Path(os.environ.get("REGISTRY_STATIC_ROOT") or VAR_DIR / "static")
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns about a missing root on every start
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# Request bodies: the registry enforces its own limit (413) in registry.http; Django's own
# in-memory cap must not trip before it.
REGISTRY_MAX_BODY_BYTES = env_int("REGISTRY_MAX_BODY_BYTES", 10 * 1024 * 1024)
# A registry document (POST /): an export holds every entity, each up to the limit above, so it gets its own,
# larger byte limit, and an entity limit that keeps one import request within the worker's timeout.
REGISTRY_MAX_IMPORT_BYTES = env_int("REGISTRY_MAX_IMPORT_BYTES", 200 * 1024 * 1024)
REGISTRY_IMPORT_MAX_ENTITIES = env_int("REGISTRY_IMPORT_MAX_ENTITIES", 10_000)
DATA_UPLOAD_MAX_MEMORY_SIZE = None
DATA_UPLOAD_MAX_NUMBER_FIELDS = 10000

REGISTRY_MAX_SCHEMA_BYTES = env_int("REGISTRY_MAX_SCHEMA_BYTES", 4 * 1024 * 1024)
# the CPU time one check that runs a user's schema or data may take (catalog.validators.budget): past it, 503
REGISTRY_CHECK_SECONDS = float(os.environ.get("REGISTRY_CHECK_SECONDS", "1"))
# the catalog map (registry/governance/catalog_map.py): Graphviz's timeout, and the groups above which it draws group types
REGISTRY_MAP_SECONDS = float(os.environ.get("REGISTRY_MAP_SECONDS", "10"))
REGISTRY_MAP_MAX_NODES = env_int("REGISTRY_MAP_MAX_NODES", 300)
# the resources above which the whole registry's map is refused (it reads every resource and reference): a group's map
REGISTRY_MAP_MAX_RESOURCES = env_int("REGISTRY_MAP_MAX_RESOURCES", 5_000)
# anonymous requests per client address to the checks (validate, compatibility dry run, diff) and to the map
# (registry/access/throttles.py): "N/second|minute|hour|day", or "off"
REGISTRY_THROTTLE_ANON_CHECKS = os.environ.get("REGISTRY_THROTTLE_ANON_CHECKS", "60/minute")
REGISTRY_THROTTLE_ANON_MAP = os.environ.get("REGISTRY_THROTTLE_ANON_MAP", "10/minute")
REGISTRY_PUBLIC_READ = env_bool("REGISTRY_PUBLIC_READ", True)
# HTTP Basic (registry/http/basic_auth.py): seconds a process remembers a verified user name and password (0: never),
# and the failed attempts per client address and per user name past which the hasher is not run (429)
REGISTRY_BASIC_AUTH_CACHE_SECONDS = float(os.environ.get("REGISTRY_BASIC_AUTH_CACHE_SECONDS") or 120)
REGISTRY_BASIC_AUTH_FAILURES = os.environ.get("REGISTRY_BASIC_AUTH_FAILURES", "10/minute")
# teams and owners (registry/access/permissions.py, docs/teams.md): new groups must name an owning team; the team whose
# members may do everything everywhere, as superusers may
REGISTRY_REQUIRE_OWNERS = env_bool("REGISTRY_REQUIRE_OWNERS", False)
REGISTRY_ADMIN_TEAM = os.environ.get("REGISTRY_ADMIN_TEAM") or "Registry admins"
# the compatibility level of a schema created without one (and no group level): the same through every door
REGISTRY_DEFAULT_COMPATIBILITY = os.environ.get("REGISTRY_DEFAULT_COMPATIBILITY", "backward_transitive")
if REGISTRY_DEFAULT_COMPATIBILITY not in (
    "none",
    "backward",
    "backward_transitive",
    "forward",
    "forward_transitive",
    "full",
    "full_transitive",
):
    raise ImproperlyConfigured(f"REGISTRY_DEFAULT_COMPATIBILITY={REGISTRY_DEFAULT_COMPATIBILITY!r} is not a level")
# Which binding answers at the host root: the 0.5-wip core binding (then xRegistry 1.0 is under /registry/), or
# xRegistry 1.0 (then the 0.5-wip binding is under /v0.5/), so that the registry-relative references of real 1.0
# documents (`/schemagroups/...`) resolve against the host (config/urls.py mounts them)
REGISTRY_ROOT_BINDING = os.environ.get("REGISTRY_ROOT_BINDING", "cloudevents-registry-0.5")
if REGISTRY_ROOT_BINDING not in ("cloudevents-registry-0.5", "xregistry-1.0"):
    raise ImproperlyConfigured(
        f"REGISTRY_ROOT_BINDING={REGISTRY_ROOT_BINDING!r}: use cloudevents-registry-0.5 or xregistry-1.0"
    )
REGISTRY_XR10_PATH = "/" if REGISTRY_ROOT_BINDING == "xregistry-1.0" else "/registry/"
REGISTRY_CORE_PATH = "/v0.5/" if REGISTRY_ROOT_BINDING == "xregistry-1.0" else "/"
REGISTRY_PAGE_SIZE = env_int("REGISTRY_PAGE_SIZE", 100)
REGISTRY_MAX_PAGE_SIZE = env_int("REGISTRY_MAX_PAGE_SIZE", 1000)
REGISTRY_MAX_INLINE_ENTITIES = env_int("REGISTRY_MAX_INLINE_ENTITIES", 100_000)
# whole-registry answers (GET /?inline, the export) kept rendered per worker until the next change
REGISTRY_RENDERED_ANSWER_BYTES = env_int("REGISTRY_RENDERED_ANSWER_BYTES", 32 * 1024 * 1024)
# public document reads answered from the view's kept answer after one query (registry/http/fast_reads.py)
REGISTRY_FAST_READS = env_bool("REGISTRY_FAST_READS", True)
REGISTRY_FAST_READ_BYTES = env_int("REGISTRY_FAST_READ_BYTES", 16 * 1024 * 1024)
REGISTRY_ID = os.environ.get("REGISTRY_ID", "cloudevents-registry")
REGISTRY_NAME = os.environ.get("REGISTRY_NAME", "CloudEvents Registry")
REGISTRY_DESCRIPTION = os.environ.get("REGISTRY_DESCRIPTION", "")
REGISTRY_DOCS = os.environ.get("REGISTRY_DOCS", "")
REGISTRY_ALLOW_PRIVATE_SINKS = env_bool("REGISTRY_ALLOW_PRIVATE_SINKS", False)
REGISTRY_WEBHOOK_HANDSHAKE = env_bool("REGISTRY_WEBHOOK_HANDSHAKE", True)
# header, query parameter and property names whose values subscription reads show (all others: ***)
REGISTRY_SUBSCRIPTION_SAFE_NAMES = [
    name.strip() for name in os.environ.get("REGISTRY_SUBSCRIPTION_SAFE_NAMES", "").split(",") if name.strip()
]
# the schema group that holds the subjects of the Confluent API's default context (docs/confluent.md)
REGISTRY_CONFLUENT_GROUP = os.environ.get("REGISTRY_CONFLUENT_GROUP") or "confluent"
# the secret of the local KMS the DEK registry wraps shared KEKs' DEKs with (confluent/kms.py); empty: none
REGISTRY_LOCAL_KMS_SECRET = os.environ.get("REGISTRY_LOCAL_KMS_SECRET", "")
# AsyncAPI imports (asyncapi/): remote $refs are read only from these URL prefixes (comma-separated; empty: none)
REGISTRY_ASYNCAPI_REMOTE_REFS = os.environ.get("REGISTRY_ASYNCAPI_REMOTE_REFS", "")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "registry.http.token_auth.TokenAuthentication",  # DRF's, its query built once (issue 29)
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["registry.http.permissions.RegistryPermission"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "registry.http.problems.problem_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # the client address that throttles count by (DRF's get_ident: the anonymous checks and map, failed Basic
    # sign-ins): the socket's (REMOTE_ADDR) unless the proxy is trusted, then the address the one proxy in front
    # appended to X-Forwarded-For (its last entry; what a client wrote before it is ignored). DRF's default (None)
    # would take the whole header as the client sends it: a new value each request, never throttled
    "NUM_PROXIES": 1 if TRUST_FORWARDED else 0,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "CloudEvents Registry",
    "DESCRIPTION": "xRegistry core binding of the CloudEvents Registry (spec 0.5-wip), "
    "the Subscriptions API, the older Schema Registry and Message Catalog bindings and the Confluent Schema Registry "
    "API (/confluent).",
    "VERSION": "0.5-wip",
    "SERVE_INCLUDE_SCHEMA": False,
    # /api/schema/ and /api/docs/ are reads like the others: public unless REGISTRY_PUBLIC_READ=0
    "SERVE_PERMISSIONS": ["registry.http.permissions.RegistryPermission"],
    # /api/docs/ works offline: Swagger UI's files from drf-spectacular-sidecar, as static files
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "OAS_VERSION": "3.1.0",  # JSON Schema 2020-12 in bodies: propertyNames, type lists (null removes)
    # bodies are JSON (or documents described per operation): DRF's form parsers are not offered
    "PARSER_WHITELIST": ["rest_framework.parsers.JSONParser"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "registry.http.openapi.postprocess",
    ],
}

CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# how many tasks a worker process runs before Celery's Django fixup closes a thread's database connection
# anyway; until then registry/celery.py closes connections only when CONN_MAX_AGE or an error says so
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 1000)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600)}
# bulk imports (minutes, a JVM) can have workers of their own: `celery -A registry worker -Q imports` with
# REGISTRY_IMPORT_QUEUE=imports; by default they share the queue of deliveries (docs/deploy.md)
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {"pipeline.tasks.run_import": {"queue": os.environ.get("REGISTRY_IMPORT_QUEUE") or "celery"}}

SPARK_MASTER = os.environ.get("SPARK_MASTER", "local[*]")
# the only directory whose files the admin's bulk import may read by server path (unset: uploads only)
REGISTRY_IMPORT_ROOT = os.environ.get("REGISTRY_IMPORT_ROOT") or None

# LOG_FORMAT=json: one JSON object a line with the request id (operations/logs.py) and an access record per
# request (logger operations.access); else the message alone, as before
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text").strip().lower()
if LOG_FORMAT not in {"text", "json"}:
    raise ValueError(f"LOG_FORMAT: 'text' or 'json', not {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "operations.logs.RequestIdFilter"}},
    "formatters": {
        "json": {"()": "operations.logs.json_formatter"},
        "text": {"format": "%(message)s"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["request_id"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
    "loggers": {"operations.access": {"level": "INFO" if LOG_FORMAT == "json" else "WARNING"}},
}
# Celery leaves the logging to the configuration above with LOG_FORMAT=json (its own format otherwise): a worker's and
# beat's records are then JSON lines too, at celery's --loglevel
CELERY_WORKER_HIJACK_ROOT_LOGGER = LOG_FORMAT != "json"
# /metrics answers a scraper that sends `Authorization: Bearer <this>`; unset, /metrics is off (404)
REGISTRY_METRICS_TOKEN = os.environ.get("REGISTRY_METRICS_TOKEN", "")

# Delivery of change events (docs/api-contract.md section 9)
REGISTRY_DELIVERY_MAX_ATTEMPTS = env_int("REGISTRY_DELIVERY_MAX_ATTEMPTS", 20)
REGISTRY_DELIVERY_TTL_SECONDS = env_int("REGISTRY_DELIVERY_TTL_SECONDS", 24 * 3600)
REGISTRY_DELIVERY_BACKOFF_BASE = float(os.environ.get("REGISTRY_DELIVERY_BACKOFF_BASE", "1"))
REGISTRY_DELIVERY_BACKOFF_CAP = float(os.environ.get("REGISTRY_DELIVERY_BACKOFF_CAP", "3600"))
REGISTRY_DELIVERY_TIMEOUT = float(os.environ.get("REGISTRY_DELIVERY_TIMEOUT", "10"))
REGISTRY_DELIVERY_LEASE_SECONDS = env_int("REGISTRY_DELIVERY_LEASE_SECONDS", 45)  # + sweep < 60 s
# deliveries per task (one claim, one attempt insert, one update for the batch), and the threads per worker
# process that send to different subscriptions of a batch in parallel
REGISTRY_DELIVERY_BATCH = env_int("REGISTRY_DELIVERY_BATCH", 50)
REGISTRY_DELIVERY_PARALLEL = env_int("REGISTRY_DELIVERY_PARALLEL", 8)
# a queued relay marks itself pending for at most this long (a lost relay task stops coalescing no longer)
REGISTRY_RELAY_FLAG_SECONDS = float(os.environ.get("REGISTRY_RELAY_FLAG_SECONDS", "30"))
REGISTRY_SWEEP_SECONDS = float(os.environ.get("REGISTRY_SWEEP_SECONDS", "10"))
# the sweep re-dispatches deliveries due at least this long ago (what a lost kick or countdown left behind)
REGISTRY_SWEEP_GRACE_SECONDS = float(os.environ.get("REGISTRY_SWEEP_GRACE_SECONDS", "15"))
# countdowns longer than this stay in the database and are picked up by the beat sweep
REGISTRY_MAX_COUNTDOWN_SECONDS = env_int("REGISTRY_MAX_COUNTDOWN_SECONDS", 300)
CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {  # (Celery's shape: each entry's task name and period)
    "sweep-outbox-and-deliveries": {"task": "subscriptions.tasks.sweep", "schedule": REGISTRY_SWEEP_SECONDS},
    "sync-due-sources": {"task": "sync.tasks.sync_due", "schedule": REGISTRY_SWEEP_SECONDS},
}

# The registry's public base URL, used where no request is at hand (imports from the command line, the
# webhook handshake's origin, events written by workers).
REGISTRY_BASE_URL = os.environ.get("REGISTRY_BASE_URL", "http://127.0.0.1:8000")

# where earlier versions kept the admin's bulk import uploads (now in the database): migration pipeline 0005 reads them
MEDIA_ROOT = VAR_DIR / "media"
