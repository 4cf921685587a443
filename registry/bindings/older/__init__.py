"""The older bindings over the same store as the core binding: the CNCF Schema Registry API
(`schemaregistry.py`) and the Message Catalog API (`messagecatalog.py`); what both share in `base.py`, routes in
`urls.py` (docs/older-bindings.md)."""
