"""Admin of the DEK registry: KEKs and DEKs, read-only and without any key material (neither a DEK's wrapped key nor
a KEK's KMS properties, which may hold credentials). They are written through the DEK registry's API alone
(confluent/dek_services.py, with its authorization and audit); the pages answer those with Django's view
permission of the model (registry admins)."""

from django.contrib import admin

from .dek_models import Dek, Kek


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Kek)
class KekAdmin(ReadOnly):
    fields = ("name", "context", "group", "kms_type", "kms_key_id", "doc", "shared", "deleted", "ts")
    readonly_fields = fields
    list_display = ("name", "context", "kms_type", "kms_key_id", "shared", "deleted")
    list_filter = ("shared", "deleted", "kms_type")
    search_fields = ("name", "context")


@admin.register(Dek)
class DekAdmin(ReadOnly):
    fields = ("kek", "subject", "algorithm", "version", "deleted", "ts")
    readonly_fields = fields
    list_display = ("subject", "kek", "algorithm", "version", "deleted")
    list_filter = ("algorithm", "deleted")
    search_fields = ("subject", "kek__name")
    list_select_related = ("kek",)
