"""Code that runs on Spark: the session, and the functions the executors run (no Django there)."""
