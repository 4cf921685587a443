"""The migrations confluent 0005 to 0008 (issue 41 items 1 and 2): the metadata and rule sets the API kept in its own
table (`SubjectVersion.metadata`, `rule_set`) move onto their versions as the attributes `confluentmetadata` and
`confluentruleset`, the schema id keeps its number with its key extended by them, and every schema id gets a GUID.
Run on the suite's database (SQLite, or PostgreSQL with REGISTRY_TEST_DB=postgres), through the migration executor:
back to 0004, rows written as the old code wrote them, forward again to the latest."""

import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from confluent.models import SchemaId, SubjectVersion
from registry.models import Version

pytestmark = pytest.mark.django_db(transaction=True)

V1 = '{"type": "record", "name": "r", "fields": [{"name": "a", "type": "string"}]}'
BEFORE = ("confluent", "0004_dek_registry")


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def _latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def test_metadata_and_rule_sets_move_onto_their_versions(su):
    response = su.post("/confluent/subjects/s/versions", {"schema": V1}, format="json")
    assert response.status_code == 200, response.content
    schema_id = response.json()["id"]
    metadata = {"properties": {"owner": "shop", "b": "2"}, "tags": {"r.a": ["PII", "PII"]}}
    rule_set = {"domainRules": [{"name": "positive", "type": "CEL", "mode": "WRITE", "expr": "message.a != ''"}]}
    old = _migrate([BEFORE])
    try:
        OldSubjectVersion = old.get_model("confluent", "SubjectVersion")
        OldSubjectVersion.objects.update(metadata=metadata, rule_set=rule_set)  # as the old code kept them
        epoch = Version.objects.get().epoch
    finally:
        _migrate(_latest())
    version = Version.objects.get()
    assert version.epoch == epoch + 1
    assert version.extensions["confluentmetadata"] == {
        "properties": {"b": "2", "owner": "shop"},
        "tags": {"r.a": ["PII"]},
    }
    assert version.extensions["confluentruleset"]["domainRules"][0]["kind"] == "TRANSFORM"  # the default, filled in
    row = SubjectVersion.objects.get()
    assert row.schema_id_id == schema_id and row.epoch == version.epoch  # the id kept its number
    assert SchemaId.objects.get().guid is not None
    # the API answers them, and knows the content with them: registering it again is the same version
    answered = su.get("/confluent/subjects/s/versions/1").json()
    assert answered["metadata"] == version.extensions["confluentmetadata"] and answered["guid"]
    again = su.post(
        "/confluent/subjects/s/versions",
        json.dumps({"schema": V1, "metadata": metadata, "ruleSet": rule_set}),
        content_type="application/json",
    )
    assert again.status_code == 200 and (again.json()["id"], again.json()["version"]) == (schema_id, 1), again.content
