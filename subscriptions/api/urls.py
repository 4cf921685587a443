"""Routes of the Subscriptions API."""
from django.urls import path

from .views import SubscriptionCollectionView, SubscriptionView

urlpatterns = [
    path("subscriptions", SubscriptionCollectionView.as_view(), name="subscriptions-list"),
    path("subscriptions/<str:sid>", SubscriptionView.as_view(), name="subscriptions-detail"),
]
