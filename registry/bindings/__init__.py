"""The bindings of the registry's HTTP API, one package each: `v05/` (the xRegistry core binding of the 0.5-wip
draft at `/`), `v10/` (xRegistry 1.0 at `/registry`), `older/` (the Schema Registry and Message Catalog bindings).
Each declares its names, flags, translations and error dialect; the kernel in `registry/http/` owns the routes,
views, documents and OpenAPI description built from those declarations. The Confluent API lives beside its domain,
in `confluent/api/`."""
