"""A value that ends in a line feed is not a valid id, attribute name, tag name or format: Python's `$` also
matches before a final "\\n", so patterns anchored with `^...$` and checked with `.match` let it through (an id
"g\\n" was stored, its self URL broke, and the name could not be an HTTP header). Checks now match the whole
value; these requests are 400 and nothing is written."""

import pytest

from tests.helpers import assert_problem, make_group, post_schema, send, snapshot

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/schemaGroups/abc%0A", "/definitionGroups/abc%0A", "/endpoints/abc%0A"])
def test_ids_ending_in_a_line_feed_are_refused(su, path):
    before = snapshot()
    assert_problem(su.put(path, {"description": "x"}, format="json"), 400, "id")
    assert snapshot() == before


@pytest.mark.parametrize(
    "body, mention",
    [
        ({"a\n": "x"}, "attribute name"),
        ({"tags": {"t\n": "v"}}, "tags"),
    ],
)
def test_attribute_and_tag_names_ending_in_a_line_feed_are_refused(su, body, mention):
    make_group(su)
    before = snapshot()
    assert_problem(su.put("/schemaGroups/g1", body, format="json"), 400, mention)
    assert snapshot() == before


def test_a_format_ending_in_a_line_feed_is_refused(su):
    before = snapshot()
    assert_problem(su.put("/definitionGroups/d", {"format": "CloudEvents/1.0\n"}, format="json"), 400, "format")
    assert snapshot() == before


def test_a_version_id_ending_in_a_line_feed_is_refused(su):
    make_group(su)
    post_schema(su, "g1", "s")
    before = snapshot()
    response = send(su, "PUT", "/schemaGroups/g1/schemas/s/versions/2%0A", b"second", format="Custom/1")
    assert_problem(response, 400)
    assert snapshot() == before
