"""Entity tables of the registry: groups, resources, versions, the registry entity's own state, and the outbox of
change events.

Ids keep the case they were given and are unique within their parent irrespective of case (enforced by
functional unique constraints on `Lower(id)`). Extension attributes live in `extensions` (JSON) and are
validated by the group or resource type's hook before any write. Version ids are assigned per resource
from `Resource.version_counter`: there is no global counter row. `RegistryState` is the registry entity's one row,
written only when a group is added or removed. `ChangeCount` holds the change marker's counts
(registry/store/change_marker.py). `AuditRecord` is the audit trail: one row per committed change (registry/store/audit.py).
"""

import uuid

from django.db import models
from django.db.models.functions import Lower


class Entity(models.Model):
    """The common attributes of groups, resources and versions."""

    name = models.TextField(null=True, blank=True)
    description = models.TextField(null=True, blank=True)
    tags = models.JSONField(default=dict, blank=True)
    docs = models.TextField(null=True, blank=True)
    extensions = models.JSONField(default=dict, blank=True)
    created_by = models.CharField(max_length=150, null=True, blank=True)
    created_on = models.DateTimeField()
    modified_by = models.CharField(max_length=150, null=True, blank=True)
    modified_on = models.DateTimeField()

    class Meta:
        abstract = True


class Group(Entity):
    """A group of a registered group type (`/schemaGroups/gID`)."""

    group_type = models.CharField(max_length=64)
    gid = models.CharField("id", max_length=128)
    epoch = models.PositiveBigIntegerField(default=1)
    origin = models.TextField(null=True, blank=True, help_text="the registry this group is synced from")

    class Meta:
        ordering = ["group_type", "gid"]
        constraints = [
            models.UniqueConstraint("group_type", Lower("gid"), name="group_id_unique_ci"),
        ]
        indexes = [models.Index(fields=["group_type", "gid"], name="group_type_gid")]

    def __str__(self):
        return self.path

    @property
    def path(self) -> str:
        return f"/{self.group_type}/{self.gid}"


class Resource(Entity):
    """A resource (`/schemaGroups/gID/schemas/rID`); resource-level attributes come from documents."""

    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="resources")
    resource_type = models.CharField(max_length=64)
    rid = models.CharField("id", max_length=128)
    latest = models.ForeignKey("Version", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    version_counter = models.PositiveBigIntegerField(default=0)
    # the epoch of the resource's own (xRegistry 1.0 `meta`) attributes: default version, compatibility; 1 on
    # creation, + 1 with each change of them (a version's epoch is the version's own)
    epoch = models.PositiveBigIntegerField(default=1)
    origin = models.TextField(null=True, blank=True, help_text="the registry this resource is synced from")

    class Meta:
        ordering = ["group_id", "resource_type", "rid"]
        constraints = [
            models.UniqueConstraint("group", "resource_type", Lower("rid"), name="resource_id_unique_ci"),
        ]
        indexes = [models.Index(fields=["group", "resource_type", "rid"], name="resource_group_type_rid")]

    def __str__(self):
        return self.path

    @property
    def path(self) -> str:
        return f"/{self.group.group_type}/{self.group.gid}/{self.resource_type}/{self.rid}"


class Version(Entity):
    """A version of a resource: a document (bytes and media type) or a RESOURCEURI pointing elsewhere."""

    # no index of its own: `version_resource_id` below leads with it (issue 29)
    resource = models.ForeignKey(Resource, on_delete=models.CASCADE, related_name="versions", db_index=False)
    vid = models.CharField("version", max_length=128)
    epoch = models.PositiveBigIntegerField(default=1)
    content = models.BinaryField(null=True, blank=True)
    media_type = models.CharField(max_length=255, null=True, blank=True)
    resource_uri = models.TextField(null=True, blank=True)
    # how its compatibility was checked when it was written (xRegistry 1.0 `compatibilityvalidated`,
    # registry.domain.model.validation_attributes): the level it was found to meet against the earlier versions, "history"
    # (an import's version made together with its resource: stored as given, not checked), or null (not checked: no
    # level applied, or a format or document the checks do not read)
    compatibility_check = models.CharField(max_length=32, null=True, blank=True)

    class Meta:
        ordering = ["resource_id", "vid"]
        constraints = [
            models.UniqueConstraint("resource", Lower("vid"), name="version_id_unique_ci"),
        ]
        indexes = [
            models.Index(fields=["resource", "vid"], name="version_resource_vid"),
            # (and `version_resource_order`: the versions in the order of the latest version, an expression index written
            # per database by migration 0016)
            # in place of the foreign key's own index (resource alone), which PostgreSQL's planner took for the reads
            # a new version sends with its lock (the versions after a kept id, the ids after the counter) and then
            # read every version of the resource (issue 29)
            models.Index(fields=["resource", "id"], name="version_resource_id"),
            # the order versions were created in (`attributes.version_order`): a page of a resource's versions is read
            # from it by key (registry/store/paging.py), not sorted from all of them
            models.Index(fields=["resource", "created_on", "id"], name="version_resource_created"),
        ]

    def __str__(self):
        return f"{self.resource}/versions/{self.vid}"


class OutboxEvent(models.Model):
    """A change event written in the same transaction as the change; relayed to subscribers later."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    type = models.CharField(max_length=128)
    source = models.TextField()
    subject = models.TextField()
    time = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    relayed_at = models.DateTimeField(null=True, blank=True)
    # the CloudEvents `authcontext` of the change: "user" or "system", and the user's name or the system's source
    authtype = models.CharField(max_length=32, blank=True, default="")
    authid = models.CharField(max_length=150, blank=True, default="")
    # the owners of the entity's group when the change was made (None: none): with public reads off, who may be
    # told of it (subscriptions' deliveries), even once the group is gone
    owners = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [
            models.Index(fields=["created_at"], condition=models.Q(relayed_at__isnull=True), name="outbox_pending"),
        ]

    def __str__(self):
        return f"{self.type} {self.subject}"


class RegistryState(models.Model):
    """The registry entity's `epoch`, `createdat` and `modifiedat` (xRegistry 1.0 core/spec.md "epoch"): they move
    when a group is added or removed, not when an entity below it changes (`registry/services/registry_state.py`).
    One row, pk 1."""

    epoch = models.PositiveBigIntegerField(default=1)
    created_on = models.DateTimeField()
    modified_on = models.DateTimeField()

    def __str__(self):
        return f"registry epoch {self.epoch}"


class ChangeCount(models.Model):
    """Committed changes, counted in a few rows that writers share without waiting for each other: each write
    transaction adds one to a row no other transaction holds (registry/store/change_marker.py)."""

    changes = models.PositiveBigIntegerField(default=0)
    changed_at = models.DateTimeField()

    def __str__(self):
        return f"{self.changes} changes, the last at {self.changed_at}"


class AuditRecord(models.Model):
    """One committed change, written in its transaction beside its outbox row (registry/store/audit.py): who (a user's
    name, or the system's source), through which door, what (the entity's store path, the operation, its epoch
    before and after, the attributes it changed), when, and in which group (its row id: a group made again with the
    same id is another group); `via` names the sync source of a sync's change."""

    time = models.DateTimeField()
    actor = models.CharField(max_length=150)
    authtype = models.CharField(max_length=32)  # "user" or "system" (the CloudEvents authcontext's authtype)
    door = models.CharField(max_length=64)
    # which one of its door: a sync's source name (its owner is the actor); empty for the other doors. The database's
    # default too: the Spark writer's COPY leaves the column out
    via = models.CharField(max_length=128, blank=True, default="", db_default="")
    path = models.CharField(max_length=1024)
    group_path = models.CharField(max_length=300)
    operation = models.CharField(max_length=16)  # create, update, delete
    epoch_before = models.PositiveBigIntegerField(null=True, blank=True)
    epoch_after = models.PositiveBigIntegerField(null=True, blank=True)
    event = models.UUIDField(null=True, blank=True, help_text="the change event's id (its outbox row)")
    # attribute -> {"before": ..., "after": ...} (registry/store/audit.py: documents as digest and size, secrets masked);
    # null on rows written before it was recorded
    changes = models.JSONField(null=True, blank=True)
    # the id of the group's row (not a foreign key: the rows outlive the group); null: outside every group (a
    # subscription), or a row of a group that was gone when this was recorded (migration 0015)
    group_pk = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["group_pk", "id"], name="audit_group_pk"),
            models.Index(fields=["group_path", "id"], name="audit_group"),
            models.Index(fields=["path", "id"], name="audit_path"),
            models.Index(fields=["actor", "id"], name="audit_actor"),
            models.Index(fields=["time"], name="audit_time"),
        ]

    def __str__(self):
        return f"{self.operation} {self.path} by {self.actor} via {self.door}"
