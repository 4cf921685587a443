"""Proxy models of the catalog's entities, so that the admin lists them by what they hold (schema groups,
schemas, schema versions, definition groups, definitions) over the engine's generic tables."""

from typing import ClassVar

from django.db import models

from registry.models import Group, Resource, Version


class _TypedManager(models.Manager):
    def __init__(self, **filters):
        super().__init__()
        self.filters = filters

    def get_queryset(self):
        return super().get_queryset().filter(**self.filters)

    def deconstruct(self):  # proxies need no migration state for their managers
        return (False, "catalog.models._TypedManager", None, (), {})


class SchemaGroup(Group):
    objects: ClassVar[_TypedManager] = _TypedManager(group_type="schemaGroups")

    class Meta:
        proxy = True
        verbose_name = "schema group"


class Schema(Resource):
    objects: ClassVar[_TypedManager] = _TypedManager(resource_type="schemas")

    class Meta:
        proxy = True


class SchemaVersion(Version):
    objects: ClassVar[_TypedManager] = _TypedManager(resource__resource_type="schemas")

    class Meta:
        proxy = True


class DefinitionGroup(Group):
    objects: ClassVar[_TypedManager] = _TypedManager(group_type="definitionGroups")

    class Meta:
        proxy = True


class Definition(Resource):
    objects: ClassVar[_TypedManager] = _TypedManager(resource_type="definitions", group__group_type="definitionGroups")

    class Meta:
        proxy = True
