"""Proxy model of endpoints, so that the admin lists them by what they hold."""

from django.db import models

from registry.models import Group


class EndpointManager(models.Manager):
    def get_queryset(self):
        return super().get_queryset().filter(group_type="endpoints")


class Endpoint(Group):
    objects = EndpointManager()

    class Meta:
        proxy = True
