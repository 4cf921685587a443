"""Checks of AsyncAPI documents: the official AsyncAPI JSON Schemas (`specs.py`)."""
