"""The Subscriptions API over HTTP (CONTRACT section 7)."""
