"""Issue 24 item 4, stored XSS in one click: a link attribute (a schema's `schemaURI`, 1.0 `schemaurl`; a
definition's `schemaurl`, 1.0 `dataschemauri`) that is not http(s) or a relative reference is refused at every
door with nothing written, and no admin page renders a stored `javascript:`/`data:` URL as a link (what was
stored before the rule, or by a door that forgot it, shows as text)."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.urls import reverse

from tests.helpers import assert_problem, make_definition_group, make_group, post_schema, send, snapshot

from .governance_seed import seed
from .test_admin_permissions import admin_pages

pytestmark = pytest.mark.django_db
EVIL = ["javascript:alert(1)", "JavaScript:alert(document.cookie)", "data:text/html,<script>alert(1)</script>"]
UNSAFE_SCHEMES = ("javascript:", "data:", "vbscript:")


def unsafe_hrefs(page: str) -> list[str]:
    """The href values a browser would open as javascript:, data: or vbscript: (it drops tabs and newlines anywhere
    and spaces and control characters around the URL before it reads the scheme)."""
    found = []
    for value in re.findall(r"""href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", page, re.I):
        url = html.unescape(next(v for v in value if v) if any(value) else "")
        cleaned = re.sub(r"[\t\n\r]", "", url).strip("".join(chr(c) for c in range(0x21))).lower()
        if cleaned.startswith(UNSAFE_SCHEMES):
            found.append(url)
    return found


@pytest.mark.parametrize("url", EVIL)
def test_a_schema_uri_that_is_not_http_is_refused_at_every_door(su, url):
    make_group(su, "g1")
    post_schema(su, "g1", "s1", schemaURI="https://schemas.example.com/s1.json", body=b"")
    make_definition_group(su, "dg1")
    before = snapshot()
    # 0.5: a new schema, a new version, a changed version, by the Registry-schemaURI header
    assert_problem(post_schema(su, "g1", "s2", body=b"", schemaURI=url, expect=None), 400, "schemaURI")
    assert_problem(send(su, "POST", "/schemaGroups/g1/schemas/s1", b"", schemaURI=url), 400, "schemaURI")
    assert_problem(send(su, "PUT", "/schemaGroups/g1/schemas/s1", b"", schemaURI=url), 400, "schemaURI")
    # 1.0: $details
    response = su.put(
        "/registry/schemagroups/g1/schemas/s1$details",
        data=json.dumps({"schemaurl": url, "format": "JsonSchema/draft-07"}),
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert "schemaURI" in response.content.decode() or "schemaurl" in response.content.decode()
    # a registry document
    document = {
        "specversion": "0.5-wip",
        "schemaGroups": {"g2": {"schemas": {"s": {"versions": {"1": {"schemaURI": url}}}}}},
    }
    assert_problem(su.post("/", json.dumps(document), content_type="application/json"), 400, "schemaURI")
    # a definition's schemaurl (1.0: a message's dataschemauri)
    definition = {
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"value": "com.example.x"}}},
        "schemaformat": "JsonSchema/draft-07",
        "schemaurl": url,
    }
    response = send(su, "POST", "/definitionGroups/dg1/definitions", definition, "application/json", id="d1")
    assert_problem(response, 400, "schemaurl")
    message = {
        "envelope": "CloudEvents/1.0",
        "envelopemetadata": {"type": {"value": "com.example.x"}},
        "dataschemaformat": "JsonSchema/draft-07",
        "dataschemauri": url,
    }
    response = su.put(
        "/registry/messagegroups/dg1/messages/m1", data=json.dumps(message), content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert snapshot() == before


def test_http_links_and_relative_references_are_still_accepted(su):
    make_group(su, "g1")
    post_schema(su, "g1", "s1", body=b"", schemaURI="https://schemas.example.com/s1.json")
    post_schema(su, "g1", "s2", body=b"", schemaURI="http://schemas.example.com/s2.json")
    make_definition_group(su, "dg1")
    for did, url in (("d1", "#/schemaGroups/g1/schemas/s1"), ("d2", "/schemaGroups/g1/schemas/s2:Order")):
        definition = {
            "format": "CloudEvents/1.0",
            "metadata": {"attributes": {"type": {"value": f"com.example.{did}"}}},
            "schemaformat": "JsonSchema/draft-07",
            "schemaurl": url,
        }
        response = send(su, "POST", "/definitionGroups/dg1/definitions", definition, "application/json", id=did)
        assert response.status_code == 201, response.content


def test_no_admin_page_links_a_stored_javascript_or_data_url(client, superuser, su):
    """Stored before the rule (written here around the services): every admin page shows such URLs as text."""
    from registry.models import Version
    from sync.models import SyncSource

    seed()
    make_group(su, "g1")
    post_schema(su, "g1", "evil", body=b"", schemaURI="https://schemas.example.com/evil.json")
    post_schema(su, "g1", "tabbed", body=b"", schemaURI="https://schemas.example.com/tabbed.json")
    post_schema(su, "g1", "fine", body=b"", schemaURI="https://schemas.example.com/fine.json")
    Version.objects.filter(resource__rid="evil").update(resource_uri="javascript:alert(document.domain)")
    Version.objects.filter(resource__rid="tabbed").update(resource_uri=" java\tscript:alert(1)")
    SyncSource.objects.create(name="evil", base_url="data:text/html,<script>alert(1)</script>")
    client.force_login(superuser)
    evil = Version.objects.get(resource__rid="evil")
    pages = [
        *admin_pages(),
        reverse("admin:catalog_schema_document", args=[evil.resource_id]),
        reverse("admin:catalog_schemaversion_change", args=[evil.pk]),
    ]
    for url in pages:
        page = client.get(url).content.decode()
        assert unsafe_hrefs(page) == [], url
    schema_page = client.get(reverse("admin:catalog_schema_change", args=[evil.resource_id])).content.decode()
    schema_page = schema_page.replace("<wbr>", "")  # long values may wrap after their separators
    assert "javascript:alert(document.domain)" in schema_page  # shown, as text
    fine = Version.objects.get(resource__rid="fine")
    fine_page = client.get(reverse("admin:catalog_schema_change", args=[fine.resource_id])).content.decode()
    assert "href='https://schemas.example.com/fine.json'" in fine_page  # an http(s) URL is still a link
    version_page = client.get(reverse("admin:catalog_schemaversion_change", args=[fine.pk])).content.decode()
    assert "href='https://schemas.example.com/fine.json'" in version_page


def test_the_link_helper_reads_schemes_as_a_browser_does():
    from registry.governance.links import safe_href

    for url in (
        "javascript:alert(1)",
        " javascript:alert(1)",
        "\x01javascript:alert(1)",
        "java\tscript:alert(1)",
        "java\nscript:alert(1)",
        "JAVASCRIPT:alert(1)",
        "data:text/html,x",
        "vbscript:x",
        "mailto:x@example.com",
        "",
        None,
    ):
        assert safe_href(url) is None, url
    for url in ("https://a.example/x", "http://a.example", "/admin/", "#top", "relative/path:x", "?q=1"):
        assert safe_href(url) == url, url


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_bulk_import_refuses_them_too(tmp_path, capsys):
    from tests.pipeline.test_spark_import import spark_import

    document = {
        "specversion": "0.5-wip",
        "schemaGroups": {"g": {"schemas": {"s": {"versions": {"1": {"schemaURI": "javascript:alert(1)"}}}}}},
        "definitionGroups": {
            "dg": {
                "format": "CloudEvents/1.0",
                "definitions": {
                    "d": {
                        "format": "CloudEvents/1.0",
                        "metadata": {"attributes": {"type": {"value": "com.example.d"}}},
                        "schemaformat": "JsonSchema/draft-07",
                        "schemaurl": "data:text/html,x",
                    }
                },
            }
        },
    }
    path = tmp_path / "evil.cereg"
    path.write_text(json.dumps(document))
    report = tmp_path / "report.json"
    before = snapshot()
    code, out = spark_import(capsys, str(path), "--report", str(report))
    assert code == 3, out
    rejected = {r["path"]: r["reason"] for r in json.loads(report.read_text())["rejected"]}
    assert "schemaURI" in rejected["/schemaGroups/g/schemas/s/versions/1"]
    assert "schemaurl" in rejected["/definitionGroups/dg/definitions/d/versions/1"] or any(
        "schemaurl" in reason for reason in rejected.values()
    )
    after = snapshot()
    assert after[2] == before[2]  # no version written (the groups, valid on their own, may be)
