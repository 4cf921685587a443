"""The webhook at which remote registries notify this one of their changes."""
