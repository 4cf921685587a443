"""Delivery health (subscriptions/health.py): counts per hour from the delivery records, drawn as SVG on the
dashboard and on each subscription's admin page."""

import re

import pytest
from django.urls import reverse

from subscriptions.health import HOURS, delivery_health

from .health_seed import seed_deliveries

pytestmark = pytest.mark.django_db


def chart_counts(html: str, html_id: str) -> dict:
    """{hour: (delivered, retried, dead)} of the hours with anything, read from the SVG's data attributes."""
    svg = html.split(f"<svg id='{html_id}'", 1)[1].split("</svg>", 1)[0]
    found = re.findall(r"data-hour='([^']+)' data-delivered='(\d+)' data-retried='(\d+)' data-dead='(\d+)'", svg)
    assert len(found) == HOURS
    return {hour: tuple(map(int, counts)) for hour, *counts in found if counts != ["0", "0", "0"]}


def test_counts_per_hour():
    subscription, mine, everyone = seed_deliveries()
    hours = delivery_health(subscription)
    assert len(hours) == HOURS
    got = {
        h.start.strftime("%Y-%m-%dT%H:00Z"): (h.delivered, h.retried, h.dead)
        for h in hours
        if (h.delivered, h.retried, h.dead) != (0, 0, 0)
    }
    assert got == mine
    got = {
        h.start.strftime("%Y-%m-%dT%H:00Z"): (h.delivered, h.retried, h.dead)
        for h in delivery_health()
        if (h.delivered, h.retried, h.dead) != (0, 0, 0)
    }
    assert got == everyone


def test_chart_on_dashboard_and_subscription_page(client, django_user_model):
    subscription, mine, everyone = seed_deliveries()
    client.force_login(django_user_model.objects.create_superuser("gov", "g@example.com", "pw"))
    page = client.get(reverse("admin:index")).content.decode()
    assert chart_counts(page, "delivery-health") == everyone
    assert "4 delivered" in page and "4 retried" in page and "2 dead-lettered" in page  # the legend's totals
    page = client.get(reverse("admin:subscriptions_subscription_change", args=[subscription.pk])).content.decode()
    assert chart_counts(page, "subscription-health") == mine


def test_empty_chart():
    hours = delivery_health()
    assert [(h.delivered, h.retried, h.dead) for h in hours] == [(0, 0, 0)] * HOURS
