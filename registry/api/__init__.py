"""The HTTP binding of the registry engine, generated from the registered model."""
