"""Issue 29: the earlier documents' pairs as kept (registry/earlier_pairs.py). Two of one lineage are compared from
where they may differ, never before it; a pair this process wrote and has not read again is compared; what the checks
read of them (the documents alone, the formats) is the plain computation's. And the keeper starts a new lineage when
another read kept other rows after the same ones meanwhile (registry/store/earlier_documents.py)."""

import json

import pytest
from django.db import connection

from registry.earlier_pairs import all_named, documents_alone, extended, formats_from, same_prefix
from registry.models import Resource, Version
from tests.helpers import make_group, post_schema


class NotCompared:
    """A document that fails the test when compared: proves a comparison was skipped."""

    def __eq__(self, other):
        raise AssertionError("compared")

    __hash__ = object.__hash__


def test_pairs_of_one_lineage_are_compared_from_where_they_may_differ():
    base = extended([("F/1", NotCompared()), ("F/1", NotCompared())])
    longer = extended([("F/1", b"c")], base)
    assert same_prefix(base, longer) == same_prefix(longer, base) == 2
    assert same_prefix(longer, extended([("F/1", b"c"), ("F/2", b"d")], base)) == 3
    assert same_prefix(base.contents, longer.contents) == 2  # the documents alone too


def test_a_pair_written_and_not_read_again_is_compared():
    base = extended([("F/1", NotCompared())])
    written = extended([("F/1", b"mine")], base, confirmed=False)
    assert same_prefix(written, extended([("F/1", b"mine")], base)) == 2
    assert same_prefix(written, extended([("F/1", b"theirs")], base)) == 1
    assert same_prefix(written.contents, extended([("F/1", b"theirs")], base).contents) == 1


def test_pairs_of_other_lineages_are_compared_from_the_first():
    one = extended([("F/1", b"a"), ("F/1", b"b")])
    assert same_prefix(one, extended([("F/1", b"a"), ("F/1", b"b"), ("F/1", b"c")])) == 2
    assert same_prefix(one, extended([("F/1", b"x"), ("F/1", b"b")])) == 0
    assert same_prefix(one, [("F/1", b"a")]) == 1  # a plain list


def test_what_the_checks_read_is_the_plain_computation():
    pairs = [("F/1", b"a"), (None, b"b"), ("F/2", b"c"), ("F/1", b"d")]
    kept = extended(pairs[2:], extended(pairs[:2]))
    assert list(kept) == pairs
    assert list(documents_alone(kept)) == [b"a", b"b", b"c", b"d"] == list(documents_alone(pairs))
    assert formats_from(kept) == ["F/1", None, "F/2"]
    assert formats_from(kept, 2) == formats_from(pairs, 2) == ["F/2", "F/1"]
    assert not all_named(kept) and all_named(kept, 2) and all_named(pairs, 2)
    assert extended([(["not", "hashable"], b"a")]).formats == (["not", "hashable"],)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_rows_kept_after_the_same_ones_by_another_read_start_a_lineage(su):
    if connection.vendor != "postgresql":
        pytest.skip("the kept documents are PostgreSQL's (REGISTRY_TEST_DB=postgres)")
    from registry.store import earlier_documents

    make_group(su, "g")
    post_schema(su, "g", "s", json.dumps({"type": "object"}).encode(), "application/json", "JsonSchema/draft-07")
    resource = Resource.objects.get(rid="s")
    first = earlier_documents.earlier_documents(resource.pk, None)  # kept: version 1
    one = Version.objects.get(resource=resource, vid="1")
    Version.objects.create(
        resource=resource,
        vid="2",
        content=b"{}",
        media_type="application/json",
        created_on=one.created_on,
        modified_on=one.created_on,
        extensions=one.extensions,
    )  # written by another door: not kept
    sent = earlier_documents.earlier_documents_sent(resource.pk)  # a read of the rows after the kept one
    other = earlier_documents.earlier_documents(resource.pk, None)  # another read keeps the same rows meanwhile
    answered = sent(None)  # then the first is kept, after the other
    assert other.lineage is first.lineage and len(other) == len(answered) == 2
    assert answered.lineage is not other.lineage and answered.contents.lineage is answered.lineage
    assert same_prefix(answered, other) == 2
