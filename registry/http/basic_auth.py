"""HTTP Basic authentication with verified credentials remembered for a while, and failed attempts throttled
(issue 37, item 10).

DRF's `BasicAuthentication` checks the password at every request, through Django's password hasher: PBKDF2 with a
million iterations, most of a CPU second each time. The Confluent clients (and `xr`) send Basic credentials on every
request, and anyone may send random ones. So, in each process:

- A (user name, password) pair that verified is remembered for `REGISTRY_BASIC_AUTH_CACHE_SECONDS` (0: never),
  under a keyed hash of the pair (HMAC-SHA256 with a random key of this process): the password itself is not kept
  after the request, and the memory holds nothing that verifies a guess without the key. The entry holds the user's
  primary key, the authentication backend and a keyed hash of the user's row as it was (user name, stored password
  hash). A request with the same pair reads the user's row (one query, as a session does) and is let in without the
  hasher only while the row is the same and the user is active: a changed password, a renamed or deactivated user is
  checked the whole way again at once (and refused, for the old password). At most `MAX_ENTRIES` pairs are kept,
  the least recently used dropped first.
- Failed attempts (a wrong password, an unknown or inactive user) are counted per client address (DRF's `get_ident`,
  as the other throttles) and per user name; past `REGISTRY_BASIC_AUTH_FAILURES` (`N/minute`, ...; `off`) in either,
  a request whose pair is not remembered answers 429 with `Retry-After` before the hasher runs. Counts are kept in
  Django's cache (per process unless `CACHES` names a shared one), like the other throttles'.

Everything else is DRF's: the header's reading, the answers (401 "Invalid username/password.", "User inactive or
deleted."), the challenge.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from typing import NamedTuple

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model, load_backend
from django.core.signals import setting_changed
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from ..store.bounded_cache import BoundedCache

MAX_ENTRIES = 4096
OFF = {"", "0", "off", "none"}
_KEY = os.urandom(32)  # this process's: a remembered pair means nothing outside it


class Remembered(NamedTuple):
    user_pk: object
    backend: str
    row: bytes  # keyed hash of the user's row when the pair verified
    until: float  # time.monotonic()


_remembered = BoundedCache("basic_auth_pairs", max_entries=MAX_ENTRIES)


def _keyed(*parts: str) -> bytes:
    """HMAC-SHA256 of the parts, each length-prefixed (no two lists of parts hash alike)."""
    message = b"".join(
        len(encoded).to_bytes(4, "big") + encoded for encoded in (p.encode("utf-8", "surrogatepass") for p in parts)
    )
    return hmac.new(_KEY, message, hashlib.sha256).digest()


def _row(user) -> bytes:
    return _keyed(str(user.pk), user.get_username(), user.password or "")


def forget_all(**_kwargs) -> None:
    _remembered.clear()


setting_changed.connect(forget_all, dispatch_uid="registry.http.basic_auth")


def _recall(pair: bytes):
    """The user a remembered pair stands for, if it is remembered, unexpired and the user's row is unchanged."""
    entry = _remembered.get(pair)
    if entry is None:
        return None
    if entry.until <= time.monotonic():
        _remembered.pop(pair)
        return None
    user = load_backend(entry.backend).get_user(entry.user_pk)  # None for a deleted or (ModelBackend) inactive user
    if user is None or not user.is_active or not hmac.compare_digest(_row(user), entry.row):
        _remembered.pop(pair)
        return None
    return user


def _remember(pair: bytes, user, seconds: float) -> None:
    entry = Remembered(user.pk, user.backend, _row(user), time.monotonic() + seconds)
    _remembered.put(pair, entry)


class FailureCount(SimpleRateThrottle):
    """Failed attempts under one cache key within the rate's window (DRF's sliding window and `wait()`); unlike
    DRF's throttles, which count every request, only failures are recorded."""

    def __init__(self, rate: str, key: str):
        self.rate, self.key = rate, key
        self.num_requests, self.duration = self.parse_rate(rate)
        self.now = self.timer()
        self.history = [t for t in self.cache.get(key, []) if t > self.now - self.duration]

    def exceeded(self) -> bool:
        return len(self.history) >= self.num_requests

    def record(self) -> None:
        self.history.insert(0, self.now)
        self.cache.set(self.key, self.history, self.duration)


def failure_counts(request, userid: str) -> list[FailureCount]:
    rate = str(settings.REGISTRY_BASIC_AUTH_FAILURES or "").strip()
    if rate.lower() in OFF:
        return []
    ident = BaseThrottle().get_ident(request)  # the client address, as the other throttles read it
    user_key = hashlib.sha256(userid.encode("utf-8", "surrogatepass")).hexdigest()  # any name, a safe cache key
    return [
        FailureCount(rate, f"basic-failures:address:{ident}"),
        FailureCount(rate, f"basic-failures:user:{user_key}"),
    ]


class BasicAuthentication(authentication.BasicAuthentication):
    """`rest_framework.authentication.BasicAuthentication`, remembering verified pairs and throttling failures."""

    def authenticate_credentials(self, userid, password, request=None):
        seconds = float(settings.REGISTRY_BASIC_AUTH_CACHE_SECONDS)
        pair = _keyed(userid, password)
        if seconds > 0 and (user := _recall(pair)) is not None:
            return (user, None)
        counts = failure_counts(request, userid) if request is not None else []
        if blocked := [count for count in counts if count.exceeded()]:
            raise exceptions.Throttled(
                max(count.wait() or 1 for count in blocked),
                detail=str(_("Too many failed sign-ins with this user name or from this address.")),
            )
        user = authenticate(request=request, **{get_user_model().USERNAME_FIELD: userid, "password": password})
        if user is None or not user.is_active:
            for count in counts:
                count.record()
            if user is None:
                raise exceptions.AuthenticationFailed(_("Invalid username/password."))
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        if seconds > 0:
            _remember(pair, user, seconds)
        return (user, None)
