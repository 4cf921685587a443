"""The Confluent API in the admin.

- A schema version's page shows its data contract (its `confluentmetadata` and `confluentruleset` attributes:
  confluent.contracts): the metadata's properties, tags and sensitive fields, and the rules as a read-only table (phase,
  name, kind, mode, type, tags, expression, actions, parameters), registered with the registry's admin
  (`register_version_section`). They are edited as the version's attributes (its document form, the bindings, or
  this API's registrations). A version with JSONATA migration rules links to their dry run on a pasted message
  (catalog's schema version admin, `migrate/`: confluent.rule_checks.migration_dry_run).
- The DEK registry: KEKs and DEKs, read-only and without any key material (neither a DEK's wrapped key nor a KEK's KMS
  properties, which may hold credentials). They are written through the DEK registry's API alone
  (confluent/dek_services.py, with its authorization and audit); the pages answer those with Django's view
  permission of the model (registry admins).
"""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from registry.admin import register_version_section

from .attributes import VERSION_METADATA, VERSION_RULE_SET
from .contracts import RULE_PHASES
from .dek_models import Dek, Kek
from .rule_checks import migration_rule_names
from .subjects import GROUPS

RULE_COLUMNS = ("phase", "name", "kind", "mode", "type", "tags", "expr", "onSuccess", "onFailure", "params", "disabled")


def _cell(value) -> str:
    if value is None or value == "" or value == []:
        return ""
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{key}={item}" for key, item in value.items())
    return str(value)


def contract_section(version) -> dict | None:
    """A schema version's metadata and rules (None when it has neither)."""
    metadata = version.extensions.get(VERSION_METADATA)
    rule_set = version.extensions.get(VERSION_RULE_SET)
    if not isinstance(metadata, dict) and not isinstance(rule_set, dict):
        return None
    parts = []
    if isinstance(metadata, dict):
        rows = [("property", key, value) for key, value in (metadata.get("properties") or {}).items()]
        rows += [("tags", path, _cell(tags)) for path, tags in (metadata.get("tags") or {}).items()]
        rows += [("sensitive", name, "") for name in metadata.get("sensitive") or []]
        body = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td></tr>", rows)
        parts.append(format_html("<h3>Metadata</h3><table class='contract-metadata'><tbody>{}</tbody></table>", body))
    if isinstance(rule_set, dict):
        rule_rows = [
            (phase, *(_cell(rule.get(name)) for name in RULE_COLUMNS[1:]))
            for phase in RULE_PHASES
            for rule in rule_set.get(phase) or []
            if isinstance(rule, dict)
        ]
        head = format_html_join("", "<th>{}</th>", ((name,) for name in RULE_COLUMNS))
        cells = "".join("<td>{}</td>" for _ in RULE_COLUMNS)
        body = format_html_join("", f"<tr>{cells}</tr>", rule_rows)
        parts.append(
            format_html(
                "<h3>Rules</h3><table class='contract-rules'><thead><tr>{}</tr></thead><tbody>{}</tbody></table>",
                head,
                body,
            )
        )
        if migration_rule_names(version):
            parts.append(
                format_html(
                    "<p><a class='button' id='migration-dry-run-link' href='{}'>Dry-run a migration rule</a></p>",
                    reverse("admin:catalog_schemaversion_migrate", args=[version.pk]),
                )
            )
    return {"title": "Data contract (Confluent metadata and rules)", "html": format_html("{}" * len(parts), *parts)}


register_version_section(GROUPS, contract_section)


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
