"""The xRegistry engine: model, entity tables, services, selectors and the generated HTTP binding.

It knows no formats: catalog/, endpoints/ and subscriptions/ plug into it. Its Celery application is
`registry.celery.app` (`celery -A registry` finds it there); the apps' tasks modules import it.
"""
