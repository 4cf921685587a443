"""What the Confluent API needs beyond the registry's entities (docs/confluent.md):

- `SchemaId`: the global integer id of one distinct schema content (type, canonical text, references, and the
  metadata and rule set, as Confluent's ids); never deleted, so an id is never reused and the same content always gets
  the same id. It keeps the content it stands for (the text first registered with it, its references, metadata and
  rule set), which `GET /schemas/ids/{id}` answers, and its GUID (a random UUID given with the id: the clients' other
  way of naming a schema in a message, `GET /schemas/guids/{guid}`), never reused either.
- `SubjectVersion`: a registry version seen as a Confluent subject version: its positive version number (stable, in
  creation order), its schema id, whether it is soft-deleted, and a copy of its references. Versions written through
  other doors get theirs when the API first reads the subject (`services.numbering`); the row goes with the version
  when the version is deleted. A version's metadata and rule set are its own attributes (`confluentmetadata`,
  `confluentruleset`: confluent.attributes), not kept here (the migration 0005 moved them onto the versions).

Config and mode are not kept here: they are attributes of the schema group or schema they describe
(confluent/attributes.py; the migration 0003 moved the rows of the former `Setting` table onto them).
"""

import uuid

from django.db import models

MAX_SCHEMA_ID = 2**31 - 1  # Confluent ids are Java ints


class SchemaId(models.Model):
    id = models.PositiveIntegerField(primary_key=True)
    key = models.CharField(
        max_length=64, unique=True, help_text="sha256 of type, canonical text, references, metadata and rule set"
    )
    schema_type = models.CharField(max_length=16)
    schema = models.TextField(help_text="the text first registered with this content")
    references = models.JSONField(default=list, blank=True)
    metadata = models.JSONField(null=True, blank=True)
    rule_set = models.JSONField(null=True, blank=True)
    guid = models.UUIDField(
        unique=True,
        default=uuid.uuid4,
        help_text="the content's GUID (GET /schemas/guids/{guid}): random, never reused",
    )
    created_on = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "Confluent schema id"

    def __str__(self):
        return f"schema id {self.id} ({self.schema_type})"


class SubjectVersion(models.Model):
    version = models.OneToOneField(
        "registry.Version", on_delete=models.CASCADE, primary_key=True, related_name="confluent"
    )
    resource = models.ForeignKey("registry.Resource", on_delete=models.CASCADE, related_name="+")
    number = models.PositiveIntegerField()
    schema_id = models.ForeignKey(SchemaId, on_delete=models.PROTECT, related_name="subject_versions")
    epoch = models.PositiveBigIntegerField(help_text="the version's epoch when its schema id was computed")
    deleted = models.BooleanField(default=False, help_text="soft-deleted through the Confluent API")
    references = models.JSONField(default=list, blank=True)

    class Meta:
        verbose_name = "Confluent subject version"
        constraints = [models.UniqueConstraint("resource", "number", name="confluent_subject_version_number")]

    def __str__(self):
        return f"{self.resource_id} version {self.number}"


from .dek_models import Dek, Kek  # noqa: E402,F401 - the DEK registry's tables, in their own module
