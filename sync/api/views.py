"""`/sync/hooks/<id>/<secret>`: the remote's change events arrive here and trigger an immediate pull.

Answers the CloudEvents webhook handshake (OPTIONS with WebHook-Request-Origin) and accepts the events
(structured or binary mode); the secret in the URL stands in for authentication.
"""

from django.http import HttpResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from ..models import SyncSource


@method_decorator(csrf_exempt, name="dispatch")
class SyncWebhookView(View):
    def _source(self, source_id, secret):
        return SyncSource.objects.filter(pk=source_id, webhook_secret=secret, enabled=True).first()

    def options(self, request, source_id, secret):
        if self._source(source_id, secret) is None:
            return HttpResponse(status=404)
        response = HttpResponse(status=200)
        response["WebHook-Allowed-Origin"] = request.headers.get("WebHook-Request-Origin", "*")
        response["WebHook-Allowed-Rate"] = "120"
        response["Allow"] = "OPTIONS, POST"
        return response

    def post(self, request, source_id, secret):
        source = self._source(source_id, secret)
        if source is None:
            return HttpResponse(status=404)
        # here: the tasks load Celery, which a process needs only once it queues a task (start-up of commands)
        from ..tasks import sync_source

        sync_source.delay(source.pk, "event")
        return HttpResponse(status=202)
