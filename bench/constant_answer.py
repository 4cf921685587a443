"""The floor of a document GET behind gunicorn (bench/read_instructions.py `--app floor`): a WSGI application that
answers the bytes of the bench's kept document (the same status, headers and body) without reading anything, in a
worker that loaded the registry as config/wsgi.py does (so that gunicorn.conf.py's hooks and `gc.freeze` see the
same process). What a worker spends on it is gunicorn's own work per request."""

import config.wsgi  # noqa: F401 - the registry loaded, as in the worker measured against it

SELF = "http://localhost/schemaGroups/bench/schemas/s/versions/1"
HEADERS = [
    ("Content-Type", "application/json"),
    *[(f"Registry-{name}", value) for name, value in (("id", "s"), ("name", "s"), ("version", "1"), ("epoch", "1"))],
    ("Registry-self", SELF),
    ("Registry-createdBy", "bench"),
    ("Registry-createdOn", "2026-11-29T10:21:21.576320Z"),
    ("Registry-modifiedBy", "bench"),
    ("Registry-modifiedOn", "2026-11-29T10:21:21.576320Z"),
    ("Content-Location", SELF),
    ("Vary", "Accept, Authorization, Cookie"),
    ("Allow", "GET, POST, PUT, DELETE, HEAD, OPTIONS"),
    ("ETag", '"5b11ccf3068c73e0c82eca5d25208552"'),
    ("Cache-Control", "no-cache"),
    ("X-Frame-Options", "DENY"),
    ("Content-Length", "72"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("X-Request-ID", "49ab9bad529644a38afda95843d12f66"),
]
BODY = b'{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}'


def application(environ, start_response):
    start_response("200 OK", list(HEADERS))
    return [BODY]
