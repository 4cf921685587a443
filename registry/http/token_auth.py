"""DRF's token authentication with its one query built once per process (issue 29).

Every request with `Authorization: Token KEY` looks the token and its user up. DRF builds that query through the ORM
(`Token.objects.select_related("user").get(key=...)`) each time, and building it cost about as much as a new
version's whole work under its schema's lock. Here the statement is written once from the models' metadata and the
row becomes the same two objects the queryset gives (registry/compiled_reads.token_and_user): the token, with its user
loaded. Everything else is DRF's: the header's reading, the answers (401 "Invalid token.", "User inactive or
deleted."), the `WWW-Authenticate` keyword.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from ..compiled_reads import token_and_user


class TokenAuthentication(authentication.TokenAuthentication):
    """`rest_framework.authentication.TokenAuthentication`, answering the same from a statement built once."""

    def authenticate_credentials(self, key):
        found = token_and_user(key)
        if found is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        token, user = found
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (user, token)
