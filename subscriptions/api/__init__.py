"""The Subscriptions API over HTTP (docs/api-contract.md section 7)."""
