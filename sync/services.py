"""Pulling from a remote registry: fetch its document for the source's scope, import it with the source
as origin (so local edits to synced entities are refused), and delete what the remote no longer has.

The remote serves registry documents either in the 0.5 shape (`GET /?inline` and `GET /GROUPs/gID?inline`
with `Accept: application/cloudevents-registry+json`, as this server's `/` does) or as an xRegistry 1.0
server (its root answers `specversion` 1.x: this server's `/registry`, the reference server): then
`GET /export` (or the group with `?doc&inline=*`), translated into the 0.5 shape by the 1.0 binding's
document translation, so that the import and its validation are the same.

The remote's URL follows the subscription sink rule: an http(s) URL without user info or fragment whose host
resolves to globally reachable addresses only, unless `REGISTRY_ALLOW_PRIVATE_SINKS`; checked when a source is
saved, before each run, and on the address dialled (requests go through `subscriptions.outbound`).
"""

from __future__ import annotations

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from registry.documents.imports import import_document
from registry.model import registry_model
from registry.models import Group, Resource
from registry.services import EntityAddress, WriteContext, delete_group, delete_resource
from registry.xr10.documents import DocumentError, to_v05_document
from registry.xr10.mapping import mappings
from registry.xr10.writes import without_inherited_levels
from subscriptions import outbound
from subscriptions.validators.sinks import check_sink

from .models import SyncRun, SyncSource

DOCUMENT_MEDIA = "application/cloudevents-registry+json"
TIMEOUT = 30.0


def base_url_refusal(url: str) -> str | None:
    """None when a sync source may pull from `url`, else why not (the sink rule for HTTP)."""
    return check_sink("HTTP", url, settings.REGISTRY_ALLOW_PRIVATE_SINKS)


def _get(url: str, headers: dict) -> httpx.Response:
    with outbound.client(timeout=TIMEOUT) as client:
        return client.get(url, headers=headers)


def _headers(source: SyncSource) -> dict:
    headers = {"Accept": DOCUMENT_MEDIA}
    if source.token:
        headers["Authorization"] = f"Token {source.token}"
    return headers


def speaks_xregistry_10(source: SyncSource) -> bool:
    """The remote's root says `specversion` 1.x (an xRegistry 1.0 server) rather than the 0.5 `specVersion`."""
    response = _get(
        source.origin + "/",
        headers={"Accept": "application/json", **({"Authorization": f"Token {source.token}"} if source.token else {})},
    )
    response.raise_for_status()
    root = response.json()
    return isinstance(root, dict) and str(root.get("specversion", "")).startswith("1.")


def _fetch_10(source: SyncSource, parts: list[str]) -> dict:
    """A 1.0 server's document for the source's scope, in the 0.5 shape."""
    if source.scope == SyncSource.Scope.REGISTRY:
        response = _get(source.origin + "/export", headers=_headers(source))
        response.raise_for_status()
        document = response.json()
    else:
        mapping = mappings[parts[0]]
        response = _get(f"{source.origin}/{mapping.v1_plural}/{parts[1]}?doc&inline=*", headers=_headers(source))
        response.raise_for_status()
        document = {mapping.v1_plural: {parts[1]: response.json()}}
    try:
        return without_inherited_levels(to_v05_document(document))
    except DocumentError as exc:
        raise ValueError(f"the 1.0 document of {source.origin} cannot be read: {exc}") from None


def fetch_document(source: SyncSource) -> dict:
    """The remote's document, narrowed to the source's scope."""
    reason = base_url_refusal(source.base_url)
    if reason:
        raise ValueError(f"refused: base_url: {reason}")
    parts = [p for p in source.path.split("/") if p]
    if speaks_xregistry_10(source):
        document = _fetch_10(source, parts)
    else:
        url = source.origin + (
            "/?inline" if source.scope == SyncSource.Scope.REGISTRY else f"/{parts[0]}/{parts[1]}?inline"
        )
        response = _get(url, headers=_headers(source))
        response.raise_for_status()
        document = response.json()
    if source.scope == SyncSource.Scope.RESOURCE:
        group = document[parts[0]][parts[1]]
        resources = group.get(parts[2], {})
        group[parts[2]] = {parts[3]: resources[parts[3]]} if parts[3] in resources else {}
    return document


def without_owners(document: dict) -> dict:
    """The remote document less its groups' `owners`: another registry's teams are not this one's (docs/teams.md)."""
    out = dict(document)
    for gt in registry_model.group_types:
        groups = document.get(gt.plural)
        if isinstance(groups, dict):
            out[gt.plural] = {
                gid: ({k: v for k, v in group.items() if k != "owners"} if isinstance(group, dict) else group)
                for gid, group in groups.items()
            }
    return out


def _local_scope(source: SyncSource):
    """(groups, resources) held locally with this source's origin, within its scope."""
    parts = [p for p in source.path.split("/") if p]
    groups = Group.objects.filter(origin=source.origin)
    resources = Resource.objects.filter(origin=source.origin).select_related("group")
    if source.scope != SyncSource.Scope.REGISTRY:
        groups = groups.filter(group_type=parts[0], gid=parts[1])
        resources = resources.filter(group__group_type=parts[0], group__gid=parts[1])
    if source.scope == SyncSource.Scope.RESOURCE:
        groups = groups.none()
        resources = resources.filter(resource_type=parts[2], rid=parts[3])
    return groups, resources


@transaction.atomic
def apply_document(source: SyncSource, document: dict) -> dict:
    """Import the remote document and delete local synced entities it no longer holds; returns counts."""
    actor = source.run_as if source.run_as_id and source.run_as.is_active else None
    if source.run_as_id and actor is None:
        raise PermissionError(f"the source's user {source.run_as.get_username()!r} is inactive")
    ctx = WriteContext(user=f"sync:{source.name}", actor=actor, origin=source.origin, door="sync")
    report = import_document(ctx, without_owners(document))
    remote_paths = set()
    for gt in registry_model.group_types:
        for gid, gdata in (document.get(gt.plural) or {}).items():
            remote_paths.add(f"/{gt.plural}/{gid}")
            for rt in gt.resources:
                for rid in (gdata.get(rt.plural) or {}) if isinstance(gdata, dict) else {}:
                    remote_paths.add(f"/{gt.plural}/{gid}/{rt.plural}/{rid}")
    deleted = 0
    groups, resources = _local_scope(source)
    for group in list(groups):
        if group.path not in remote_paths:
            delete_group(ctx=ctx, address=EntityAddress.of(group), force=True)  # mirrors the source
            deleted += 1
    for resource in list(resources):
        if not Group.objects.filter(pk=resource.group_id).exists():
            continue
        if resource.path not in remote_paths:
            delete_resource(ctx=ctx, address=EntityAddress.of(resource), force=True)
            deleted += 1
    return {
        "created": len(report.created),
        "updated": len(report.updated),
        "unchanged": len(report.unchanged),
        "deleted": deleted,
    }


def run_sync(source: SyncSource, trigger: str = "schedule") -> SyncRun:
    """One pull, recorded as a SyncRun whatever its outcome."""
    run = SyncRun.objects.create(source=source, trigger=trigger)
    try:
        counts = apply_document(source, fetch_document(source))
    except Exception as exc:  # recorded on the run and shown in the admin; the schedule goes on
        detail = getattr(exc, "detail", None) or f"{type(exc).__name__}: {exc}"
        run.status, run.error = SyncRun.Status.FAILED, detail
    else:
        run.status = SyncRun.Status.OK
        for key, value in counts.items():
            setattr(run, key, value)
    run.finished_at = timezone.now()
    run.save()
    SyncSource.objects.filter(pk=source.pk).update(last_run_at=run.finished_at, last_status=run.status)
    return run


def due_sources(now=None):
    now = now or timezone.now()
    for source in SyncSource.objects.filter(enabled=True):
        if source.last_run_at is None or (now - source.last_run_at).total_seconds() >= source.interval_seconds:
            yield source


def subscribe(source: SyncSource, webhook_url: str) -> str:
    """Create a subscription at the remote whose sink is our webhook for this source; returns its id."""
    scope = source.path if source.scope != SyncSource.Scope.REGISTRY else "/"
    body = {"protocol": "HTTP", "sink": webhook_url, "filters": [{"prefix": {"subject": scope}}]}
    headers = {"Content-Type": "application/json"}
    if source.token:
        headers["Authorization"] = f"Token {source.token}"
    reason = base_url_refusal(source.base_url)
    if reason:
        raise ValueError(f"refused: base_url: {reason}")
    with outbound.client(timeout=TIMEOUT) as client:
        response = client.post(f"{source.origin}/subscriptions", json=body, headers=headers)
    response.raise_for_status()
    sid = response.json()["id"]
    SyncSource.objects.filter(pk=source.pk).update(remote_subscription_id=sid)
    source.remote_subscription_id = sid
    return sid
