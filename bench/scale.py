"""How the registry's costs grow with its size (issue 40 part B): a registry of N versions made with `spark_import`,
served by gunicorn with the README's defaults on a throwaway PostgreSQL, and each figure of the issue's table printed
beside the size and the machine's load average (everything shares this machine's cores: PostgreSQL, gunicorn, the
client, and whatever else runs). Asserts nothing.

    .venv/bin/python bench/scale.py                        # 10k versions (about 2 minutes)
    .venv/bin/python bench/scale.py --sizes 10k,100k,1M    # 1M: 10,000 groups, 100,000 schemas
    .venv/bin/python bench/scale.py --checkout ../baseline # measure another checkout of this project (its migrations,
                                                           # its server) with this script and the same data

The registry of N versions (shape()): N/100 schema groups of 10 schemas of 10 versions (JSON Schema, each version
adding an optional property to the one before), one "wide" group of N/100 schemas of one version (deep pages of
schemas), one "long" schema of N/200 versions (deep pages of versions; its group's compatibility `none`), and one
definition group per 100 schema groups whose 100 definitions each name a schema by its `schemaurl` (what
`?referencedby` finds). Generated once per size under `--data` (default var/bench-scale/) and kept, with a dump of
the database after its import: a later run (of this checkout or another whose migrations include the dump's) restores
it and applies its own migrations instead of importing again (`--no-reuse` imports anew, and measures the import).

What is measured, in this order (times are the median of `--samples` sequential requests unless a line says p99):
the import's rate; Confluent's first `GET /subjects` after the import (every subject new to the API), then again;
first and deep pages of groups, schemas (of the wide group) and versions (of the long schema) through the 0.5 and
1.0 bindings (deep: reached by following `Link` with the largest page, then read with the default page size) and
Confluent's `/subjects` (`offset`); a filter on an attribute (of groups, of the wide group's schemas, of the long
schema's versions; 0.5 and 1.0), the search (the admin's search page, registry/store/search.py) for a word every
document holds, for a rare one and for a format every version has (alone and with a rare word), the schemas' and
versions' changelists searched for the common word, `?referencedby` of a schema (p99); `/registry/export` and
`GET /?inline` (seconds, versions/s, the answering worker's peak memory); new versions written one after the other
(through 0.5 and through Confluent); the admin's dashboard and changelists; the catalog map (whole and one group); each
worker's memory after `--mixed-seconds` of mixed reads by 4 clients, the largest worker's over the second half of them
(flat when the caches' bounds hold it) and the bytes the caches keep (`/metrics`) beside the sum of their documented
byte bounds; last, a bulk import of a hundredth more groups into the running server and Confluent's first
`GET /subjects` after it.

A large size is imported in runs of `spark_import` of at most IMPORT_RUN versions (`import_runs`); after each run but
the last the database is dumped with what is done (`partial.dump`, `partial.json` beside the inputs), so that a run
of the bench that was interrupted goes on where the import stopped (`--no-reuse` starts it again). Each run prints the
import's rate so far and the minutes it leaves: `bench/scale.py --sizes 1M` runs unattended, and can be started again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable
SCHEMAS_PER_GROUP = 10
VERSIONS_PER_SCHEMA = 10
DEFINITIONS_PER_GROUP = 100
GROUPS_PER_FILE = 200  # about 20,000 versions a file, as a real bulk import has several
WIDE, LONG, LONG_SCHEMA = "bench.wide", "bench.long", "Long"
CLIENT_TIMEOUT = 900.0
GENERATOR = 2  # the input's version: kept inputs of another are made again
WARM_UP = 10  # unmeasured requests before a p99 figure (gunicorn's workers answer in turn)
IMPORT_RUN = 200_000  # versions per run of spark_import (import_runs; --import-run)
PARTIAL_DUMP, PARTIAL_STATE = "partial.dump", "partial.json"  # an import's runs done so far (import_all)

SETUP = """
import json
from importlib import import_module
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from rest_framework.authtoken.models import Token
get_user_model().objects.filter(username="bench").delete()  # a restored dump's
user = get_user_model().objects.create_superuser("bench", "bench@example.com", "bench-password-not-secret")
session = import_module(settings.SESSION_ENGINE).SessionStore()
session[SESSION_KEY] = str(user.pk)
session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
session[HASH_SESSION_KEY] = user.get_session_auth_hash()
session.create()
print(json.dumps({"token": Token.objects.create(user=user).key, "session": session.session_key,
                  "cookie": settings.SESSION_COOKIE_NAME}))
"""


def parse_size(text: str) -> int:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmM]?)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (10k, 100k, 1M, 5000)")
    number, unit = float(match.group(1)), match.group(2).lower()
    return int(number * {"": 1, "k": 1_000, "m": 1_000_000}[unit])


def label(size: int) -> str:
    if size >= 1_000_000 and size % 1_000_000 == 0:
        return f"{size // 1_000_000}M"
    if size >= 1_000 and size % 1_000 == 0:
        return f"{size // 1_000}k"
    return str(size)


def shape(versions: int) -> dict:
    """How N versions are laid out: see the module's docstring."""
    wide = max(versions // 100, 10)
    long = max(versions // 200, 10)
    groups = max((versions - wide - long) // (SCHEMAS_PER_GROUP * VERSIONS_PER_SCHEMA), 1)
    return {
        "groups": groups,
        "wide": wide,
        "long": long,
        "definition_groups": max(groups // 100, 1),
        "versions": groups * SCHEMAS_PER_GROUP * VERSIONS_PER_SCHEMA + wide + long,
        "schemas": groups * SCHEMAS_PER_GROUP + wide + 1,
    }


def group_id(n: int) -> str:
    return f"com.example.group{n:05d}"


def schema_document(group: int, schema: int, version: int) -> dict:
    properties = {"id": {"type": "string"}, "amount": {"type": "number"}}
    for extra in range(1, version):
        properties[f"field{extra}"] = {"type": "string", "description": f"added in version {extra + 1}"}
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": f"Event {group}.{schema}",
        "type": "object",
        "properties": properties,
        "required": ["id"],
    }


def schema_groups(first: int, last: int) -> dict:
    out = {}
    for g in range(first, last):
        gid = group_id(g)
        out[gid] = {
            "id": gid,
            "description": f"benchmark group {g}",
            "tags": {"owner": f"team{g % 7}"},
            "schemas": {
                f"Event{s}": {
                    "id": f"Event{s}",
                    "format": "JsonSchema/draft-07",
                    "versions": {
                        str(v): {"id": str(v), "format": "JsonSchema/draft-07", "schema": schema_document(g, s, v)}
                        for v in range(1, VERSIONS_PER_SCHEMA + 1)
                    },
                }
                for s in range(SCHEMAS_PER_GROUP)
            },
        }
    return out


def generate(size: int, directory: Path) -> Path:
    """The input files of a registry of `size` versions under `directory` (kept: made once per size)."""
    layout = {**shape(size), "generator": GENERATOR}
    out = directory / label(size)
    done = out / "complete.json"
    if done.exists() and json.loads(done.read_text()) == layout:
        return out
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.cereg"):
        old.unlink()
    head = {"$schema": "https://cloudevents.io/schemas/registry", "specversion": "0.5-wip"}
    for first in range(0, layout["groups"], GROUPS_PER_FILE):
        last = min(first + GROUPS_PER_FILE, layout["groups"])
        (out / f"schemas-{first:06d}.cereg").write_text(
            json.dumps({**head, "schemaGroups": schema_groups(first, last)})
        )
    small = {"type": "object", "properties": {"id": {"type": "string"}}}
    wide = {
        f"Wide{s:06d}": {
            "id": f"Wide{s:06d}",
            "format": "JsonSchema/draft-07",
            "versions": {"1": {"id": "1", "format": "JsonSchema/draft-07", "schema": small}},
        }
        for s in range(layout["wide"])
    }
    long_versions = {
        str(v): {"id": str(v), "format": "JsonSchema/draft-07", "schema": {**small, "description": f"version {v}"}}
        for v in range(1, layout["long"] + 1)
    }
    special = {
        WIDE: {"id": WIDE, "description": "many schemas", "schemas": wide},
        LONG: {
            "id": LONG,
            "description": "one schema of many versions",
            "compatibility": "none",
            "schemas": {LONG_SCHEMA: {"id": LONG_SCHEMA, "format": "JsonSchema/draft-07", "versions": long_versions}},
        },
    }
    (out / "special.cereg").write_text(json.dumps({**head, "schemaGroups": special}))
    definitions = {}
    for d in range(layout["definition_groups"]):
        gid = f"com.example.events{d:04d}"
        definitions[gid] = {
            "id": gid,
            "format": "CloudEvents/1.0",
            "definitions": {
                f"Event{n}": {
                    "format": "CloudEvents/1.0",
                    "metadata": {"attributes": {"type": {"value": f"com.example.event{d}.{n}"}}},
                    "schemaformat": "JsonSchema/draft-07",
                    "schemaurl": f"/schemaGroups/{group_id(min(d * 100 + n // 10, layout['groups'] - 1))}"
                    f"/schemas/Event{n % 10}",
                }
                for n in range(DEFINITIONS_PER_GROUP)
            },
        }
    (out / "definitions.cereg").write_text(json.dumps({**head, "definitionGroups": definitions}))
    done.write_text(json.dumps(layout))
    return out


# --- measuring -----------------------------------------------------------------------------------------------


def load() -> float:
    return os.getloadavg()[0]


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return out


class Peak:
    """The workers' highest resident memory while a request runs (sampled every 20 ms)."""

    def __init__(self, arbiter: int):
        self.arbiter, self.before, self.peak, self.stop = arbiter, {}, {}, threading.Event()

    def __enter__(self):
        self.before = {pid: rss_mib(pid) for pid in children(self.arbiter)}
        self.peak = dict(self.before)
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()
        return self

    def sample(self):
        while not self.stop.wait(0.02):
            for pid in list(self.peak):
                self.peak[pid] = max(self.peak[pid], rss_mib(pid))

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def worst(self) -> tuple[float, float]:
        """(the highest peak, its growth over the worker's memory before) in MiB."""
        if not self.peak:
            return 0.0, 0.0
        pid = max(self.peak, key=lambda p: self.peak[p] - self.before.get(p, 0))
        return self.peak[pid], self.peak[pid] - self.before.get(pid, 0)


class Bench:
    def __init__(self, size: int, base: str, token: str, cookie: tuple[str, str], arbiter: int, samples: int):
        self.size, self.base, self.samples, self.arbiter = size, base, samples, arbiter
        self.client = httpx.Client(base_url=base, timeout=CLIENT_TIMEOUT)
        self.token = {"Authorization": f"Token {token}"}
        self.admin = httpx.Client(base_url=base, timeout=CLIENT_TIMEOUT, cookies={cookie[0]: cookie[1]})
        self.rows: list[tuple[str, str, str]] = []
        self.only: list[str] = []
        self.checkout, self.env = ROOT, dict(os.environ)  # where and how `manage.py shell` runs (admin_figures)

    def report(self, measure: str, figure: str, load_at: float | None = None) -> None:
        shown = f"load {load() if load_at is None else load_at:4.1f}"
        self.rows.append((measure, figure, shown))
        print(f"{label(self.size):>5} | {measure:58} | {figure:>34} | {shown}", flush=True)

    def get(self, path: str, client: httpx.Client | None = None, **kwargs) -> tuple[float, httpx.Response]:
        started = time.perf_counter()
        try:
            response = (client or self.client).get(path, **kwargs)
        except httpx.HTTPError as exc:
            return time.perf_counter() - started, httpx.Response(599, text=f"{type(exc).__name__}: {exc}")
        return time.perf_counter() - started, response

    def times(self, path: str, samples: int | None = None, client=None, **kwargs) -> tuple[list[float], int]:
        out, status = [], 200
        for _ in range(samples or self.samples):
            seconds, response = self.get(path, client, **kwargs)
            out.append(seconds)
            if response.status_code >= 400:
                status = response.status_code
                break
        return out, status

    def wanted(self, measure: str) -> bool:
        return not self.only or any(word.lower() in measure.lower() for word in self.only)

    def timed(
        self,
        measure: str,
        path: str,
        *,
        p99: bool = False,
        warm: bool = False,
        samples: int | None = None,
        client=None,
        **kw,
    ):
        if not self.wanted(measure):
            return
        if p99 or warm:  # each worker's first answer loads what it has not loaded yet: not the cost measured
            self.times(path, WARM_UP, client, **kw)
        began = load()
        seconds, status = self.times(path, samples, client, **kw)
        figure = f"{statistics.median(seconds) * 1000:8.1f} ms median"
        if p99:
            figure += f", p99 {percentile(seconds, 99) * 1000:7.1f}"
        if status >= 400:
            figure = f"HTTP {status} after {seconds[-1]:.2f} s"
        self.report(measure, figure, began)

    def deep(self, first: str, total_hint: int) -> str | None:
        """The URL of a page about 90% of the way through a collection: `Link` followed with the largest page, the
        last one read with the default size."""
        url, passed, goal = self.with_params(first, limit="1000"), 0, int(total_hint * 0.9)
        while passed + 1000 <= goal:
            _seconds, response = self.get(url)
            link = response.headers.get("Link", "")
            match = re.search(r"<([^>]+)>\s*;\s*rel=\"?next\"?", link)
            if response.status_code != 200 or not match:
                return None
            url, passed = match.group(1), passed + 1000
        return self.with_params(url, limit="100")

    @staticmethod
    def with_params(url: str, **params) -> str:
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        query.update(params)
        return urlunsplit(("", "", parts.path, urlencode(query, safe="*=,:"), ""))

    def whole(self, measure: str, path: str, versions: int, **kwargs) -> None:
        if not self.wanted(measure):
            return
        began = load()
        with Peak(self.arbiter) as peak:
            seconds, response = self.get(path, **kwargs)
            size = len(response.content)
        top, grown = peak.worst()
        if response.status_code != 200:
            detail = response.text[:160].replace("\n", " ")
            self.report(measure, f"HTTP {response.status_code} in {seconds:.2f} s", began)
            print(f"      {detail}")
            return
        self.report(
            measure,
            f"{seconds:6.2f} s, {versions / seconds:7.0f} v/s, {size / 2**20:5.0f} MiB, worker {top:4.0f} MiB (+{grown:.0f})",
            began,
        )


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def measure(bench: Bench, layout: dict) -> None:
    size = layout["versions"]
    group, schema = group_id(layout["groups"] // 2), "Event3"
    referenced = group_id(min(5, layout["groups"] - 1))

    # Confluent first (the first read after the import numbers every subject new to the API)
    began = load()
    seconds, response = bench.get("/confluent/subjects")
    subjects = len(response.json()) if response.status_code == 200 else 0
    figure = f"{seconds:7.2f} s, {subjects} subjects" if response.status_code == 200 else f"HTTP {response.status_code}"
    bench.report("Confluent GET /subjects, first after the import", figure, began)
    bench.timed("Confluent GET /subjects, again (all)", "/confluent/subjects", samples=3)

    # pages
    for binding, prefix, groups in (("0.5", "", "schemaGroups"), ("1.0", "/registry", "schemagroups")):
        collections = (
            ("groups", f"{prefix}/{groups}", layout["groups"] + 2),
            ("schemas", f"{prefix}/{groups}/{WIDE}/schemas", layout["wide"]),
            ("versions", f"{prefix}/{groups}/{LONG}/schemas/{LONG_SCHEMA}/versions", layout["long"]),
        )
        for what, path, total in collections:
            if not bench.wanted(f"{binding} {what}: first page, deep page"):
                continue
            bench.timed(f"{binding} {what}: first page (100)", f"{path}?limit=100")
            deep = bench.deep(f"{path}?limit=100", total)
            if deep is None:
                bench.report(f"{binding} {what}: deep page (90%)", "no Link to follow")
            else:
                bench.timed(f"{binding} {what}: deep page (90%)", deep)
    bench.timed("Confluent /subjects?offset=0&limit=100", "/confluent/subjects?offset=0&limit=100")
    deep_offset = int(subjects * 0.9)
    bench.timed("Confluent /subjects?offset=90%&limit=100", f"/confluent/subjects?offset={deep_offset}&limit=100")
    bench.timed("Confluent /subjects/LONG/versions", f"/confluent/subjects/:.{LONG}:{LONG_SCHEMA}/versions")

    # filters, search, references
    bench.timed("0.5 groups ?filter=tags.owner=team3 (p99)", "/schemaGroups?filter=tags.owner=team3", p99=True)
    bench.timed(
        "1.0 groups ?filter=description=<one group> (p99)",
        f"/registry/schemagroups?filter=description=benchmark group {layout['groups'] // 3}",
        p99=True,
    )
    half = layout["long"] // 2
    long_versions = f"{LONG}/schemas/{LONG_SCHEMA}/versions"
    bench.timed(
        "0.5 versions ?filter=id=<one> of the long schema (p99)",
        f"/schemaGroups/{long_versions}?filter=id={half}",
        p99=True,
    )
    bench.timed(
        "1.0 versions ?filter=versionid=<one> of the long schema (p99)",
        f"/registry/schemagroups/{long_versions}?filter=versionid={half}",
        p99=True,
    )
    wide_one = f"Wide{layout['wide'] // 2:06d}"
    bench.timed(
        "0.5 schemas ?filter=id=<one> of the wide group (p99)",
        f"/schemaGroups/{WIDE}/schemas?filter=id={wide_one}",
        p99=True,
    )
    bench.timed(
        "1.0 schemas ?filter=schemaid=<one> of the wide group (p99)",
        f"/registry/schemagroups/{WIDE}/schemas?filter=schemaid={wide_one}",
        p99=True,
    )
    bench.timed(
        "admin search, a word every document has (p99)",
        "/admin/registry/search/?q=amount",
        p99=True,
        client=bench.admin,
    )
    bench.timed(
        "admin search, a rare word (p99)",
        f"/admin/registry/search/?q=group{layout['groups'] // 4:05d}",
        p99=True,
        client=bench.admin,
    )
    bench.timed(
        "admin search, a format every version has (p99)",
        "/admin/registry/search/?q=JsonSchema",
        p99=True,
        client=bench.admin,
    )
    bench.timed(
        "admin search, a rare word and a format every version has (p99)",
        f"/admin/registry/search/?q=JsonSchema Wide{layout['wide'] // 3:06d}",
        p99=True,
        client=bench.admin,
    )
    for what, path in (("schemas", "/admin/catalog/schema/"), ("schema versions", "/admin/catalog/schemaversion/")):
        bench.timed(
            f"admin {what} changelist search, a word every document has (p99)",
            f"{path}?q=amount",
            p99=True,
            client=bench.admin,
        )
    bench.timed(
        "0.5 ?referencedby of a schema (p99)", f"/schemaGroups/{referenced}/schemas/Event3?referencedby", p99=True
    )

    # whole-registry answers
    bench.whole("/registry/export", "/registry/export", size)
    bench.whole("GET /?inline (0.5)", "/?inline", size)

    # writes: each to another schema, one after the other, through 0.5 and through Confluent
    def new_version(n: int, offset: int) -> tuple[str, dict]:
        body = schema_document(0, 0, VERSIONS_PER_SCHEMA + 1)
        body["properties"]["bench"] = {"type": "string", "description": f"write {n} {random.random()}"}
        return group_id((n * 7919 + offset) % layout["groups"]), body

    writes(
        bench, "write of a new version (POST, 0.5)", lambda n: ("/schemaGroups/{}/schemas/Event{}", new_version(n, 0))
    )
    writes(
        bench,
        "write of a new version (POST, Confluent)",
        lambda n: ("/confluent/subjects/:.{}:Event{}/versions", new_version(n, 3)),
        confluent=True,
    )
    if bench.wanted("Confluent GET /subjects after those writes"):
        began = load()
        seconds, response = bench.get("/confluent/subjects")
        bench.report("Confluent GET /subjects after those writes", f"{seconds * 1000:8.1f} ms", began)

    admin_figures(bench, layout, group)
    map_figures(bench, group)
    mixed(bench, layout, schema)


def writes(bench: Bench, measure: str, target, confluent: bool = False) -> None:
    """`--samples` new versions one after the other, each to another schema (`target(n)`: a URL pattern of the group
    and the schema, (the group, the document)); the median and p99 of their answers' times."""
    if not bench.wanted(measure):
        return
    began, times, status = load(), [], 200
    for n in range(bench.samples):
        pattern, (group, body) = target(n)
        url = pattern.format(group, (n + (5 if confluent else 0)) % 10)
        started = time.perf_counter()
        sent = {"schema": json.dumps(body), "schemaType": "JSON"} if confluent else body
        response = bench.client.post(url, json=sent, headers=bench.token)
        times.append(time.perf_counter() - started)
        if response.status_code >= 300:
            status = response.status_code
            print(f"      {response.text[:200]}")
            break
    figure = f"{statistics.median(times) * 1000:8.1f} ms median, p99 {percentile(times, 99) * 1000:.1f}"
    bench.report(measure, figure if status < 300 else f"HTTP {status}", began)


# the admin's changelists (app, model): every model the admin lists, of the registry and of the other apps
CHANGELISTS = (
    ("schema groups", "catalog/schemagroup"),
    ("schemas", "catalog/schema"),
    ("schema versions", "catalog/schemaversion"),
    ("definition groups", "catalog/definitiongroup"),
    ("definitions", "catalog/definition"),
    ("endpoints", "endpoints/endpoint"),
    ("outbox", "registry/outboxevent"),
    ("subscriptions", "subscriptions/subscription"),
    ("deliveries", "subscriptions/delivery"),
    ("delivery attempts", "subscriptions/deliveryattempt"),
    ("sync sources", "sync/syncsource"),
    ("sync runs", "sync/syncrun"),
    ("import runs", "pipeline/importrun"),
    ("KEKs", "confluent/kek"),
    ("DEKs", "confluent/dek"),
    ("teams", "auth/group"),
    ("users", "auth/user"),
    ("tokens", "authtoken/tokenproxy"),
)

PKS = """
import json
from registry.models import Resource
schema = Resource.objects.select_related("group").get(group__group_type="schemaGroups", group__gid="{group}", rid="Event3")
long = Resource.objects.get(group__group_type="schemaGroups", group__gid="{long}", rid="{long_schema}")
definition = Resource.objects.filter(group__group_type="definitionGroups").order_by("pk").first()
print(json.dumps({{"group": schema.group_id, "schema": schema.pk, "version": schema.latest_id, "long": long.pk,
                  "definitiongroup": definition.group_id, "definition": definition.pk}}))
"""


def admin_figures(bench: Bench, layout: dict, group: str) -> None:
    """The admin's dashboard, each changelist (its first page, the versions' page 50 and the last page its paginator
    links to, a list filter), the change pages of a group, a schema, the long schema and a version, and their
    history pages (median of 3, after WARM_UP unmeasured requests: the workers' first answers load the admin)."""
    if not any(bench.wanted(word) for word in ("admin", "changelist", "dashboard", "history", "change page")):
        return
    bench.timed("admin dashboard", "/admin/", samples=3, warm=True, client=bench.admin)
    for what, path in CHANGELISTS:
        bench.timed(f"admin {what} changelist", f"/admin/{path}/", samples=3, warm=True, client=bench.admin)
    versions = "/admin/catalog/schemaversion/"
    bench.timed(
        "admin schema versions changelist, page 50", f"{versions}?p=50", samples=3, warm=True, client=bench.admin
    )
    for what, path in (("schemas", "/admin/catalog/schema/"), ("schema versions", versions)):
        if not bench.wanted(f"admin {what} changelist, the last page linked"):
            continue
        _seconds, first = bench.get(path, client=bench.admin)
        last = max((int(p) for p in re.findall(r"[?&]p=(\d+)", first.text)), default=None)
        if last is not None:
            bench.timed(
                f"admin {what} changelist, the last page linked ({last})",
                f"{path}?p={last}",
                samples=3,
                warm=True,
                client=bench.admin,
            )
    _seconds, first = bench.get(versions, client=bench.admin)
    chosen = re.search(r"\?format=([^\"'&]+)", first.text)  # the format filter's first choice
    if chosen:
        bench.timed(
            "admin schema versions changelist, by format",
            f"{versions}?format={chosen.group(1)}",
            samples=3,
            warm=True,
            client=bench.admin,
        )
    bench.timed(
        "admin schemas changelist, by owner",
        "/admin/catalog/schema/?owner=team3",
        samples=3,
        warm=True,
        client=bench.admin,
    )
    found = subprocess.run(
        [PYTHON, "manage.py", "shell", "-v", "0", "-c", PKS.format(group=group, long=LONG, long_schema=LONG_SCHEMA)],
        cwd=bench.checkout,
        env=bench.env,
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode != 0:
        print(f"      no primary keys: {found.stderr[-300:]}")
        return
    pk = json.loads(found.stdout.strip().splitlines()[-1])
    for what, path in (
        ("a schema group", f"catalog/schemagroup/{pk['group']}"),
        ("a schema", f"catalog/schema/{pk['schema']}"),
        (f"the long schema ({layout['long']} versions)", f"catalog/schema/{pk['long']}"),
        ("a schema version", f"catalog/schemaversion/{pk['version']}"),
        ("a definition group", f"catalog/definitiongroup/{pk['definitiongroup']}"),
        ("a definition", f"catalog/definition/{pk['definition']}"),
    ):
        bench.timed(f"admin change page of {what}", f"/admin/{path}/change/", samples=3, warm=True, client=bench.admin)
        bench.timed(
            f"admin history page of {what}", f"/admin/{path}/history/", samples=3, warm=True, client=bench.admin
        )


def map_figures(bench: Bench, group: str) -> None:
    bench.timed("map.svg, the whole registry", "/map.svg", samples=1, headers=bench.token)
    bench.timed("map.svg, one group", f"/map.svg?root=/schemaGroups/{group}", samples=3, headers=bench.token)
    bench.timed("admin map page, the whole registry", "/admin/registry/map/", samples=1, client=bench.admin)


def mixed(bench: Bench, layout: dict, schema: str) -> None:
    """Mixed reads by 4 clients for `--mixed-seconds`, then each worker's memory."""
    if not bench.wanted("worker memory after the mixed reads"):
        return
    deadline = time.monotonic() + bench.mixed_seconds
    counts = [0]

    def paths():
        g = group_id(random.randrange(layout["groups"]))
        s, v = f"Event{random.randrange(10)}", random.randrange(1, 11)
        return random.choice(
            [
                f"/schemaGroups/{g}/schemas/{s}",
                f"/schemaGroups/{g}/schemas/{s}/versions/{v}",
                f"/registry/schemagroups/{g}/schemas/{s}/versions/{v}",
                f"/registry/schemagroups/{g}/schemas/{s}/versions/{v}$details",
                f"/schemaGroups/{g}/schemas?limit=10",
                f"/registry/schemagroups/{g}?inline",
                f"/confluent/subjects/:.{g}:{s}/versions/{v}",
                f"/confluent/subjects/:.{g}:{s}/versions",
                f"/schemaGroups?limit=50&filter=tags.owner=team{random.randrange(7)}",
            ]
        )

    def client():
        with httpx.Client(base_url=bench.base, timeout=CLIENT_TIMEOUT) as http:
            while time.monotonic() < deadline:
                try:
                    http.get(paths())
                except httpx.HTTPError:
                    pass
                counts[0] += 1

    began = load()
    threads = [threading.Thread(target=client) for _ in range(4)]
    for thread in threads:
        thread.start()
    samples = []  # (seconds since the start, the largest worker's memory, their sum) every tenth of the run
    started = time.monotonic()
    while any(thread.is_alive() for thread in threads):
        time.sleep(min(bench.mixed_seconds / 10, 60))
        workers = [rss_mib(pid) for pid in children(bench.arbiter)]
        samples.append((time.monotonic() - started, max(workers, default=0), sum(workers)))
    for thread in threads:
        thread.join()
    workers = sorted(rss_mib(pid) for pid in children(bench.arbiter))
    bench.report(
        f"worker memory after {bench.mixed_seconds} s of mixed reads ({counts[0]} reads)",
        "MiB " + ", ".join(f"{m:.0f}" for m in workers),
        began,
    )
    half = [largest for seconds, largest, _sum in samples if seconds >= bench.mixed_seconds / 2]
    bench.report(
        "the largest worker over the mixed reads' second half",
        f"{min(half, default=0):.0f}-{max(half, default=0):.0f} MiB (at a tenth: {samples[0][1]:.0f})",
        began,
    )
    kept, bound = cache_bytes(bench)
    bench.report(
        "caches' bytes after the mixed reads, all workers (bound)",
        f"{kept / 2**20:.1f} MiB ({bound / 2**20:.0f} MiB)" if kept is not None else "no /metrics",
        began,
    )


# the per-process caches bounded in bytes, and their bounds (docs/performance.md, "Per-process caches"); the others are
# bounded in entries
CACHE_BYTES = {  # (a setting's name: its value in the server's environment, else its default)
    "fast_read_answers": ("REGISTRY_FAST_READ_BYTES", 16 * 2**20),
    "rendered_answers": ("REGISTRY_RENDERED_ANSWER_BYTES", 32 * 2**20),
    "rendered_groups": ("REGISTRY_RENDERED_ANSWER_BYTES", 32 * 2**20),
    "earlier_documents": 32 * 2**20,
    "compatibility_frontiers": 16 * 2**20,
    "parsed_schemas": 16 * 2**20,
}


def cache_bytes(bench: Bench) -> tuple[float | None, float]:
    """(the bytes the live workers' caches keep, summed as `/metrics` gives them, None without metrics; the sum of the
    caches' byte bounds times the workers)."""
    _seconds, response = bench.get("/metrics", headers={"Authorization": f"Bearer {bench.metrics_token}"})
    kept = None
    if response.status_code == 200:
        found = re.findall(r'^registry_cache_bytes\{cache="([^"]+)"\} ([0-9.e+]+)$', response.text, re.M)
        kept = sum(float(value) for _name, value in found)
    per_worker = sum(b if isinstance(b, int) else int(os.environ.get(b[0], b[1])) for b in CACHE_BYTES.values())
    return kept, per_worker * len(children(bench.arbiter))


def later_import(bench: Bench, layout: dict, args, env: dict, var: Path) -> None:
    """A bulk import into the running server (a hundredth of the groups again, new ones), then Confluent's first
    `GET /subjects`: every subject it made is new to the API, and each worker's kept answers are stale."""
    count = max(layout["groups"] // 100, 1)
    path = var / "later.cereg"
    head = {"$schema": "https://cloudevents.io/schemas/registry", "specversion": "0.5-wip"}
    path.write_text(json.dumps({**head, "schemaGroups": schema_groups(layout["groups"], layout["groups"] + count)}))
    versions = count * SCHEMAS_PER_GROUP * VERSIONS_PER_SCHEMA
    began, started = load(), time.perf_counter()
    result = subprocess.run(
        [PYTHON, "manage.py", "spark_import", str(path), "--master", "local[2]", "-v", "0"],
        cwd=args.checkout,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    figure = f"{seconds:6.1f} s" if result.returncode == 0 else f"failed: {result.stderr[-200:]}"
    bench.report(f"spark_import of {versions} versions into the running server", figure, began)
    began = load()
    seconds, response = bench.get("/confluent/subjects")
    subjects = len(response.json()) if response.status_code == 200 else 0
    figure = f"{seconds:7.2f} s, {subjects} subjects" if response.status_code == 200 else f"HTTP {response.status_code}"
    bench.report("Confluent GET /subjects, first after that import", figure, began)


def answers(base: str, port: int) -> bool:
    """Whether a worker answers (the arbiter opens the port before its workers have loaded Django)."""
    from tests.harness import services

    try:
        return services.port_open(port) and httpx.get(base + "/healthz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


# --- one size --------------------------------------------------------------------------------------------------


def run_size(size: int, args) -> list[tuple[str, str, str]]:
    from tests.harness import services

    layout = shape(size)
    print(f"\n== {label(size)} versions: {json.dumps(layout)}; checkout {args.checkout}", flush=True)
    args.data.mkdir(parents=True, exist_ok=True)
    print(
        f"   disk: {subprocess.run(['df', '-h', str(args.data)], capture_output=True, text=True).stdout.splitlines()[-1]}"
    )
    started = time.perf_counter()
    inputs = generate(size, args.data)
    print(f"   input: {inputs} ({time.perf_counter() - started:.0f} s)", flush=True)
    postgres = services.start_postgres()
    var = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    env = {
        **os.environ,
        "DATABASE_URL": postgres.url,
        "REGISTRY_VAR_DIR": str(var),
        "DJANGO_DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONPATH": "",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),
        "REGISTRY_METRICS_TOKEN": secrets.token_urlsafe(20),  # the caches' bytes after the mixed reads
    }
    env.pop("CELERY_BROKER_URL", None)
    for name in ("WEB_CONCURRENCY", "GUNICORN_THREADS"):
        env.pop(name, None)  # the README's defaults
    server = None
    try:
        manage = [PYTHON, "manage.py"]
        migrations = sorted(str(m.relative_to(args.checkout)) for m in args.checkout.glob("*/migrations/0*.py"))
        dump = reusable_dump(inputs, migrations) if args.reuse else None
        runs = import_runs(inputs, args.import_run)
        partial = partial_import(inputs, migrations, len(runs)) if args.reuse and dump is None else None
        if dump is not None or partial is not None:  # restored, then this checkout's migrations
            restore(postgres.url, dump or inputs / PARTIAL_DUMP)
        subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], cwd=args.checkout, env=env, check=True)
        setup = json.loads(
            subprocess.run(
                [*manage, "shell", "-v", "0", "-c", SETUP],
                cwd=args.checkout,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        bench_rows: list[tuple[str, str, str]] = []
        if dump is not None:
            print(f"   restored {dump} (its import is not measured again; --no-reuse imports anew)", flush=True)
        else:
            row = import_all(args, size, env, postgres.url, inputs, runs, migrations, partial)
            bench_rows.append(row)
            keep_dump(inputs, migrations, postgres.url)
            (inputs / PARTIAL_DUMP).unlink(missing_ok=True)
            (inputs / PARTIAL_STATE).unlink(missing_ok=True)
        subprocess.run(
            ["psql", postgres.url, "-q", "-c", "VACUUM ANALYZE"], check=False, capture_output=True
        )  # as autovacuum would after a bulk load, so that the planner knows the tables' sizes
        port = services.free_port()
        server = subprocess.Popen(
            [str(Path(PYTHON).parent / "gunicorn"), "-c", "gunicorn.conf.py"],
            cwd=args.checkout,
            env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}"},
            stdout=subprocess.DEVNULL,
            stderr=open(var / "gunicorn.log", "w"),  # noqa: SIM115 - closed with the process
            start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        services.wait_for(lambda: answers(base, port), 180, "gunicorn", interval=0.5)
        bench = Bench(size, base, setup["token"], (setup["cookie"], setup["session"]), server.pid, args.samples)
        bench.mixed_seconds, bench.metrics_token = args.mixed_seconds, env["REGISTRY_METRICS_TOKEN"]
        bench.checkout, bench.env = args.checkout, env  # admin_figures' primary keys
        bench.only = [w for w in (args.only or "").split(",") if w.strip()]
        bench.rows = bench_rows
        measure(bench, layout)
        if bench.wanted("Confluent GET /subjects, first after that import"):
            later_import(bench, layout, args, env, var)
        if args.hold:
            print(f"holding: DATABASE_URL={postgres.url} server {base} (Ctrl-C ends)", flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        return bench.rows
    finally:
        if server is not None:
            os.killpg(server.pid, 15)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, 9)
        postgres.stop()


def import_runs(inputs: Path, versions: int) -> list[list[Path]]:
    """The input files in the order they are imported, cut into runs of `spark_import` of at most `versions` each (but
    one file at least): the schema files, the special groups with the first, the definitions (which name schemas) with
    the last."""
    schemas = sorted(inputs.glob("schemas-*.cereg"))
    per_run = max(versions // (GROUPS_PER_FILE * SCHEMAS_PER_GROUP * VERSIONS_PER_SCHEMA), 1)
    runs = [schemas[n : n + per_run] for n in range(0, len(schemas), per_run)] or [[]]
    runs[0].append(inputs / "special.cereg")
    runs[-1].append(inputs / "definitions.cereg")
    return runs


def partial_import(inputs: Path, migrations: list[str], runs: int) -> dict | None:
    """What an interrupted import of these inputs left (its runs done, their seconds, loads and results), when its dump
    can be restored here (its migrations are this checkout's, or some of them) and it cut the input as this one does."""
    state = inputs / PARTIAL_STATE
    if not state.exists() or not (inputs / PARTIAL_DUMP).exists():
        return None
    partial = json.loads(state.read_text())
    if not set(partial["migrations"]) <= set(migrations) or partial["runs"] != runs:
        return None
    return partial


def restore(url: str, dump: Path) -> None:
    subprocess.run([str(pg_tool("pg_restore")), "--no-owner", "-d", url, str(dump)], check=True, capture_output=True)


def import_all(args, size: int, env: dict, url: str, inputs: Path, runs: list, migrations: list, partial) -> tuple:
    """Import the inputs run after run (`import_runs`), each run's database dumped (PARTIAL_DUMP) with what is done
    (PARTIAL_STATE) when more runs follow, so that an interrupted import goes on where it stopped: a 1M import takes
    long, on a machine that others share. The figure: every run's seconds summed (not the dumps'), resumed or not."""
    state = partial or {
        "migrations": migrations,
        "runs": len(runs),
        "done": 0,
        "seconds": 0.0,
        "loads": [],
        "lines": [],
    }
    versions = shape(size)["versions"]
    if partial:
        print(f"   resuming an import: {state['done']} of {len(runs)} runs done ({state['seconds']:.0f} s)", flush=True)
    for number in range(state["done"], len(runs)):
        state["loads"].append(load())
        started = time.perf_counter()
        result = subprocess.run(
            [PYTHON, "manage.py", "spark_import", *map(str, runs[number]), "--master", "local[2]", "-v", "0"],
            cwd=args.checkout,
            env=env,
            capture_output=True,
            text=True,
        )
        state["seconds"] += time.perf_counter() - started
        state["lines"].append((result.stdout.strip().splitlines() or ["(no output)"])[-1])
        if result.returncode not in (0, 3):
            print(result.stderr[-3000:])
            raise SystemExit(f"spark_import failed (run {number + 1} of {len(runs)}: {runs[number]})")
        state["done"] = number + 1
        done = sum(f.stat().st_size for r in runs[: number + 1] for f in r) / sum(
            f.stat().st_size for r in runs for f in r
        )
        rate = done * versions / state["seconds"]  # (the versions done, as a share of the input's bytes)
        if state["done"] < len(runs):
            # the dump, then what it holds, each whole (renamed into place): stopped between the two, the next run
            # imports a run the dump holds again, and spark_import finds it unchanged
            part = inputs / f"{PARTIAL_DUMP}.part"
            subprocess.run([str(pg_tool("pg_dump")), "-Fc", "-Z", "1", "-f", str(part), url], check=True)
            part.replace(inputs / PARTIAL_DUMP)
            (inputs / f"{PARTIAL_STATE}.part").write_text(json.dumps(state))
            (inputs / f"{PARTIAL_STATE}.part").replace(inputs / PARTIAL_STATE)
            left = (1 - done) * versions / rate
            print(
                f"   import run {state['done']} of {len(runs)}: {state['seconds']:.0f} s so far, about {rate:.0f} "
                f"versions/s, about {left / 60:.0f} min of import left",
                flush=True,
            )
    seconds = state["seconds"]
    runs_text = f", {len(runs)} runs" if len(runs) > 1 else ""
    figure = f"{seconds:6.0f} s, {versions / seconds:5.0f} versions/s{runs_text}"
    loads = state["loads"]
    row = (
        "spark_import local[2]",
        figure,
        f"load {min(loads):4.1f}-{max(loads):.1f}" if len(loads) > 1 else f"load {loads[0]:4.1f}",
    )
    print(f"{label(size):>5} | {row[0]:58} | {row[1]:>34} | {row[2]}  ({'; '.join(state['lines'])})", flush=True)
    return row


def pg_tool(name: str) -> Path:
    from tests.harness import services

    return services.pg_bin() / name


def reusable_dump(inputs: Path, migrations: list[str]) -> Path | None:
    """A dump of this data imported by an earlier run whose migrations this checkout has too (its own are applied
    after the restore): the import of 100k versions takes minutes on a busy machine, a restore seconds."""
    for meta in sorted(inputs.glob("db-*.json")):
        applied = json.loads(meta.read_text())
        dump = meta.with_suffix(".dump")
        if dump.exists() and set(applied) <= set(migrations):
            return dump
    return None


def keep_dump(inputs: Path, migrations: list[str], url: str) -> None:
    name = "db-" + hashlib.sha1("\n".join(migrations).encode()).hexdigest()[:10]
    target = inputs / f"{name}.dump"
    subprocess.run([str(pg_tool("pg_dump")), "-Fc", "-f", str(target), url], check=True)
    (inputs / f"{name}.json").write_text(json.dumps(migrations))


def interrupted(*_args) -> None:
    """SIGTERM as Ctrl-C: the servers are stopped on the way out."""
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k", help="versions, comma-separated: 10k,100k,1M (default 10k)")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout to serve (default: this one)")
    parser.add_argument("--data", type=Path, default=ROOT / "var" / "bench-scale", help="where inputs are kept")
    parser.add_argument("--samples", type=int, default=20, help="requests per timed figure (default 20)")
    parser.add_argument("--mixed-seconds", type=int, default=20, help="mixed reads before the memory figure")
    parser.add_argument("--only", help="measure only the figures whose names hold one of these words (comma-separated)")
    parser.add_argument(
        "--import-run", type=parse_size, default=IMPORT_RUN, help="versions per run of spark_import (default 200k)"
    )
    parser.add_argument("--no-reuse", dest="reuse", action="store_false", help="import anew, not from a kept dump")
    parser.add_argument("--hold", action="store_true", help="keep the server and database up after each size")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, interrupted)
    args.checkout = args.checkout.resolve()
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    print(
        f"bench/scale.py: {os.cpu_count()} cores, load average {load():.1f}; gunicorn with the README's defaults "
        f"(gunicorn.conf.py: 2 x CPUs + 1 workers x 4 threads), PostgreSQL 15 (durability off), spark_import local[2]"
    )
    results = {size: {m: f"{f} ({lo})" for m, f, lo in run_size(size, args)} for size in sizes}
    measures = list(dict.fromkeys(m for rows in results.values() for m in rows))
    print("\n| measure | " + " | ".join(label(s) for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for name in measures:
        print(f"| {name} | " + " | ".join(" ".join(results[s].get(name, "").split()) for s in sizes) + " |")


if __name__ == "__main__":
    main()
