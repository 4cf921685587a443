"""A row per schema of a schema group for the subjects list (confluent.subject_states), the triggers that mark it dirty
in the transaction of every change that may move it, whatever door wrote (the services, the numbering, an import's
COPY, raw SQL), and its rows for the schemas already there.

PostgreSQL: statement triggers on inserts and deletes (a bulk import's COPY marks each schema once, not once per
version), row triggers with a WHEN on updates (most updates change nothing the list reads: no call then). SQLite: row
triggers, the same statements. The trigger's upsert also takes the row's lock until the change commits: a read that
would save the row meanwhile skips it (confluent.subject_states).
"""

import django.db.models.deletion
from django.db import migrations, models

# the row of the schema `{ref}` (a resource's id) marked dirty, added when missing: of schema groups' schemas only
ADD = """
INSERT INTO confluent_subjectstate (resource_id, group_id, live, soft, dirty, generation)
SELECT DISTINCT r.id, r.group_id, {false}, {false}, {true}, 1 FROM {source}
JOIN registry_resource r ON r.id = {ref} JOIN registry_group g ON g.id = r.group_id
WHERE r.resource_type = 'schemas' AND g.group_type = 'schemaGroups'"""
MARK = ADD + " ON CONFLICT (resource_id) DO UPDATE SET dirty = {true}, generation = confluent_subjectstate.generation + 1"
# a version added or deleted moves the list only when it has a document of a Confluent type (a schema is listed for
# such a version while none of its versions is numbered; a numbered version's subject version has its own trigger):
# no mark for the others (a schema of another format, or of none, is written to without its row)
MARK_TYPED = MARK.replace("g.group_type = 'schemaGroups'", "g.group_type = 'schemaGroups' AND {typed}")

FORGET = "DELETE FROM confluent_subjectstate WHERE resource_id IN (SELECT {ref} FROM {source})"

VERSION_CHANGED = (
    "OLD.content IS DISTINCT FROM NEW.content OR OLD.resource_uri IS DISTINCT FROM NEW.resource_uri "
    "OR OLD.extensions IS DISTINCT FROM NEW.extensions OR OLD.resource_id <> NEW.resource_id"
)
SCHEMA_CHANGED = (
    "OLD.extensions IS DISTINCT FROM NEW.extensions OR OLD.rid <> NEW.rid OR OLD.group_id <> NEW.group_id "
    "OR OLD.resource_type <> NEW.resource_type"
)
NUMBER_CHANGED = "OLD.deleted <> NEW.deleted OR OLD.resource_id <> NEW.resource_id"

# (trigger, table, event, PostgreSQL: statement or row; the statement; the row's condition)
TRIGGERS = [
    ("version_added", "registry_version", "INSERT", "new_rows", MARK_TYPED, "resource_id", None),
    ("version_changed", "registry_version", "UPDATE", None, MARK, "resource_id", VERSION_CHANGED),
    ("version_deleted", "registry_version", "DELETE", "old_rows", MARK_TYPED, "resource_id", None),
    ("number_added", "confluent_subjectversion", "INSERT", "new_rows", MARK, "resource_id", None),
    ("number_changed", "confluent_subjectversion", "UPDATE", None, MARK, "resource_id", NUMBER_CHANGED),
    ("number_deleted", "confluent_subjectversion", "DELETE", "old_rows", MARK, "resource_id", None),
    ("schema_changed", "registry_resource", "UPDATE", None, MARK, "id", SCHEMA_CHANGED),
    ("schema_deleted", "registry_resource", "DELETE", "old_rows", FORGET, "id", None),
]


def _postgresql(name, table, event, transition, statement, column, condition):
    from confluent.subject_states import typed_version

    function = f"confluent_subject_{name}"
    if transition is not None:  # a statement trigger: every row of the transition table
        typed = typed_version("postgresql", "t")
        body = statement.format(source=f"{transition} t", ref=f"t.{column}", true="true", false="false", typed=typed)
        kind = f"REFERENCING {'NEW' if event == 'INSERT' else 'OLD'} TABLE AS {transition} FOR EACH STATEMENT"
    else:
        body = statement.format(source="(SELECT 1) one", ref=f"NEW.{column}", true="true", false="false")
        kind = f"FOR EACH ROW WHEN ({condition})"
    return [
        f"CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {body}; RETURN NULL; END $$",
        f"CREATE TRIGGER {function} AFTER {event} ON {table} {kind} EXECUTE FUNCTION {function}()",
    ], [f"DROP TRIGGER {function} ON {table}", f"DROP FUNCTION {function}()"]


def _sqlite(name, table, event, transition, statement, column, condition):
    from confluent.subject_states import typed_version

    row = "OLD" if event == "DELETE" else "NEW"
    typed = typed_version("sqlite", row)
    body = statement.format(source="(SELECT 1) one", ref=f"{row}.{column}", true="1", false="0", typed=typed)
    when = "" if condition is None else " WHEN " + condition.replace("IS DISTINCT FROM", "IS NOT")
    trigger = f"confluent_subject_{name}"
    return [f"CREATE TRIGGER {trigger} AFTER {event} ON {table} FOR EACH ROW{when} BEGIN {body}; END"], [
        f"DROP TRIGGER {trigger}"
    ]


def _statements(schema_editor, forward: bool) -> list[str]:
    vendor = schema_editor.connection.vendor
    build = _postgresql if vendor == "postgresql" else _sqlite if vendor == "sqlite" else None
    if build is None:
        return []
    out = []
    for trigger in TRIGGERS:
        create, drop = build(*trigger)
        out.extend(create if forward else drop)
    return out


def create_triggers(apps, schema_editor):
    for statement in _statements(schema_editor, True):
        schema_editor.execute(statement, params=None)


def drop_triggers(apps, schema_editor):
    for statement in _statements(schema_editor, False):
        schema_editor.execute(statement, params=None)


def fill(apps, schema_editor):
    """A dirty row for every schema of a schema group, then brought up to date as a read would (the live module: its
    rules are the list's; a read after this migration finds nothing to do)."""
    from confluent import subject_states

    vendor = schema_editor.connection.vendor
    true, false = ("true", "false") if vendor == "postgresql" else ("1", "0")
    schema_editor.execute(ADD.format(source="registry_resource x", ref="x.id", true=true, false=false), params=None)
    subject_states.refresh_dirty()
    subject_states.check_default_context()




class Migration(migrations.Migration):

    dependencies = [
        ('confluent', '0009_version_holds_references'),
        ('registry', '0019_version_resource_created'),
    ]

    operations = [
        migrations.CreateModel(
            name='SubjectNames',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('default_group', models.CharField(max_length=128)),
            ],
        ),
        migrations.CreateModel(
            name='SubjectState',
            fields=[
                ('resource', models.OneToOneField(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, primary_key=True, related_name='+', serialize=False, to='registry.resource')),
                ('name', models.BinaryField(help_text="its subject name in UTF-8, which sorts as the names do; NULL: no subject's id", null=True)),
                ('live', models.BooleanField(help_text='listed: a live version, or no numbered version yet and one of a type')),
                ('soft', models.BooleanField(help_text='a soft-deleted version (listed with ?deleted, ?deleted_only)')),
                ('dirty', models.BooleanField(help_text='changed since its name and flags were computed')),
                ('generation', models.BigIntegerField(help_text='moves with every change: a read saves what it computed only if not')),
                ('group', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='registry.group')),
            ],
            options={
                'verbose_name': 'Confluent subject state',
                'indexes': [models.Index(condition=models.Q(('live', True)), fields=['name'], name='confluent_subject_live'), models.Index(condition=models.Q(('live', True), ('soft', True), _connector='OR'), fields=['name'], name='confluent_subject_any'), models.Index(condition=models.Q(('dirty', True)), fields=['resource'], name='confluent_subject_dirty')],
            },
        ),
        migrations.RunPython(create_triggers, drop_triggers),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
