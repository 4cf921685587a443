"""The xRegistry engine: model, entity tables, services, selectors and the generated HTTP binding.

It knows no formats: catalog/, endpoints/ and subscriptions/ plug into it.
"""

from .celery import app as celery_app

__all__ = ["celery_app"]
