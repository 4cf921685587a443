"""Issue 24 item 3 through the admin over HTTP: every action of every registered admin, run by a staff user who
may only view, is refused and writes nothing (the actions are enumerated from the admin site, so a new one
cannot escape); secrets are write-only: no page of the admin shows a sync source's token, an API token's key,
a subscription's credentials, header or property values, or a sink's password, to a viewer or to a superuser."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth.models import Permission
from django.contrib.sessions.models import Session
from django.urls import reverse
from django.utils import timezone

from registry.governance.actions import admin_actions, undeclared_actions

from .governance_seed import seed

pytestmark = pytest.mark.django_db

SECRETS = {
    "sync token": "synctoken-s3cr3t",
    "sync base URL password": "basepass-s3cr3t",
    "API token key": "0123456789abcdef0123456789abcdef01234567",
    "Authorization header": "authheader-s3cr3t",
    "X-Api-Key header": "apikey-s3cr3t",
    "Cookie header": "cookie-s3cr3t",
    "sink password": "sinkpass-s3cr3t",
    "sink query token": "sinkquery-s3cr3t",
    "MQTT password": "mqttpass-s3cr3t",
    "MQTT user property": "userprop-s3cr3t",
    "AMQP link property": "linkprop-s3cr3t",
    "KEK's KMS credential": "kmsprop-s3cr3t",
    "DEK key material": "ZGVrLWtleS1tYXRlcmlhbC1zM2NyM3Q=",
}
# what an action's intermediate form may ask for (set_compatibility, deprecate): posted so that a second step
# would apply if the action ran
FORM_DATA = {"compatibility": "none", "effective": "", "removal": "", "alternative": "", "docs": "", "apply": "1"}


def seed_everything(owner) -> None:
    """At least one row for every model the admin lists, secrets included."""
    from rest_framework.authtoken.models import Token

    from confluent.dek_models import Dek, Kek
    from pipeline.models import ImportRun
    from registry.models import OutboxEvent
    from subscriptions.models import Delivery, DeliveryAttempt, Subscription
    from sync.models import SyncRun, SyncSource

    seed()
    Token.objects.create(user=owner, key=SECRETS["API token key"])
    http = Subscription.objects.create(
        protocol="HTTP",
        sink=f"https://hook:{SECRETS['sink password']}@127.0.0.1:9/in?token={SECRETS['sink query token']}",
        protocolsettings={
            "method": "POST",
            "headers": {
                "Authorization": f"Bearer {SECRETS['Authorization header']}",
                "X-Api-Key": SECRETS["X-Api-Key header"],
                "Cookie": f"sid={SECRETS['Cookie header']}",
            },
        },
        status=Subscription.Status.ACTIVE,
    )
    Subscription.objects.create(
        protocol="MQTT5",
        sink="mqtt://broker.example:1883",
        protocolsettings={
            "topicname": "t",
            "username": "u",
            "password": SECRETS["MQTT password"],
            "userproperties": {"k": SECRETS["MQTT user property"]},
        },
        status=Subscription.Status.ACTIVE,
    )
    Subscription.objects.create(
        protocol="AMQP",
        sink="amqp://broker.example:5672",
        protocolsettings={"address": "q", "linkproperties": {"p": SECRETS["AMQP link property"]}},
        status=Subscription.Status.ACTIVE,
    )
    now = timezone.now()
    delivery = Delivery.objects.create(
        event=OutboxEvent.objects.first(),
        subscription=http,
        status=Delivery.Status.DEAD,
        attempts=1,
        next_attempt_at=now,
        deadline=now + timedelta(days=1),
        last_status_code=503,
        last_error="HTTP 503 Service Unavailable",
    )
    DeliveryAttempt.objects.create(delivery=delivery, number=1, started_at=now, status_code=503, latency_ms=2.5)
    # port 9 (discard) refuses: a sync run by this source fails, and is recorded all the same
    source = SyncSource.objects.create(
        name="remote",
        base_url=f"http://puller:{SECRETS['sync base URL password']}@127.0.0.1:9",
        token=SECRETS["sync token"],
    )
    SyncRun.objects.create(source=source, status=SyncRun.Status.OK, finished_at=now)
    ImportRun.objects.create(source="demo.cereg", status=ImportRun.Status.DONE, created_by="seed")
    kek = Kek.objects.create(
        name="seed_kek",
        context="confluent",
        kms_type="hcvault",
        kms_key_id="https://vault.example/transit/keys/k",
        kms_props={"token.id": SECRETS["KEK's KMS credential"]},
        ts=1,
    )
    Dek.objects.create(
        kek=kek,
        subject="s",
        algorithm="AES256_GCM",
        version=1,
        encrypted_key_material=SECRETS["DEK key material"],
        ts=1,
    )


def everything() -> dict:
    """Every row of every model (sessions aside: a login writes one), to prove that a request wrote nothing."""
    return {
        model._meta.label: list(model._default_manager.order_by("pk").values())
        for model in apps.get_models()
        if model is not Session and not model._meta.proxy
    }


@pytest.fixture
def viewer(client, django_user_model):
    """A staff user holding every `view_*` permission of every app, and nothing else."""
    user = django_user_model.objects.create_user("viewer", "v@example.com", "pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    client.force_login(user)
    return client


def messages_of(response) -> list[str]:
    listed = re.search(r'<ul class="messagelist">(.*?)</ul>', response.content.decode(), re.S)
    return [m.strip() for m in re.findall(r"<li[^>]*>(.*?)</li>", listed.group(1), re.S)] if listed else []


def offered_actions(response) -> set[str]:
    select = re.search(r'<select name="action"[^>]*>(.*?)</select>', response.content.decode(), re.S)
    return set(re.findall(r'<option value="([^"]+)"', select.group(1))) if select else set()


def test_every_action_of_every_admin_declares_its_permission():
    assert undeclared_actions() == []
    names = {(m.model._meta.label, name) for m, name, _f in admin_actions()}
    # the enumeration sees the actions that a view-only user ran before they declared a permission
    assert {("sync.SyncSource", "sync_now"), ("sync.SyncSource", "subscribe_at_remote")} <= names

    class Undeclared(admin.ModelAdmin):
        actions = ["touch"]

        def touch(self, request, queryset):  # pragma: no cover - never run
            pass

    site = admin.AdminSite(name="probe")
    site.register(apps.get_model("sync", "SyncRun"), Undeclared)
    assert undeclared_actions(site) == ["sync.SyncRun: touch"]


def test_every_action_run_by_a_view_only_user_is_refused_and_writes_nothing(viewer, superuser):
    seed_everything(superuser)
    before = everything()
    ran = []
    for model_admin, name, func in admin_actions():
        opts = model_admin.model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        obj = model_admin.model._default_manager.first()
        assert obj is not None, f"no {opts.label} to select: seed one"
        listed = viewer.get(changelist)
        assert listed.status_code == 200, changelist
        may_read = "view" in getattr(func, "allowed_permissions", ())
        if not may_read:
            assert name not in offered_actions(listed), f"{opts.label}: {name} is offered to a viewer"
        selected = {"action": name, "_selected_action": [quote(obj.pk)]}
        for data in ({**selected, "index": "0"}, {**selected, **FORM_DATA}, {**selected, "post": "yes"}):
            response = viewer.post(changelist, data, follow=not may_read)
            assert response.status_code == 200, (opts.label, name, data)
            if not may_read:
                assert set(messages_of(response)) <= {"No action selected."}, (opts.label, name, messages_of(response))
            assert everything() == before, f"{opts.label}: {name} run by a viewer wrote something"
        ran.append((opts.label, name))
    assert ("sync.SyncSource", "sync_now") in ran and ("catalog.SchemaGroup", "set_compatibility") in ran


def test_a_viewer_cannot_write_through_the_admin_pages_beside_the_actions(viewer, superuser):
    from catalog.models import Schema

    seed_everything(superuser)
    before = everything()
    placed = Schema.objects.get(rid="Placed")
    document = '{"type": "string"}'
    assert viewer.post(reverse("registry-admin-import"), {}).status_code == 403
    viewer.post(
        reverse("admin:catalog_schema_newversion", args=[placed.pk]),
        {"media_type": "application/json", "document": document},
    )
    viewer.post(
        reverse("admin:catalog_schema_document", args=[placed.pk]),
        {"media_type": "application/json", "document": document},
    )
    viewer.post(reverse("admin:catalog_schema_change", args=[placed.pk]), {"description": "mine", "tags": "{}"})
    source = apps.get_model("sync", "SyncSource").objects.get()
    viewer.post(reverse("admin:sync_syncsource_change", args=[source.pk]), {"name": "x", "token": "new"})
    assert everything() == before


def admin_pages() -> list[str]:
    """The changelist of every registered admin and the change page of each of its objects."""
    urls = []
    for model in admin.site._registry:
        opts = model._meta
        urls.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        for obj in model._default_manager.all()[:20]:
            urls.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)]))
    return urls


@pytest.mark.parametrize("who", ["viewer", "superuser"])
def test_no_admin_page_shows_a_secret(who, client, django_user_model, superuser):
    if who == "viewer":
        user = django_user_model.objects.create_user("viewer", "v@example.com", "pw", is_staff=True)
        user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    else:
        user = superuser
    seed_everything(superuser)
    client.force_login(user)
    pages = admin_pages()
    assert any("/syncsource/" in url and url.endswith("/change/") for url in pages)
    assert any("/subscription/" in url and url.endswith("/change/") for url in pages)
    assert any("/tokenproxy/" in url and url.endswith("/change/") for url in pages)
    for url in [*pages, reverse("admin:index")]:
        response = client.get(url)
        assert response.status_code == 200, url
        page = response.content.decode()
        shown = [what for what, secret in SECRETS.items() if secret in page]
        assert not shown, f"{url} shows {shown} to {who}"


def test_sync_token_is_write_only_for_editors(client, superuser, settings):
    from sync.models import SyncSource

    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True  # remote.example does not resolve here (the sink rule asks that)

    client.force_login(superuser)
    url = reverse("admin:sync_syncsource_add")
    form = {
        "name": "r",
        "base_url": "https://remote.example",
        "scope": "registry",
        "path": "",
        "interval_seconds": 60,
        "runs-TOTAL_FORMS": 0,  # the runs inline's management form
        "runs-INITIAL_FORMS": 0,
    }
    response = client.post(url, {**form, "token": "first-token", "enabled": "on"})
    assert response.status_code == 302, response.content.decode()[:3000]
    source = SyncSource.objects.get(name="r")
    assert source.token == "first-token"
    change = reverse("admin:sync_syncsource_change", args=[source.pk])
    page = client.get(change).content.decode()
    assert "first-token" not in page and "set (write-only: not shown)" in page
    client.post(change, {**form, "token": ""})  # a blank field keeps it
    source.refresh_from_db()
    assert source.token == "first-token"
    client.post(change, {**form, "token": "second-token"})
    source.refresh_from_db()
    assert source.token == "second-token"
    client.post(change, {**form, "token": "", "clear_token": "on"})
    source.refresh_from_db()
    assert source.token == ""


def test_a_subscription_edited_as_shown_keeps_its_masked_values(client, superuser, settings):
    import json

    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True  # the seeded sink is on the loopback
    from subscriptions.models import Subscription

    seed_everything(superuser)
    client.force_login(superuser)
    subscription = Subscription.objects.get(protocol="HTTP")
    stored = subscription.protocolsettings
    url = reverse("admin:subscriptions_subscription_change", args=[subscription.pk])
    form = client.get(url).context["form"]
    shown = form.initial["protocolsettings"]
    assert shown["headers"] == {"X-Api-Key": "***", "Cookie": "***"}  # Authorization: a credential, not shown
    data = {name: form[name].value() for name in form.fields}
    data["protocolsettings"] = json.dumps({**shown, "headers": {**shown["headers"], "X-Trace": "on"}})
    data["filters"], data["config"] = json.dumps(form.initial["filters"]), json.dumps(form.initial["config"])
    data = {k: "" if v is None else v for k, v in data.items()}
    response = client.post(url, data)
    assert response.status_code == 302, re.findall(r"<ul class=.errorlist.*?</ul>", response.content.decode(), re.S)
    subscription.refresh_from_db()
    assert subscription.protocolsettings["headers"] == {**stored["headers"], "X-Trace": "on"}
    assert subscription.sink == Subscription.objects.get(pk=subscription.pk).sink
    assert SECRETS["sink password"] in subscription.sink  # the masked sink posted back kept the stored one
