"""WSGI middleware: a request body sent with `Transfer-Encoding: chunked` reaches Django with its length.

Django reads `CONTENT_LENGTH` bytes of a body and treats a request without it as empty, so a chunked body was
read as nothing (400 "a JSON object body is required", issue 11 item 14). When the server has de-chunked the
body (gunicorn says so with `wsgi.input_terminated`), this reads it (at most one byte over the largest body
the registry takes, so the size check still answers 413) and sets `CONTENT_LENGTH`. Written by hand: Django
has no setting for it.
"""

from __future__ import annotations

import io

from django.conf import settings


class ChunkedBodies:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if (
            "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
            and not environ.get("CONTENT_LENGTH")
            and environ.get("wsgi.input_terminated")
        ):
            limit = max(settings.REGISTRY_MAX_BODY_BYTES, settings.REGISTRY_MAX_IMPORT_BYTES) + 1
            body = environ["wsgi.input"].read(limit)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)
