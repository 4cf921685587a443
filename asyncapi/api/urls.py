"""Routes of the AsyncAPI app below `/registry/` (mounted before the 1.0 binding's generated routes)."""

from django.urls import path

from . import views

urlpatterns = [
    path("asyncapi", views.AsyncAPIView.as_view(), name="asyncapi"),
    path("messagegroups/<str:gid>/asyncapi", views.MessageGroupAsyncAPIView.as_view(), name="asyncapi-messagegroup"),
    path("endpoints/<str:eid>/asyncapi", views.EndpointAsyncAPIView.as_view(), name="asyncapi-endpoint"),
]
