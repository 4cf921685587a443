"""Delivery of change events to subscribers: the retry policy, one sender per protocol, and the attempt loop."""
