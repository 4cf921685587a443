"""App configuration of the bulk-import pipeline."""

from django.apps import AppConfig


class PipelineConfig(AppConfig):
    name = "pipeline"
    verbose_name = "Bulk imports"
