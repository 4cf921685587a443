"""App configuration of the operations app (probes, metrics, request ids and logs)."""

from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "operations"
    verbose_name = "Operations"

    def ready(self):
        # in ready(): apps.py loads while Django fills its app registry; what this imports needs every app registered
        from registry.http import fast_reads

        from .middleware import replayed

        fast_reads.observe_replays(replayed)  # the fast path's replays get a request id, metrics and a log record
