"""Subscriptions API, outbox relay and delivery of change events."""
