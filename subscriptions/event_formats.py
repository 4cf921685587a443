"""The event formats a subscription may ask for in `config.eventformat` (docs/api-contract.md section 11)."""

DEFAULT_FORMAT = "cloudevents-registry-0.5"
XREGISTRY_10 = "xregistry-1.0"
EVENT_FORMATS = (DEFAULT_FORMAT, XREGISTRY_10)
