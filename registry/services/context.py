"""Who writes and where: the context every service receives."""
from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.utils import timezone


@dataclass
class WriteContext:
    """The acting user's name and the registry's base URL (event `source`, `self` links)."""

    user: str | None = None
    base_url: str = ""
    now: object = field(default_factory=timezone.now)

    def __post_init__(self):
        if not self.base_url:
            self.base_url = getattr(settings, "REGISTRY_BASE_URL", "http://127.0.0.1:8000")
        self.base_url = self.base_url.rstrip("/")

    @classmethod
    def from_request(cls, request) -> WriteContext:
        user = request.user.get_username() if request.user and request.user.is_authenticated else None
        return cls(user=user or None, base_url=request.build_absolute_uri("/").rstrip("/"))
