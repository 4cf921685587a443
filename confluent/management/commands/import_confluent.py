"""`manage.py import_confluent --url URL [--subjects REGEX]`: copy every subject, version, reference and
compatibility setting of a running Confluent-compatible registry into this one, schema ids and version numbers
preserved (docs/confluent.md). Idempotent: a version already here with the same content and number is left alone,
so a second run writes nothing.

Each version is registered through `confluent.services.register` (hence `registry.services`, with change
events). A subject's versions are imported under the level `none` (the source accepted them under its own rules),
then the subject gets the source's level. Soft-deleted versions of the source are not copied.
"""

from __future__ import annotations

import re
import sys
import uuid
from urllib.parse import quote, urlsplit, urlunsplit

import httpx
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from registry.services import WriteContext

from ... import selectors, services
from ...errors import ConfluentError
from ...subjects import parse


class Source:
    """The source registry, read with its REST API (credentials in the URL are sent as HTTP Basic)."""

    def __init__(self, url: str):
        parts = urlsplit(url)
        auth = None
        if parts.username is not None:
            auth = (parts.username, parts.password or "")
            parts = parts._replace(netloc=(parts.hostname or "") + (f":{parts.port}" if parts.port else ""))
        self.client = httpx.Client(base_url=urlunsplit(parts).rstrip("/"), auth=auth, timeout=60)

    def get(self, path: str, **params):
        response = self.client.get(path, params=params)
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            raise CommandError(f"{path}: the source answered {response.status_code} {response.text[:300]}")
        return response.json()


def subject_path(subject: str) -> str:
    return quote(subject, safe="")


class Command(BaseCommand):
    help = "Copy subjects, versions, references and compatibility levels of a Confluent-compatible registry."

    def add_arguments(self, parser):
        parser.add_argument("--url", required=True, help="the source registry's base URL (user:password@ allowed)")
        parser.add_argument("--subjects", default=None, help="a regular expression subject names must match")

    def handle(self, *args, url: str, subjects: str | None, **options):
        pattern = re.compile(subjects) if subjects else None
        source = Source(url)
        names = [n for n in source.get("/subjects") or [] if pattern is None or pattern.fullmatch(n)]
        versions, levels = [], {}
        for name in names:
            for number in source.get(f"/subjects/{subject_path(name)}/versions") or []:
                found = source.get(f"/subjects/{subject_path(name)}/versions/{number}")
                if found is not None:
                    versions.append(found)
            config = source.get(f"/config/{subject_path(name)}")
            levels[name] = config.get("compatibilityLevel") if config else None
        versions.sort(key=lambda v: (v["id"], v["subject"], v["version"]))
        ctx = WriteContext(user=None, base_url=settings.REGISTRY_BASE_URL, door="import")
        created = unchanged = 0
        failures: list[str] = []
        pending = versions
        touched: set[str] = set()
        with tqdm(total=len(versions), unit="version", file=sys.stderr, disable=None) as bar:
            while pending:
                retry = []
                for item in pending:
                    outcome = self._import(ctx, item, touched)
                    if outcome == "later":
                        retry.append(item)
                        continue
                    if outcome in ("created", "unchanged"):
                        created += outcome == "created"
                        unchanged += outcome == "unchanged"
                    else:
                        failures.append(outcome)
                    bar.update(1)
                if len(retry) == len(pending):  # references that never resolve
                    failures += [f"{v['subject']} version {v['version']}: a reference is missing" for v in retry]
                    bar.update(len(retry))
                    break
                pending = retry
        for name in names:
            self._set_level(ctx, name, levels.get(name), name in touched)
        for failure in failures:
            self.stderr.write(failure)
        self.stdout.write(
            f"subjects {len(names)}, versions created {created}, unchanged {unchanged}, failed {len(failures)}"
        )
        if failures:
            raise CommandError(f"{len(failures)} version(s) could not be imported")

    def _import(self, ctx: WriteContext, item: dict, touched: set[str]) -> str:
        subject = parse(item["subject"])
        resource = selectors.find_resource(subject)
        if resource is not None:
            for row in selectors.subject_versions(resource):
                if row.number == item["version"] and row.schema_id_id == item["id"]:
                    return "unchanged"
        refs = item.get("references") or []
        for ref in refs:
            ref_resource = selectors.find_resource(parse(ref["subject"]))
            if ref_resource is None or not any(
                r.number == ref["version"] for r in selectors.subject_versions(ref_resource, deleted=True)
            ):
                return "later"
        if item["subject"] not in touched:
            touched.add(item["subject"])
            if selectors.subject_compatibility(subject) != "none":
                services.set_compatibility(ctx=ctx, subject=subject, level="none")
        data = services.Registration(
            schema=item["schema"],
            schema_type=item.get("schemaType", "AVRO"),
            references=refs,
            metadata=item.get("metadata"),
            rule_set=item.get("ruleSet"),
            id=item["id"],
            version=item["version"],
            guid=_guid(item.get("guid")),
        )
        try:
            services.register(ctx=ctx, subject=subject, data=data, importing=True)
        except ConfluentError as exc:
            return f"{item['subject']} version {item['version']} (id {item['id']}): {exc.message}"
        return "created"

    def _set_level(self, ctx: WriteContext, name: str, level: str | None, touched: bool) -> None:
        subject = parse(name)
        wanted = level.lower() if level else None
        if selectors.subject_compatibility(subject) != wanted and (touched or wanted is not None):
            services.set_compatibility(ctx=ctx, subject=subject, level=wanted)


def _guid(value) -> uuid.UUID | None:
    """The source's GUID of a version's content (Confluent answers it with the version), kept when it is one."""
    try:
        return uuid.UUID(value) if isinstance(value, str) else None
    except ValueError:
        return None
