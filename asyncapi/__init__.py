"""AsyncAPI in and out: AsyncAPI 2.6, 3.0 and 3.1 documents imported into endpoints, message groups, messages and
schemas, and AsyncAPI 3.0 (or 3.1) exported for message groups and endpoints (docs/asyncapi.md is the mapping).

The app uses `registry` (its services, through the document importer) and `catalog`/`endpoints` (their 1.0
translations); `registry` knows nothing of it.
"""
