"""The AsyncAPI app's configuration."""

from django.apps import AppConfig


class AsyncAPIConfig(AppConfig):
    name = "asyncapi"
    verbose_name = "AsyncAPI"
