"""Confluent's config and mode become attributes of the schema group or schema they describe (confluent/attributes.py,
CONTRACT.md section 19): the rows of the `Setting` table, keyed by a scope string, outlived the group they named (a
group deleted and made again by another team took the old level and mode). Each row moves onto its entity:

- a context's mode (`:.G:`) -> the group G's `confluentmode`;
- a subject's mode (`:.G:S`) -> the schema's `confluentmode`, when the schema exists (the level of an existing
  subject was already the schema's `compatibility`; a level left in the row for it applied to nothing and is dropped);
- the settings of a subject without a schema -> the entry S (its schema id) of G's `confluentpending`;
- the global mode (scope "") applied to every context: every schema group that sets no mode of its own gets it, so
  that what applied still applies (READWRITE, the default, is not copied);
- a row whose group no longer exists is dropped.

Each entity changed gets epoch + 1 and a new modification time, and the change marker moves, so that no kept
rendering serves it as it was; no change event and no audit row (the registry's content is what it was, in the
place every binding reads). The way back puts the attributes into rows again (the global mode: the default
context's group's).
"""

from urllib.parse import quote, unquote

from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

GROUPS, SCHEMAS = "schemaGroups", "schemas"
MODE, PENDING = "confluentmode", "confluentpending"
SAFE = "-._~!$&'()*+,;=@"  # confluent.subjects.SAFE as it was when this was written


def _split(scope: str) -> tuple[str, str] | None:
    """":.G:S" -> (G, S); S is "" for a context."""
    if not scope.startswith(":."):
        return None
    gid, sep, rest = scope[2:].partition(":")
    return (gid, rest) if sep else None


def move_settings(apps, schema_editor):
    Setting = apps.get_model("confluent", "Setting")
    Group = apps.get_model("registry", "Group")
    Resource = apps.get_model("registry", "Resource")
    groups, resources, changed = {}, {}, {}

    def group(gid):
        if gid not in groups:
            groups[gid] = Group.objects.filter(group_type=GROUPS, gid=gid).first()
        return groups[gid]

    global_mode = None
    for row in Setting.objects.order_by("scope"):
        if row.scope == "":
            global_mode = row.mode
            continue
        parts = _split(row.scope)
        if parts is None:
            continue
        found = group(parts[0])
        if found is None:
            continue
        gid, rest = parts
        if rest == "":
            if row.mode:
                found.extensions = {**found.extensions, MODE: row.mode}
                changed[("g", found.pk)] = found
            continue
        rid = quote(rest, safe=SAFE)
        key = (found.pk, rid)
        if key not in resources:
            resources[key] = Resource.objects.filter(group=found, resource_type=SCHEMAS, rid=rid).first()
        resource = resources[key]
        if resource is not None:
            if row.mode:
                resource.extensions = {**resource.extensions, MODE: row.mode}
                changed[("r", resource.pk)] = resource
            continue
        entry = {k: v for k, v in (("compatibility", row.compatibility), (MODE, row.mode)) if v}
        if entry:
            pending = dict(found.extensions.get(PENDING) or {})
            pending[rid] = entry
            found.extensions = {**found.extensions, PENDING: pending}
            changed[("g", found.pk)] = found
    if global_mode and global_mode != "READWRITE":
        for found in Group.objects.filter(group_type=GROUPS):
            found = groups.get(found.gid) or found
            if not found.extensions.get(MODE):
                found.extensions = {**found.extensions, MODE: global_mode}
                changed[("g", found.pk)] = found
    _saved(apps, changed.values())


def _saved(apps, entities) -> None:
    now = timezone.now()
    entities = list(entities)
    for entity in entities:
        entity.epoch += 1
        entity.modified_on = now
        entity.save(update_fields=["extensions", "epoch", "modified_on"])
    if entities:
        ChangeCount = apps.get_model("registry", "ChangeCount")
        row = ChangeCount.objects.order_by("pk").first()
        if row is None:
            ChangeCount.objects.create(changes=1, changed_at=now)
        else:
            ChangeCount.objects.filter(pk=row.pk).update(changes=models.F("changes") + 1, changed_at=now)


def move_back(apps, schema_editor):
    Setting = apps.get_model("confluent", "Setting")
    Group = apps.get_model("registry", "Group")
    Resource = apps.get_model("registry", "Resource")
    default = settings.REGISTRY_CONFLUENT_GROUP
    rows: dict = {}
    changed: list = []
    for found in Group.objects.filter(group_type=GROUPS):
        extensions = dict(found.extensions)
        mode, pending = extensions.pop(MODE, None), extensions.pop(PENDING, None)
        if mode:
            rows.setdefault("" if found.gid == default else f":.{found.gid}:", {})["mode"] = mode
        for rid, entry in (pending or {}).items():
            rows[f":.{found.gid}:{unquote(rid)}"] = {"mode": entry.get(MODE), "compatibility": entry.get("compatibility")}
        if extensions != found.extensions:
            found.extensions = extensions
            changed.append(found)
    for resource in Resource.objects.filter(group__group_type=GROUPS, resource_type=SCHEMAS).select_related("group"):
        if MODE in resource.extensions:
            extensions = dict(resource.extensions)
            rows[f":.{resource.group.gid}:{unquote(resource.rid)}"] = {"mode": extensions.pop(MODE)}
            resource.extensions = extensions
            changed.append(resource)
    for scope, values in rows.items():
        Setting.objects.create(scope=scope, **values)
    _saved(apps, changed)


class Migration(migrations.Migration):
    dependencies = [
        ("confluent", "0002_references_attribute"),
        ("registry", "0013_highest_numeric_vid"),
    ]

    operations = [
        migrations.RunPython(move_settings, move_back),
        migrations.DeleteModel(name="Setting"),
    ]
