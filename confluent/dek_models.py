"""The DEK registry's entities (docs/data-contracts.md, "The DEK registry"): key encryption keys (KEKs) and the data
encryption keys (DEKs) kept under them, for the clients' client-side field encryption.

They are entities of their own, not settings of a group or schema: a KEK names a key held by a KMS (`kms_type`,
`kms_key_id`, `kms_props`) and belongs to the schema group of the context whose subjects it serves (`group`; the
context's group id in `context`, as named at creation). The group is kept by its row, not by its id: a group deleted
and made again (by another team, say) does not inherit the old group's keys; a KEK whose group is gone (`group`
null) belongs to registry admins. A DEK is one key per KEK, subject, algorithm and version, kept as the KMS wrapped
it (`encrypted_key_material`); the plain key of a shared KEK's DEK is never stored, it is unwrapped on each read
(confluent/kms.py). Every write goes through confluent/dek_services.py.
"""

from django.db import models

ALGORITHMS = ("AES128_GCM", "AES256_GCM", "AES256_SIV")
NAME_MAX_LENGTH = 256  # Confluent's limit on a KEK name
SUBJECT_MAX_LENGTH = 1024


class Kek(models.Model):
    name = models.CharField(max_length=NAME_MAX_LENGTH, unique=True)
    context = models.CharField(max_length=300, help_text="the schema group id of the context the KEK serves")
    group = models.ForeignKey(
        "registry.Group",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="the group whose owners manage the KEK; none: registry admins alone",
    )
    kms_type = models.CharField(max_length=64)
    kms_key_id = models.CharField(max_length=2048)
    kms_props = models.JSONField(default=dict, blank=True)
    doc = models.TextField(null=True, blank=True)
    shared = models.BooleanField(default=False, help_text="the registry may reach the KMS and make DEKs itself")
    deleted = models.BooleanField(default=False, help_text="soft-deleted")
    ts = models.PositiveBigIntegerField(help_text="the last change, in milliseconds since the epoch")

    class Meta:
        verbose_name = "key encryption key (KEK)"
        verbose_name_plural = "key encryption keys (KEKs)"
        ordering = ["name"]

    def __str__(self):
        return f"KEK {self.name}"


class Dek(models.Model):
    kek = models.ForeignKey(Kek, on_delete=models.CASCADE, related_name="deks")
    subject = models.CharField(max_length=SUBJECT_MAX_LENGTH)
    algorithm = models.CharField(max_length=16, choices=[(a, a) for a in ALGORITHMS])
    version = models.PositiveIntegerField()
    encrypted_key_material = models.TextField(help_text="base64, as the KMS wrapped it")
    deleted = models.BooleanField(default=False, help_text="soft-deleted")
    ts = models.PositiveBigIntegerField(help_text="the last change, in milliseconds since the epoch")

    class Meta:
        verbose_name = "data encryption key (DEK)"
        verbose_name_plural = "data encryption keys (DEKs)"
        ordering = ["kek_id", "subject", "algorithm", "version"]
        constraints = [
            models.UniqueConstraint("kek", "subject", "algorithm", "version", name="confluent_dek_identity"),
        ]

    def __str__(self):
        return f"DEK {self.subject} v{self.version} {self.algorithm} (KEK {self.kek_id})"
