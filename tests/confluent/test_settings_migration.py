"""The migration confluent 0003 (issue 37 item 5): the rows of the former settings table, keyed by a scope string,
move onto the schema groups and schemas they describe; a row whose group no longer exists is dropped, and the
table is gone. Run on the suite's database (SQLite, or PostgreSQL with REGISTRY_TEST_DB=postgres), through the
migration executor: back to 0002, rows written as the old code wrote them, forward again."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from registry.models import Group, Resource

pytestmark = pytest.mark.django_db(transaction=True)

V1 = '{"type": "record", "name": "r", "fields": [{"name": "a", "type": "string"}]}'
BEFORE, AFTER = ("confluent", "0002_references_attribute"), ("confluent", "0003_settings_on_entities")


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.migrate([target])
    executor.loader.build_graph()
    return executor.loader.project_state([target]).apps


@pytest.fixture(autouse=True)
def latest_schema_after():
    """The later migrations applied again after the test, for the tests that follow in the session."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_the_rows_move_onto_their_entities(su):
    for subject in ("s", ":.ctx:t", ":.other:o"):
        response = su.post(f"/confluent/subjects/{subject}/versions", {"schema": V1}, format="json")
        assert response.status_code == 200, response.content
    old = _migrate(BEFORE)
    try:
        Setting = old.get_model("confluent", "Setting")
        for scope, mode, level in [
            ("", "READONLY", None),  # the global mode: every context that sets none
            (":.ctx:", "IMPORT", None),  # a context's own
            (":.ctx:t", "READWRITE", "full"),  # t exists: its level is its schema's already
            (":.ctx:u", "IMPORT", "none"),  # u has no schema: kept by its group
            (":.ctx:a/b.proto", None, "forward"),  # its schema id is the subject percent-encoded
            (":.gone:", "READONLY", None),  # no such group: dropped
            (":.gone:x", "READONLY", "none"),
        ]:
            Setting.objects.create(scope=scope, mode=mode, compatibility=level)
        epochs = dict(Group.objects.values_list("gid", "epoch"))
    finally:
        _migrate(AFTER)
    assert "confluent_setting" not in connection.introspection.table_names()
    groups = {g.gid: g.extensions for g in Group.objects.all()}
    assert sorted(groups) == ["confluent", "ctx", "other"]
    assert groups["confluent"]["confluentmode"] == "READONLY" and groups["other"]["confluentmode"] == "READONLY"
    assert groups["ctx"]["confluentmode"] == "IMPORT"
    assert groups["ctx"]["confluentpending"] == {
        "u": {"compatibility": "none", "confluentmode": "IMPORT"},
        "a%2Fb.proto": {"compatibility": "forward"},
    }
    assert Resource.objects.get(rid="t").extensions.get("confluentmode") == "READWRITE"
    assert all(Group.objects.get(gid=gid).epoch == epoch + 1 for gid, epoch in epochs.items())
    # what the API answers
    assert su.get("/confluent/mode").json() == {"mode": "READONLY"}
    assert su.get("/confluent/mode/:.ctx:t").json() == {"mode": "READWRITE"}
    assert su.get("/confluent/mode/:.other:o", {"defaultToGlobal": "true"}).json() == {"mode": "READONLY"}
    assert su.get("/confluent/config/:.ctx:u").json() == {"compatibilityLevel": "NONE"}
    assert su.get("/confluent/config/:.ctx:a%2Fb.proto").json() == {"compatibilityLevel": "FORWARD"}
    assert su.get("/confluent/mode/:.ctx:u").json() == {"mode": "IMPORT"}
