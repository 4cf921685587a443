"""The HTTP kernel every binding is an adapter over: reading requests (strict JSON, limits, media types, headers),
conditional requests (ETag, If-Match, If-None-Match), problem documents, permissions, the base view (with the query
flags each view declares per method), a document's answer (`views.document_answer`), the whole-registry answer kept
until the next change (`whole_registry.py`) and the OpenAPI description's vocabulary (`openapi.py`).

A binding (the 0.5-wip core binding in registry/bindings/v05, xRegistry 1.0 in registry/bindings/v10, the older
bindings in registry/bindings/older, the Confluent API) declares its names, header prefix, epoch sources, flags and
error dialect (`binding.Binding`) and translates; it holds no write semantics, body rules or permission map of its own.
"""
