"""The older bindings over the same store: the CNCF Schema Registry API and the Message Catalog API."""
