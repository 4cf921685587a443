"""Delivery health: the last 24 hours of deliveries per hour (delivered, retried, dead-lettered), for the
dashboard and for each subscription's admin page, drawn as inline SVG on the server.

What is counted, from the delivery records (subscriptions/models.py, written by delivery/attempts.py):
- delivered: deliveries whose `delivered_at` falls in the hour;
- retried: attempts after a delivery's first one (`DeliveryAttempt.number >= 2`) started in the hour;
- dead-lettered: dead deliveries, at their last attempt's start (or, for one dead-lettered without an attempt
  because its subscription was disabled or its time to live ran out, the time it was due).

The chart is hand-written SVG (about sixty lines): three bar series over 24 slots need no charting library,
no JavaScript and no extra dependency, and the page stays one server-rendered response.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db.models import Count, F, Max, Q
from django.db.models.functions import Coalesce, TruncHour
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from .models import Delivery, DeliveryAttempt

HOURS = 24
SERIES = (("delivered", "#2e8540"), ("retried", "#e08a00"), ("dead", "#ba2121"))


@dataclass
class Hour:
    start: datetime
    delivered: int = 0
    retried: int = 0
    dead: int = 0


def delivery_health(subscription=None, now: datetime | None = None) -> list[Hour]:
    """The last HOURS hours, oldest first, the current (partial) hour last; for one subscription or all."""
    now = now or timezone.now()
    end = now.astimezone(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    start = end - timedelta(hours=HOURS)
    hours = [Hour(start + timedelta(hours=i)) for i in range(HOURS)]

    def slot(moment: datetime) -> Hour | None:
        index = int((moment - start).total_seconds() // 3600)
        return hours[index] if 0 <= index < HOURS else None

    deliveries = Delivery.objects.all() if subscription is None else Delivery.objects.filter(subscription=subscription)
    attempts = (
        DeliveryAttempt.objects.all()
        if subscription is None
        else DeliveryAttempt.objects.filter(delivery__subscription=subscription)
    )
    delivered = (
        deliveries.filter(status=Delivery.Status.DELIVERED, delivered_at__gte=start, delivered_at__lt=end)
        .annotate(hour=TruncHour("delivered_at", tzinfo=UTC))
        .values("hour")
        .annotate(n=Count("id"))
        .order_by()
    )
    for row in delivered:
        if (hour := slot(row["hour"])) is not None:
            hour.delivered += row["n"]
    retried = (
        attempts.filter(number__gte=2, started_at__gte=start, started_at__lt=end)
        .annotate(hour=TruncHour("started_at", tzinfo=UTC))
        .values("hour")
        .annotate(n=Count("id"))
        .order_by()
    )
    for row in retried:
        if (hour := slot(row["hour"])) is not None:
            hour.retried += row["n"]
    # only dead letters with an attempt (or, without one, a due time) in the window are aggregated
    recent = Q(attempt_log__started_at__gte=start) | Q(attempt_log__isnull=True, next_attempt_at__gte=start)
    dead = (
        deliveries.filter(recent, status=Delivery.Status.DEAD)
        .annotate(at=Coalesce(Max("attempt_log__started_at"), F("next_attempt_at")))
        .filter(at__gte=start, at__lt=end)
        .values_list("at", flat=True)
    )
    for moment in dead:
        if (hour := slot(moment)) is not None:
            hour.dead += 1
    return hours


def num(value: float) -> str:
    return f"{value:.1f}"  # format_html escapes its arguments into strings: numbers are formatted first


def health_svg(hours: list[Hour], html_id: str = "delivery-health") -> SafeString:
    """Grouped bars per hour (delivered, retried, dead-lettered), an hour label every three hours, the tallest
    bar's count on the axis and a legend with the totals; each hour is a <g> with its counts in data-
    attributes and a tooltip."""
    width, height, left, bottom, top = 760, 200, 36, 24, 22
    slot = (width - left - 8) / len(hours)
    bar = (slot - 4) / len(SERIES)
    peak = max([1] + [getattr(h, name) for h in hours for name, _c in SERIES])
    plot = height - bottom - top

    def bars(index: int, hour: Hour):
        x0 = left + index * slot + 2
        rects = format_html_join(
            "",
            "<rect class='{}' x='{}' y='{}' width='{}' height='{}' fill='{}'/>",
            (
                (
                    name,
                    num(x0 + k * bar),
                    num(top + plot - getattr(hour, name) * plot / peak),
                    num(bar),
                    num(getattr(hour, name) * plot / peak),
                    color,
                )
                for k, (name, color) in enumerate(SERIES)
            ),
        )
        label = (
            format_html(
                "<text x='{}' y='{}' font-size='10' text-anchor='middle'>{}</text>",
                num(x0 + slot / 2 - 2),
                height - 8,
                hour.start.strftime("%H:00"),
            )
            if index % 3 == 0
            else ""
        )
        until = (hour.start + timedelta(hours=1)).strftime("%H:00")
        return (
            hour.start.strftime("%Y-%m-%dT%H:00Z"),
            hour.delivered,
            hour.retried,
            hour.dead,
            hour.start.strftime("%H:00"),
            until,
            hour.delivered,
            hour.retried,
            hour.dead,
            rects,
            label,
        )

    groups = format_html_join(
        "",
        "<g class='hour' data-hour='{}' data-delivered='{}' data-retried='{}' "
        "data-dead='{}'><title>{}-{} UTC: {} delivered, {} retried, {} dead-lettered"
        "</title>{}{}</g>",
        (bars(i, h) for i, h in enumerate(hours)),
    )
    totals = {name: sum(getattr(h, name) for h in hours) for name, _c in SERIES}
    legend = format_html_join(
        "",
        "<rect x='{}' y='4' width='10' height='10' fill='{}'/>"
        "<text x='{}' y='13' font-size='11' class='legend-{}'>{} {}</text>",
        (
            (
                left + k * 170,
                color,
                left + k * 170 + 14,
                name,
                totals[name],
                "dead-lettered" if name == "dead" else name,
            )
            for k, (name, color) in enumerate(SERIES)
        ),
    )
    return format_html(
        "<svg id='{}' xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' viewBox='0 0 {} {}' role='img' "
        "aria-label='deliveries per hour, last 24 hours'>{}"
        "<line x1='{}' y1='{}' x2='{}' y2='{}' stroke='#999'/>"
        "<text x='{}' y='{}' font-size='10' text-anchor='end'>{}</text>"
        "<text x='{}' y='{}' font-size='10' text-anchor='end'>0</text>{}</svg>",
        html_id,
        width,
        height,
        width,
        height,
        legend,
        left,
        top + plot,
        width - 8,
        top + plot,
        left - 4,
        top + 8,
        peak,
        left - 4,
        top + plot,
        groups,
    )


def dashboard_panel(user) -> dict:
    """The dashboard's health chart of every subscription's deliveries."""
    return {"svg": health_svg(delivery_health())}
