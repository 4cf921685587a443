"""The xRegistry 1.0-rc4 HTTP binding of the store, at `/registry` (docs/xregistry-1.0.md).

A second binding generated from the registered model: apps register the 1.0 names and attribute
translations of their types (`mapping.py`), and every write goes through the registry's services.
"""
