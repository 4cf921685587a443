"""Routes of the Subscriptions API."""

from django.urls import path

from .views import RedeliverView, RevalidateView, SubscriptionCollectionView, SubscriptionView

urlpatterns = [
    path("subscriptions", SubscriptionCollectionView.as_view(), name="subscriptions-list"),
    path("subscriptions/<str:sid>", SubscriptionView.as_view(), name="subscriptions-detail"),
    path("subscriptions/<str:sid>/redeliver", RedeliverView.as_view(), name="subscriptions-redeliver"),
    path("subscriptions/<str:sid>/revalidate", RevalidateView.as_view(), name="subscriptions-revalidate"),
]
