"""Routes of the sync webhook (not part of the registry's OpenAPI document)."""

from django.urls import path

from .views import SyncWebhookView

urlpatterns = [path("sync/hooks/<int:source_id>/<str:secret>", SyncWebhookView.as_view(), name="sync-webhook")]
