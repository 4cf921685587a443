"""Validators of subscriptions (pure Python): protocol settings, sinks and filter expressions."""
