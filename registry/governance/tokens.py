"""API tokens in the governance UI, write-only: Django REST framework's own token admin lists every key in clear
text to anyone with the "view token" permission, who could then write as any user. Here a key is shown once,
in the message that follows its creation, and afterwards only by its first characters."""

from __future__ import annotations

from django.contrib import admin, messages
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import TokenProxy

SHOWN = 4  # characters of a key shown after its creation: enough to tell two tokens apart


def shown_key(key: str) -> str:
    return f"{key[:SHOWN]}… (hidden)" if key else ""


class WriteOnlyTokenAdmin(TokenAdmin):
    list_display = ("short_key", "user", "created")

    @admin.display(description="key")
    def short_key(self, token):
        return shown_key(token.key)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if not change:
            self.message_user(
                request,
                f"The token of {obj.user} is {obj.key}: copy it now, it is not shown again.",
                messages.WARNING,
            )


# DRF's TokenProxy exists for its admin only; its text is the whole key, which the admin prints in page titles,
# messages, delete confirmations and its history (LogEntry.object_repr): there it is the shortened key instead
TokenProxy.__str__ = lambda token: shown_key(token.key)

if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)
admin.site.register(TokenProxy, WriteOnlyTokenAdmin)
