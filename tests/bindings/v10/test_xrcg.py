"""xrcg (PyPI, pinned in tests/harness/xrcg.py) as a real client of the 1.0 binding of a live server
(gunicorn, tests/harness/gunicorn.py) holding the nine rc4 documents, imported through `POST /registry/`.

The commands are the ones that work on the published documents themselves (xrcg reads files as well as
URLs): `xrcg generate --language py --style producer --messagegroup G --definitions SOURCE`, for every
message group of the nine documents, must give the same result from the server's `/registry?inline=*` as from
the document file: the same producer classes and the same data classes. (Not from `/registry/export`: that is
rc4's document view, whose Resources leave their default version's attributes to their versions, and xrcg 0.11
reads a message's `dataschemauri` on the message, so it writes no data class from it; `xrcg validate` accepts
the export.) The file is taken with each
version's `versionid` filled in from its key, as any server's export has it: xrcg needs it, and the
published mqtt-sparkplugB omits it. Two documents need a word:
- smartoven-xsd: its schemas are XML Schema, for which xrcg's Python templates write no data class; the
  producer is still written.
- mqtt-sparkplugB: its Protobuf schema is not in the document but at an external `schemaurl`, which a test
  cannot fetch; for the groups that use it xrcg fails on the file with "Schema not found: <that URL>", and
  must fail the same way (and no other) through the server, which shows it resolved everything the registry
  holds.
"""

import json
import os
import re
import urllib.request
from pathlib import Path

import pytest

from tests.corpus import corpus, documents
from tests.harness.gunicorn import start_gunicorn
from tests.harness.xrcg import run_xrcg

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite_server]

# the whole module reads the corpus (its live servers hold it): skipped without ../shared (tests/corpus.py)
RC4 = corpus("rc4")
RC4_DOCUMENTS = documents("rc4", "*.xreg.json")

EXTERNAL_PROTO = "https://raw.githubusercontent.com/Cirrus-Link/Sparkplug/master/sparkplug_b/sparkplug_b.proto"
GROUPS = [(path.name, gid) for path in RC4_DOCUMENTS for gid in json.loads(path.read_text()).get("messagegroups", {})]


def _request(method, url, token, body=None):
    request = urllib.request.Request(
        url,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture(scope="module")
def live(xrcg, tmp_path_factory):
    """A gunicorn server with the nine rc4 documents imported through POST /registry/; (base URL, token,
    work dir). A netrc file gives xrcg's `requests` HTTP Basic credentials (xrcg's catalog commands have no
    credential option)."""
    directory = tmp_path_factory.mktemp("xrcg-live")
    # the rc4 documents make no compatibility statement, which in 1.0 means none (watchkam's v2 breaks its v1)
    process, base, token = start_gunicorn(directory, REGISTRY_DEFAULT_COMPATIBILITY="none")
    try:
        for path in RC4_DOCUMENTS:
            status, body = _request("POST", f"{base}/registry/", token, json.loads(path.read_text()))
            assert status == 200, f"import of {path.name}: {status} {body[:1000]!r}"
        netrc = directory / "netrc"
        netrc.write_text("machine 127.0.0.1 login ops password pw\n")
        netrc.chmod(0o600)
        yield base, token, directory
    finally:
        process.stop()


def data_classes(out: Path) -> set[str]:
    """The data class modules xrcg wrote below each `*Data/src` (`__init__.py` aside), by file name: xrcg puts
    Protobuf-derived classes under a temporary directory name."""
    return {p.name for d in out.glob("*Data/src") for p in d.rglob("*.py") if p.name != "__init__.py"}


def producer_classes(out: Path) -> set[str]:
    return {m for p in out.rglob("producer_client.py") for m in re.findall(r"^class (\w+)", p.read_text(), re.M)}


def generate(source: str, group: str, out: Path) -> "subprocess.CompletedProcess":  # noqa: F821
    return run_xrcg(
        "generate",
        "--language",
        "py",
        "--style",
        "producer",
        "--projectname",
        "xrcgtest",
        "--messagegroup",
        group,
        "--definitions",
        source,
        "--output",
        str(out),
    )


def test_xrcg_validate_export(live):
    base, _, _ = live
    result = run_xrcg("validate", "--definitions", f"{base}/registry/export")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def with_versionids(document: dict) -> dict:
    """The document with every version's `versionid` set from its key (as a server's export has it)."""
    for groups in ("messagegroups", "schemagroups"):
        for group in document.get(groups, {}).values():
            for resources in ("messages", "schemas"):
                for resource in group.get(resources, {}).values():
                    for vid, version in resource.get("versions", {}).items():
                        version.setdefault("versionid", vid)
    return document


@pytest.mark.parametrize(("document", "group"), GROUPS, ids=[f"{d}:{g}" for d, g in GROUPS])
def test_xrcg_generates_a_python_producer_from_the_export(live, tmp_path, document, group):
    base, _, _ = live
    source = tmp_path / document
    source.write_text(json.dumps(with_versionids(json.loads((RC4 / document).read_text()))))
    baseline = generate(str(source), group, tmp_path / "file")
    result = generate(f"{base}/registry?inline=*", group, tmp_path / "server")
    output = result.stdout[-3000:] + result.stderr[-3000:]
    if baseline.returncode == 0:
        assert result.returncode == 0, output
        assert producer_classes(tmp_path / "server") == producer_classes(tmp_path / "file") != set()
        assert data_classes(tmp_path / "server") == data_classes(tmp_path / "file")
        if not document.startswith(("smartoven-xsd", "mqtt-sparkplugB")):
            assert data_classes(tmp_path / "server"), "no data class was generated"
    else:
        assert document.startswith("mqtt-sparkplugB"), baseline.stderr[-2000:]
        assert f"Schema not found: {EXTERNAL_PROTO}" in baseline.stderr, baseline.stderr[-2000:]
        assert result.returncode != 0 and f"Schema not found: {EXTERNAL_PROTO}" in output, output


def test_xrcg_catalog_creates_and_reads_a_message_group_and_a_schema(live):
    base, token, directory = live
    catalog = f"{base}/registry"
    env = {"NETRC": str(directory / "netrc")}

    def xrcg(*args):
        result = run_xrcg("catalog", *args, "--catalog", catalog, env=env)
        assert result.returncode == 0, " ".join(args) + "\n" + result.stdout[-3000:] + result.stderr[-3000:]
        return result.stdout

    xrcg(
        "messagegroup",
        "add",
        "--messagegroupid",
        "xrcg.Probe",
        "--description",
        "made by xrcg",
        "--envelope",
        "CloudEvents/1.0",
    )
    shown = json.loads(xrcg("messagegroup", "show", "--messagegroupid", "xrcg.Probe"))
    assert shown["messagegroupid"] == "xrcg.Probe"
    assert shown["description"] == "made by xrcg"

    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    xrcg("schemagroup", "add", "--schemagroupid", "xrcg.Schemas")
    xrcg(
        "schemagroup",
        "schema",
        "add",
        "--schemagroupid",
        "xrcg.Schemas",
        "--schemaid",
        "Probe",
        "--versionid",
        "1",
        "--format",
        "JsonSchema/draft-07",
        "--schema",
        json.dumps(schema),
    )
    assert (
        json.loads(
            xrcg(
                "schemagroup",
                "schema",
                "show",
                "--schemagroupid",
                "xrcg.Schemas",
                "--schemaid",
                "Probe",
                "--versionid",
                "1",
            )
        )
        == schema
    )

    # and the server holds them, read back through the binding by another client
    status, body = _request("GET", f"{catalog}/messagegroups/xrcg.Probe", token)
    assert status == 200 and json.loads(body)["description"] == "made by xrcg"
    status, body = _request("GET", f"{catalog}/schemagroups/xrcg.Schemas/schemas/Probe/versions/1$details", token)
    assert status == 200, body[:500]
    assert json.loads(body)["format"] == "JsonSchema/draft-07"
    status, body = _request("GET", f"{catalog}/schemagroups/xrcg.Schemas/schemas/Probe", token)
    assert status == 200 and json.loads(body) == schema


def test_netrc_is_what_gives_xrcg_credentials(live):
    """Without the netrc file xrcg's catalog writes are anonymous, and the server refuses them."""
    base, _, _ = live
    result = run_xrcg(
        "catalog",
        "messagegroup",
        "add",
        "--catalog",
        f"{base}/registry",
        "--messagegroupid",
        "xrcg.Anonymous",
        env={"NETRC": os.devnull},
    )
    assert result.returncode != 0


@pytest.fixture(scope="module")
def live_at_root(xrcg, tmp_path_factory):
    """A gunicorn server answering xRegistry 1.0 at the host root (REGISTRY_ROOT_BINDING=xregistry-1.0), with the
    nine rc4 documents imported through `POST /`."""
    directory = tmp_path_factory.mktemp("xrcg-root")
    process, base, token = start_gunicorn(
        directory, REGISTRY_ROOT_BINDING="xregistry-1.0", REGISTRY_DEFAULT_COMPATIBILITY="none"
    )
    try:
        for path in RC4_DOCUMENTS:
            status, body = _request("POST", f"{base}/", token, json.loads(path.read_text()))
            assert status == 200, f"import of {path.name}: {status} {body[:1000]!r}"
        yield base, token
    finally:
        process.stop()


def test_xrcg_generates_from_a_group_url_when_10_is_at_the_root(live_at_root, tmp_path):
    """Real 1.0 documents reference schemas by registry-relative paths (`/schemagroups/Fabrikam.Lumen/...`): with
    1.0 at the host root they resolve, so xrcg generates from a group's URL with no 404 (with 1.0 at /registry it
    wrote nothing and exited 1)."""
    base, token = live_at_root
    result = generate(f"{base}/messagegroups/Fabrikam.Lumen", "Fabrikam.Lumen", tmp_path / "out")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert "404" not in output, output[-3000:]
    assert producer_classes(tmp_path / "out") and data_classes(tmp_path / "out")
    # the 0.5-wip binding moved below /v0.5/
    status, body = _request("GET", f"{base}/v0.5/schemaGroups/Fabrikam.Lumen", token)
    assert status == 200 and json.loads(body)["self"] == f"{base}/v0.5/schemaGroups/Fabrikam.Lumen", body[:500]
