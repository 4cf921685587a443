"""The document GET's hand-built SQL (registry/compiled_reads.py) loads exactly what the ORM loads.

Every resource of the demo registry (JSON, Avro, Protobuf, XSD documents, definitions, endpoints) is read both
ways, on SQLite and PostgreSQL, and every field of the resource, its group and its version must be equal, with
the same Python types (datetimes with time zones, JSON as dicts, documents as bytes).
"""

import pytest
from django.core.management import call_command

from registry import compiled_reads
from registry.models import Resource, Version

pytestmark = pytest.mark.django_db


def fields(instance) -> dict:
    out = {}
    for field in instance._meta.concrete_fields:
        value = getattr(instance, field.attname)
        out[field.attname] = (type(value).__name__, bytes(value) if isinstance(value, memoryview) else value)
    return out


@pytest.fixture
def demo():
    call_command("load_demo", "--no-user", verbosity=0)
    assert Resource.objects.count() > 50


def test_latest_and_every_version_equal_the_orm(demo):
    for resource in Resource.objects.select_related("group", "latest"):
        found = compiled_reads.document_row(
            resource.group.group_type, resource.group.gid, resource.resource_type, resource.rid
        )
        assert found is not None, resource.rid
        loaded, latest = found
        assert fields(loaded) == fields(resource)
        assert fields(loaded.group) == fields(resource.group)
        assert fields(latest) == fields(resource.latest)
        assert loaded.latest is latest and latest.resource is loaded
        for version in Version.objects.filter(resource=resource):
            loaded, same = compiled_reads.document_row(
                resource.group.group_type, resource.group.gid, resource.resource_type, resource.rid, version.vid
            )
            assert fields(same) == fields(version)
            assert fields(loaded.group) == fields(resource.group)


def test_misses_and_exact_matching(demo):
    resource = Resource.objects.select_related("group").first()
    group = resource.group
    assert compiled_reads.document_row(group.group_type, group.gid, resource.resource_type, "no-such") is None
    assert compiled_reads.document_row(group.group_type, "no-such", resource.resource_type, resource.rid) is None
    assert (
        compiled_reads.document_row(
            "endpoints" if group.group_type != "endpoints" else "schemaGroups",
            group.gid,
            resource.resource_type,
            resource.rid,
        )
        is None
    )
    assert (
        compiled_reads.document_row(
            group.group_type, group.gid, resource.resource_type, resource.rid, "no-such-version"
        )
        is None
    )
    # a parameter is data, never SQL
    assert compiled_reads.document_row(group.group_type, "' OR '1'='1", resource.resource_type, resource.rid) is None


def test_a_resource_without_versions_has_no_latest(demo):
    resource = Resource.objects.select_related("group").first()
    Resource.objects.filter(pk=resource.pk).update(latest=None)
    found = compiled_reads.document_row(
        resource.group.group_type, resource.group.gid, resource.resource_type, resource.rid
    )
    assert found is not None
    assert found[1] is None and found[0].latest is None


def test_the_token_lookup_loads_what_the_orm_loads(django_user_model):
    """registry/http/token_auth.py's query: the token and its user, every field equal with the same types."""
    from rest_framework.authtoken.models import Token

    user = django_user_model.objects.create_user("dora", "d@example.com", "pw", first_name="Dora")
    key = Token.objects.create(user=user).key
    token, loaded = compiled_reads.token_and_user(key)
    expected = Token.objects.select_related("user").get(key=key)
    assert fields(token) == fields(expected)
    assert fields(loaded) == fields(expected.user)
    assert token.user is loaded
    assert compiled_reads.token_and_user("0" * 40) is None
    assert compiled_reads.token_and_user("' OR '1'='1") is None
