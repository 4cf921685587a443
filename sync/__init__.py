"""Scheduled and event-driven sync from other registries (pull over their core REST binding)."""
