"""The governance UI through Django's test client: every screen renders, writes go through the services
(validation next to the field, epoch conflicts, events), governance actions and roles."""

import json

import pytest
from django.contrib.auth.models import Group as Role
from django.urls import reverse

from catalog.models import Schema, SchemaGroup
from registry.documents.exports import export_document
from registry.models import Group, OutboxEvent, Version
from tests.corpus import corpus

pytestmark = pytest.mark.django_db
V1 = {"type": "object", "properties": {"id": {"type": "string"}}}


def make_schema(editor):
    editor.post(reverse("admin:catalog_schemagroup_add"), {"gid": "orders", "tags": "{}", "attributes": "{}"})
    group = Group.objects.get(gid="orders")
    response = editor.post(
        reverse("admin:catalog_schema_add"),
        {
            "group": group.pk,
            "rid": "Placed",
            "format": "JsonSchema/draft-07",
            "media_type": "application/json",
            "document": json.dumps(V1),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return Schema.objects.get(rid="Placed")


def test_every_list_renders(editor):
    editor.post("/", corpus("seed-shape", "contoso-erp-jsons07.cereg").read_bytes(), content_type="application/json")
    for name in (
        "catalog_schemagroup",
        "catalog_schema",
        "catalog_schemaversion",
        "catalog_definitiongroup",
        "catalog_definition",
        "endpoints_endpoint",
        "subscriptions_subscription",
        "subscriptions_delivery",
        "registry_outboxevent",
        "pipeline_importrun",
        "sync_syncsource",
    ):
        response = editor.get(reverse(f"admin:{name}_changelist"))
        assert response.status_code == 200, name
    index = editor.get(reverse("admin:index")).content.decode()
    assert "registry-dashboard" in index and "Recent changes" in index and "Failing subscriptions" in index
    assert editor.get(reverse("admin:endpoints_endpoint_changelist") + "?protocol=HTTP").status_code == 200
    assert editor.get(reverse("admin:catalog_schema_changelist") + "?q=Order").status_code == 200


def test_group_form_writes_through_services_and_shows_errors(editor):
    response = editor.post(
        reverse("admin:catalog_definitiongroup_add"), {"gid": "d", "tags": "{}", "attributes": "{}", "format": "nope"}
    )
    assert response.status_code == 200 and "must be NAME/VERSION" in response.content.decode()
    assert not Group.objects.filter(gid="d").exists()
    response = editor.post(
        reverse("admin:catalog_schemagroup_add"), {"gid": "bad id", "tags": "{}", "attributes": "{}"}
    )
    assert "not allowed in an id" in response.content.decode()
    response = editor.post(reverse("admin:catalog_schemagroup_add"), {"gid": "g", "tags": "[1", "attributes": "{}"})
    assert "not valid JSON" in response.content.decode()
    editor.post(reverse("admin:catalog_schemagroup_add"), {"gid": "g", "tags": '{"owner": "a"}', "attributes": "{}"})
    group = SchemaGroup.objects.get(gid="g")
    assert OutboxEvent.objects.filter(subject="/schemaGroups/g").count() == 1
    url = reverse("admin:catalog_schemagroup_change", args=[group.pk])
    stale = {"gid": "g", "description": "mine", "tags": "{}", "attributes": "{}", "epoch": 1}
    editor.post(url, {**stale, "description": "theirs"})
    response = editor.post(url, stale)
    assert "Someone else saved this meanwhile" in response.content.decode()
    assert "mine" in response.content.decode()  # the edit is still on screen
    group.refresh_from_db()
    assert group.description == "theirs" and group.epoch == 2


def test_versions_compare_and_incompatible_version(editor):
    schema = make_schema(editor)
    new_version = reverse("admin:catalog_schema_newversion", args=[schema.pk])
    v2 = {"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"}}}
    assert editor.post(new_version, {"media_type": "application/json", "document": json.dumps(v2)}).status_code == 302
    bad = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    response = editor.post(new_version, {"media_type": "application/json", "document": json.dumps(bad)})
    page = response.content.decode()
    assert response.status_code == 200 and "properties.id" in page and "type string in the old schema" in page
    assert Version.objects.filter(resource=schema).count() == 2
    change = editor.get(reverse("admin:catalog_schema_change", args=[schema.pk])).content.decode()
    assert "History" in change and "registry-doc" in change and "compare-form" in change
    compare = editor.get(reverse("admin:catalog_schema_compare", args=[schema.pk]) + "?a=1&b=2").content.decode()
    assert "diff_add" in compare and "compatible" in compare
    version = Version.objects.get(resource=schema, vid="1")
    page = editor.get(reverse("admin:catalog_schemaversion_change", args=[version.pk])).content.decode()
    assert "Create a new version from this one" in page


def test_set_compatibility_is_recorded(editor):
    schema = make_schema(editor)
    changelist = reverse("admin:catalog_schema_changelist")
    response = editor.post(changelist, {"action": "set_compatibility", "_selected_action": [schema.pk]})
    assert response.status_code == 200 and "Set compatibility" in response.content.decode()
    editor.post(
        changelist,
        {"action": "set_compatibility", "_selected_action": [schema.pk], "apply": "1", "compatibility": "none"},
    )
    latest = Schema.objects.get(pk=schema.pk).latest
    assert latest.extensions["compatibility"] == "none" and latest.modified_by == "gov"
    assert OutboxEvent.objects.filter(subject="/schemaGroups/orders/schemas/Placed").count() == 2
    groups = reverse("admin:catalog_schemagroup_changelist")
    editor.post(
        groups,
        {"action": "set_compatibility", "_selected_action": [schema.group_id], "apply": "1", "compatibility": "full"},
    )
    group = SchemaGroup.objects.get(pk=schema.group_id)
    assert group.extensions["compatibility"] == "full" and group.modified_by == "gov" and group.epoch == 2
    assert OutboxEvent.objects.filter(subject="/schemaGroups/orders").count() == 2
    page = editor.get(reverse("admin:catalog_schemagroup_change", args=[group.pk])).content.decode()
    assert "group-resources" in page and reverse("admin:catalog_schema_change", args=[schema.pk]) in page


def test_deprecate_endpoint(editor):
    editor.post("/", corpus("seed-shape", "contoso-erp-jsons07.cereg").read_bytes(), content_type="application/json")
    endpoint = Group.objects.filter(group_type="endpoints").first()
    changelist = reverse("admin:endpoints_endpoint_changelist")
    editor.post(
        changelist,
        {
            "action": "deprecate",
            "_selected_action": [endpoint.pk],
            "apply": "1",
            "effective": "2030-01-01 00:00:00",
            "removal": "2031-01-01 00:00:00",
            "alternative": "https://example.com/endpoints/new",
        },
    )
    endpoint.refresh_from_db()
    assert endpoint.extensions["deprecated"] == {
        "effective": "2030-01-01T00:00:00Z",
        "removal": "2031-01-01T00:00:00Z",
        "alternative": "https://example.com/endpoints/new",
    }
    assert endpoint.epoch == 2
    assert editor.get(changelist + "?deprecated=yes").context["cl"].result_count == 1


def test_import_and_export(editor):
    with corpus("seed-shape", "lightbulb-avro.cereg").open("rb") as upload:
        page = editor.post(reverse("registry-admin-import"), {"document": upload}).content.decode()
    assert "import-report" in page and "created" in page
    assert SchemaGroup.objects.filter(gid="Fabrikam.Lumen").exists()
    with corpus("invalid", "contoso-crm.cereg").open("rb") as upload:
        page = editor.post(reverse("registry-admin-import"), {"document": upload}).content.decode()
    assert "Nothing was imported" in page and "schemaformat" in page
    export = editor.get(reverse("registry-admin-export"))
    assert json.loads(b"".join(export.streaming_content))["schemaGroups"]["Fabrikam.Lumen"]  # a group at a time


def test_the_export_action_writes_the_selected_groups(editor):
    """The action reads the selected groups only (it built the document of every group of the type, then kept the
    selection: at a million versions, all of them for one group); the document is the whole-type export's part."""
    with corpus("seed-shape", "lightbulb-avro.cereg").open("rb") as upload:
        editor.post(reverse("registry-admin-import"), {"document": upload})
    editor.put("/schemaGroups/other", data="{}", content_type="application/json")  # (a second group, not selected)
    chosen = SchemaGroup.objects.get(gid="Fabrikam.Lumen")
    answer = editor.post(
        reverse("admin:catalog_schemagroup_changelist"),
        {"action": "export_document", "_selected_action": [chosen.pk]},
    )
    assert answer.status_code == 200 and answer["Content-Disposition"] == 'attachment; filename="schemaGroups.cereg"'
    whole = export_document("schemaGroups")
    assert set(whole["schemaGroups"]) >= {"Fabrikam.Lumen", "other"}
    assert json.loads(b"".join(answer.streaming_content)) == {
        **whole,
        "schemaGroups": {"Fabrikam.Lumen": whole["schemaGroups"]["Fabrikam.Lumen"]},
    }


def test_the_whole_export_is_refused_above_the_whole_registry_limit(editor, settings):
    """The admin's "Export the whole registry" built the document of every version in the worker: above
    REGISTRY_MAX_INLINE_ENTITIES it is refused, as the API's whole-registry answers are, naming the other ways."""
    with corpus("seed-shape", "lightbulb-avro.cereg").open("rb") as upload:
        editor.post(reverse("registry-admin-import"), {"document": upload})
    settings.REGISTRY_MAX_INLINE_ENTITIES = 2
    before = OutboxEvent.objects.count()
    answer = editor.get(reverse("registry-admin-export"), follow=True)
    page = answer.content.decode()
    assert answer.redirect_chain == [(reverse("admin:index"), 302)], answer.redirect_chain
    assert "Not exported:" in page and "REGISTRY_MAX_INLINE_ENTITIES" in page and "export_registry" in page, page
    assert OutboxEvent.objects.count() == before
    settings.REGISTRY_MAX_INLINE_ENTITIES = 100_000
    export = editor.get(reverse("registry-admin-export"))
    assert json.loads(b"".join(export.streaming_content))["schemaGroups"]["Fabrikam.Lumen"]


def test_viewer_can_browse_not_edit(client, django_user_model):
    viewer = django_user_model.objects.create_user("viewer", "v@example.com", "pw", is_staff=True)
    from django.contrib.auth.models import Permission

    from registry.access.roles import VIEWERS, ensure_roles

    ensure_roles(Role, Permission)  # idempotent: what the migration created, in case a flush removed it
    viewer.groups.add(Role.objects.get(name=VIEWERS))
    client.force_login(viewer)
    SchemaGroup.objects.create(
        group_type="schemaGroups", gid="ro", created_on="2026-01-01T00:00:00Z", modified_on="2026-01-01T00:00:00Z"
    )
    group = SchemaGroup.objects.get(gid="ro")
    assert client.get(reverse("admin:catalog_schemagroup_changelist")).status_code == 200
    page = client.get(reverse("admin:catalog_schemagroup_change", args=[group.pk])).content.decode()
    assert 'name="_save"' not in page and "readonly" in page
    client.post(
        reverse("admin:catalog_schemagroup_change", args=[group.pk]),
        {"gid": "ro", "description": "hacked", "tags": "{}", "attributes": "{}"},
    )
    group.refresh_from_db()
    assert group.description is None
    assert client.get(reverse("admin:catalog_schemagroup_add")).status_code in (200, 403)
    assert client.get(reverse("registry-admin-import")).status_code == 403


def test_document_editor_checks_json_and_keeps_bytes_when_unchanged(editor):
    schema = make_schema(editor)
    new_version = reverse("admin:catalog_schema_newversion", args=[schema.pk])
    page = editor.get(new_version).content.decode()
    assert "&quot;properties&quot;: {\n" in page  # the editor starts from the latest version, pretty-printed
    response = editor.post(new_version, {"media_type": "application/json", "document": '{"type": "object",'})
    page = response.content.decode()
    assert response.status_code == 200 and "not valid JSON" in page and "errors field-document" in page
    assert Version.objects.filter(resource=schema).count() == 1
    document = reverse("admin:catalog_schema_document", args=[schema.pk])
    version = Version.objects.get(resource=schema, vid="1")
    stored, events = bytes(version.content), OutboxEvent.objects.count()
    response = editor.post(
        document, {"media_type": "application/json", "epoch": 1, "document": json.dumps(V1, indent=2)}
    )
    assert response.status_code == 302
    version.refresh_from_db()
    assert bytes(version.content) == stored and version.epoch == 1 and OutboxEvent.objects.count() == events
    changed = {**V1, "description": "placed orders"}
    assert (
        editor.post(
            document, {"media_type": "application/json", "epoch": 1, "document": json.dumps(changed)}
        ).status_code
        == 302
    )
    version.refresh_from_db()
    assert version.epoch == 2 and json.loads(bytes(version.content)) == changed
    stale = editor.post(document, {"media_type": "application/json", "epoch": 1, "document": json.dumps(V1)})
    assert "Someone else saved this meanwhile" in stale.content.decode()


def test_metadata_tags_and_filters(editor):
    schema = make_schema(editor)
    change = reverse("admin:catalog_schema_change", args=[schema.pk])
    response = editor.post(
        change, {"name": "Placed", "tags": '{"owner": "team-orders"}', "format": "JsonSchema/draft-07", "epoch": 1}
    )
    assert response.status_code == 302
    latest = Schema.objects.get(pk=schema.pk).latest
    assert latest.tags == {"owner": "team-orders"} and latest.modified_by == "gov" and latest.epoch == 2
    response = editor.post(change, {"tags": '{"Bad Key": "x"}', "format": "JsonSchema/draft-07", "epoch": 2})
    assert "errors field-tags" in response.content.decode()
    schemas = reverse("admin:catalog_schema_changelist")
    assert editor.get(schemas + "?owner=team-orders").context["cl"].result_count == 1
    assert editor.get(schemas + "?owner=nobody").context["cl"].result_count == 0
    assert editor.get(schemas + "?tag=owner%3Dteam-orders").context["cl"].result_count == 1
    assert editor.get(schemas + "?format=JsonSchema%2Fdraft-07").context["cl"].result_count == 1
    groups = reverse("admin:catalog_schemagroup_changelist")
    editor.post(
        reverse("admin:catalog_schemagroup_add"), {"gid": "owned", "tags": '{"owner": "a"}', "attributes": "{}"}
    )
    assert editor.get(groups + "?tag=owner%3Da").context["cl"].result_count == 1
    page = editor.get(reverse("admin:catalog_schema_compare", args=[schema.pk]) + "?a=1&b=1").content.decode()
    assert "compare-form" in page and "the schema&#x27;s level: backward_transitive" in page


def test_deprecation_removal_before_effective_is_refused(editor):
    editor.post("/", corpus("seed-shape", "contoso-erp-jsons07.cereg").read_bytes(), content_type="application/json")
    endpoint = Group.objects.filter(group_type="endpoints").first()
    response = editor.post(
        reverse("admin:endpoints_endpoint_changelist"),
        {
            "action": "deprecate",
            "_selected_action": [endpoint.pk],
            "apply": "1",
            "effective": "2031-01-01 00:00:00",
            "removal": "2030-01-01 00:00:00",
        },
    )
    assert "cannot come before" in response.content.decode()
    endpoint.refresh_from_db()
    assert "deprecated" not in endpoint.extensions and endpoint.epoch == 1
    changelist = reverse("admin:endpoints_endpoint_changelist")
    assert editor.get(changelist + "?owner=nobody").status_code == 200
    editor.post(changelist, {"action": "deprecate", "_selected_action": [endpoint.pk], "apply": "1"})
    endpoint.refresh_from_db()
    assert endpoint.extensions["deprecated"]["effective"].endswith("Z")  # empty effective: now


def test_subscriptions_are_written_through_the_services(editor, settings):
    from registry.services import WriteContext
    from subscriptions.models import Subscription
    from subscriptions.services import create_subscription

    add = reverse("admin:subscriptions_subscription_add")
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = False
    body = {
        "protocol": "MQTT3",
        "sink": "mqtt://127.0.0.1:1883",
        "protocolsettings": '{"topicname": "t"}',
        "filters": "[]",
        "config": "{}",
    }
    page = editor.post(add, body).content.decode()
    assert "errors field-sink" in page and not Subscription.objects.exists()
    page = editor.post(add, {**body, "filters": '[{"nope": {}}]'}).content.decode()
    assert "errors field-filters" in page
    settings.REGISTRY_ALLOW_PRIVATE_SINKS = True
    assert editor.post(add, body).status_code == 302
    assert Subscription.objects.get().protocolsettings["qos"] == 1  # defaults filled in by the service

    secret = create_subscription(
        data={
            "protocol": "MQTT3",
            "sink": "mqtt://127.0.0.1:1883",
            "protocolsettings": {"topicname": "s", "password": "hunter2"},
        },
        ctx=WriteContext(user="api"),
    )
    change = reverse("admin:subscriptions_subscription_change", args=[secret.pk])
    page = editor.get(change).content.decode()
    assert "hunter2" not in page and "subscription-status" in page
    seen = editor.get(change).context["form"].initial["seen"]
    response = editor.post(
        change, {**body, "protocolsettings": '{"topicname": "renamed"}', "seen": seen, "max_attempts": "5"}
    )
    assert response.status_code == 302
    secret.refresh_from_db()
    assert secret.protocolsettings["password"] == "hunter2" and secret.protocolsettings["topicname"] == "renamed"
    assert secret.max_attempts == 5
    page = editor.post(change, {**body, "seen": seen}).content.decode()
    assert "Someone else saved this meanwhile" in page
    assert editor.get(reverse("admin:subscriptions_deliveryattempt_changelist")).status_code == 200


def test_dashboard_counts_and_roles():
    from django.contrib.auth.models import Permission

    from registry.access.roles import EDITORS, VIEWERS, ensure_roles

    ensure_roles(Role, Permission)
    viewers = set(Role.objects.get(name=VIEWERS).permissions.values_list("codename", flat=True))
    editors = set(Role.objects.get(name=EDITORS).permissions.values_list("codename", flat=True))
    assert viewers and all(c.startswith("view_") for c in viewers)
    for codename in (
        "add_group",
        "change_group",
        "delete_group",
        "view_schemagroup",
        "change_schema",
        "change_endpoint",
        "change_subscription",
        "change_delivery",
        "view_outboxevent",
    ):
        assert codename in editors, codename
    assert "view_schemaversion" in viewers and "change_schemaversion" not in viewers


def test_dashboard_shows_counts_and_recent_changes(editor):
    make_schema(editor)
    page = editor.get(reverse("admin:index")).content.decode()
    assert "<strong>1</strong> schema groups" in page and "<strong>1</strong> schemas" in page
    assert "/schemaGroups/orders/schemas/Placed/versions/1" in page


def test_admin_writes_keep_djangos_history(editor):
    """The service forms log to Django's admin history like any admin (the dashboard's recent actions show who added
    and changed what), and the object's History page shows the audit trail; a refused write logs nothing."""
    from django.contrib.admin.models import LogEntry

    editor.post(reverse("admin:catalog_schemagroup_add"), {"gid": "g", "tags": "{}", "attributes": "{}"})
    group = SchemaGroup.objects.get(gid="g")
    url = reverse("admin:catalog_schemagroup_change", args=[group.pk])
    editor.post(url, {"gid": "g", "description": "orders", "tags": "{}", "attributes": "{}", "epoch": 1})
    editor.post(url, {"gid": "g", "description": "stale", "tags": "{}", "attributes": "{}", "epoch": 1})  # refused
    entries = list(LogEntry.objects.order_by("action_time").values_list("action_flag", "object_repr", "user__username"))
    assert entries == [(1, str(group), "gov"), (2, str(group), "gov")]
    # the History page is the audit trail (registry/governance/history.py): the same two writes, through the admin
    history = editor.get(reverse("admin:catalog_schemagroup_history", args=[group.pk])).content.decode()
    rows = history.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert rows.count('class="audit-') == 2 and "audit-create" in rows and "audit-update" in rows, rows
    assert rows.count("<td>admin</td>") == 2 and "gov" in rows, rows
