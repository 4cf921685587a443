"""Pulling from a remote registry: fetch its document for the source's scope, import it with the source
as origin (so local edits to synced entities are refused), and delete what the remote no longer has.

A pull writes as the source's owner (CONTRACT.md section 19, docs/teams.md): its WriteContext's actor is that user,
so registry/access/permissions.py decides every write as for any of theirs, and the audit trail names them (door `sync`, `via`
the source's name). A source without an owner, or whose owner is inactive, does not run (the run fails, saying so).
A pull stays inside its source's scope and changes only what it brought: every other entity of the remote's document
(outside the scope, existing here without this source's origin, refused to the owner) is skipped, nothing of it
written, and listed with why in the run's `report`; it never changes a group's owners (the remote's teams are not
this registry's: registry/documents/imports.py).

The remote serves registry documents either in the 0.5 shape (`GET /?inline` and `GET /GROUPs/gID?inline`
with `Accept: application/cloudevents-registry+json`, as this server's `/` does) or as an xRegistry 1.0
server (its root answers `specversion` 1.x: this server's `/registry`, the reference server): then
`GET /export` (or the group with `?doc&inline=*`), translated into the 0.5 shape by the 1.0 binding's
document translation, so that the import and its validation are the same.

The remote's URL follows the subscription sink rule: an http(s) URL without user info or fragment whose host
resolves to globally reachable addresses only, unless `REGISTRY_ALLOW_PRIVATE_SINKS`; checked when a source is
saved, before each run, and on the address dialled (requests go through `subscriptions.outbound`).

A source's own changes (added, changed, deleted in the admin) have their audit rows (`/sync/sources/ID`, registry
admins read them: `source_changed`), saying what changed: its token only as set (`***`), the password in its base
URL masked, its webhook secret never.
"""

from __future__ import annotations

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from registry.bindings.v10.documents import DocumentError, to_v05_document
from registry.bindings.v10.mapping import mappings
from registry.bindings.v10.writes import without_inherited_levels
from registry.documents.imports import import_document
from registry.domain.errors import Problem
from registry.domain.model import registry_model
from registry.models import Group, Resource
from registry.services import EntityAddress, WriteContext, delete_group, delete_resource
from registry.services.context import OriginRefused
from registry.store import audit
from subscriptions import outbound
from subscriptions.validators.sinks import check_sink

from .models import SyncRun, SyncSource

DOCUMENT_MEDIA = "application/cloudevents-registry+json"
TIMEOUT = 30.0


AUDITED = ("name", "base_url", "token", "scope", "path", "interval_seconds", "enabled", "subscribe")


def source_state(source: SyncSource | None) -> dict | None:
    """A source's attributes as the audit trail compares them (registry/store/audit.py): its token and the base URL's
    password as they are (`source_changed` shows neither), its owner by name, never its webhook secret."""
    if source is None:
        return None
    state = {key: value for key in AUDITED if (value := getattr(source, key)) not in (None, "")}
    if source.owner_id is not None:
        state["owner"] = source.owner.get_username()
    return state


def source_changed(ctx: WriteContext, source: SyncSource, operation: str, before: dict | None) -> None:
    """The audit row of a source's change (create, update, delete), in the caller's transaction: `before`, its
    `source_state` before the change (None: created); the source as it is now (deleted: nothing after)."""
    after = source_state(source) if operation != "delete" else None
    changes = audit.changes(before, after, shown={"token": lambda _token: audit.SECRET})  # (a URL's password too)
    audit.record_now(ctx, f"/sync/sources/{source.pk}", operation, changes)


class RunRefused(Exception):
    """The source may not run (no owner, an inactive owner): the run fails, saying why."""


def base_url_refusal(url: str) -> str | None:
    """None when a sync source may pull from `url`, else why not (the sink rule for HTTP)."""
    return check_sink("HTTP", url, settings.REGISTRY_ALLOW_PRIVATE_SINKS)


def path_refusal(scope: str, path: str) -> str | None:
    """None when `path` names what `scope` pulls (in the 0.5-wip binding's names), else why not."""
    parts = [p for p in path.split("/") if p]
    if scope == SyncSource.Scope.REGISTRY:
        return "the whole registry's scope takes no path (leave it empty)" if parts else None
    plurals = ", ".join(gt.plural for gt in registry_model.group_types)
    if scope == SyncSource.Scope.GROUP:
        if len(parts) != 2 or registry_model.get(parts[0]) is None:
            return f"a group's scope needs the path /GROUPS/ID of one group (GROUPS: {plurals})"
        return None
    if len(parts) != 4 or registry_model.get(parts[0]) is None:
        return f"a resource's scope needs the path /GROUPS/ID/RESOURCES/ID of one resource (GROUPS: {plurals})"
    gt = registry_model[parts[0]]
    if parts[2] not in gt.resources_by_plural:
        return f"{parts[0]} hold {', '.join(r.plural for r in gt.resources)}, not {parts[2]}"
    return None


def overlaps(scope: str, path: str, other: SyncSource) -> bool:
    """Whether a source of `scope` and `path` may write what `other` writes (both of one remote): one of them is the
    whole registry's, or they name one group, or one resource."""
    if SyncSource.Scope.REGISTRY in (scope, other.scope):
        return True
    mine, theirs = [p for p in path.split("/") if p], other.path_parts
    if mine[:2] != theirs[:2]:
        return False
    return SyncSource.Scope.GROUP in (scope, other.scope) or mine == theirs


def overlapping_source(base_url: str, scope: str, path: str, owner_id, pk=None) -> SyncSource | None:
    """Another owner's source whose scope overlaps on the same remote: the entities a sync brings carry the remote's
    URL as their origin, not the source, so two owners' sources of one remote would each write what the other's brought
    (a source of one remote's entities has one owner; disjoint scopes may have several)."""
    origin = base_url.rstrip("/")
    for other in SyncSource.objects.exclude(pk=pk).exclude(owner_id=owner_id) if owner_id else ():
        if other.origin == origin and overlaps(scope, path, other):
            return other
    return None


def owner_of(source: SyncSource):
    """The user a pull of `source` writes as: its owner, who must be active (RunRefused otherwise)."""
    owner = source.owner
    if owner is None:
        raise RunRefused(
            f"refused: the source {source.name!r} has no owner, whose rights its pulls would have; a registry admin "
            "sets one (its Owner field in the admin)"
        )
    if not owner.is_active:
        raise RunRefused(f"refused: the source's owner {owner.get_username()!r} is inactive")
    return owner


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
    """The remote's document for the source's scope (as the remote answers: `within_scope` narrows it)."""
    reason = base_url_refusal(source.base_url) or path_refusal(source.scope, source.path)
    if reason:
        raise ValueError(f"refused: {reason}")
    parts = source.path_parts
    if speaks_xregistry_10(source):
        document = _fetch_10(source, parts)
    else:
        url = source.origin + (
            "/?inline" if source.scope == SyncSource.Scope.REGISTRY else f"/{parts[0]}/{parts[1]}?inline"
        )
        response = _get(url, headers=_headers(source))
        response.raise_for_status()
        document = response.json()
    if not isinstance(document, dict):
        raise ValueError(f"{source.origin} answered {type(document).__name__}, not a registry document")
    return document


def within_scope(source: SyncSource, document: dict) -> tuple[dict, list[dict]]:
    """The remote's document narrowed to the source's scope, and what it held outside it ({path, reason}): a remote
    answers what it likes, and only the scope's group (or resource) is the source's to write."""
    if source.scope == SyncSource.Scope.REGISTRY:
        return document, []
    parts = source.path_parts
    why = f"outside the source's scope {source.path}"
    scoped: dict = {}
    skipped = []
    for gt in registry_model.group_types:
        groups = document.get(gt.plural)
        for gid, gdata in (groups if isinstance(groups, dict) else {}).items():
            path = f"/{gt.plural}/{gid}"
            if [gt.plural, gid] != parts[:2]:
                skipped.append({"path": path, "reason": why})
                continue
            if source.scope == SyncSource.Scope.RESOURCE and isinstance(gdata, dict):
                gdata = dict(gdata)
                for rt in gt.resources:
                    held = gdata.pop(rt.plural, None)
                    for rid in held if isinstance(held, dict) else {}:
                        if [rt.plural, rid] == parts[2:]:
                            gdata[rt.plural] = {rid: held[rid]}
                        else:
                            skipped.append({"path": f"{path}/{rt.plural}/{rid}", "reason": why})
            scoped[gt.plural] = {gid: gdata}
    return scoped, skipped


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


def _remote_paths(document: dict) -> set[str]:
    paths = set()
    for gt in registry_model.group_types:
        groups = document.get(gt.plural)
        for gid, gdata in (groups if isinstance(groups, dict) else {}).items():
            paths.add(f"/{gt.plural}/{gid}")
            for rt in gt.resources:
                held = gdata.get(rt.plural) if isinstance(gdata, dict) else None
                for rid in held if isinstance(held, dict) else {}:
                    paths.add(f"/{gt.plural}/{gid}/{rt.plural}/{rid}")
    return paths


def _delete(ctx: WriteContext, entity, delete, skipped: list[dict]) -> bool:
    """Delete a synced entity the remote no longer holds (mirroring it: past references); a refusal to the owner is
    skipped and reported, nothing deleted."""
    try:
        with transaction.atomic():
            delete(ctx=ctx, address=EntityAddress.of(entity), force=True)
    except Problem as problem:
        if problem.kind != "forbidden" and not isinstance(problem, OriginRefused):
            raise
        skipped.append({"path": entity.path, "reason": problem.detail})
        return False
    return True


@transaction.atomic
def apply_document(source: SyncSource, document: dict) -> dict:
    """Import the remote document as the source's owner, within its scope, and delete local synced entities it no
    longer holds; returns the counts and what was skipped (`report`: {path, reason})."""
    owner = owner_of(source)
    ctx = WriteContext(user=owner.get_username(), actor=owner, origin=source.origin, door="sync", via=source.name)
    scoped, skipped = within_scope(source, document)
    # the remote's teams are not this registry's; a reference that names nothing is taken as the remote holds it (left
    # dangling there by a forced delete, or naming what the source's scope leaves out), with a warning
    report = import_document(ctx, scoped, owners="drop", force=True)
    skipped += report.skipped
    remote_paths = _remote_paths(scoped)
    deleted = 0
    groups, resources = _local_scope(source)
    for group in list(groups):
        if group.path not in remote_paths:
            deleted += _delete(ctx, group, delete_group, skipped)
    for resource in list(resources):
        if not Group.objects.filter(pk=resource.group_id).exists():
            continue
        if resource.path not in remote_paths:
            deleted += _delete(ctx, resource, delete_resource, skipped)
    return {
        "created": len(report.created),
        "updated": len(report.updated),
        "unchanged": len(report.unchanged),
        "deleted": deleted,
        "skipped": len(skipped),
        "report": skipped,
    }


def run_sync(source: SyncSource, trigger: str = "schedule") -> SyncRun:
    """One pull, recorded as a SyncRun whatever its outcome."""
    run = SyncRun.objects.create(source=source, trigger=trigger)
    try:
        owner_of(source)  # before anything is fetched
        counts = apply_document(source, fetch_document(source))
    except RunRefused as exc:
        run.status, run.error = SyncRun.Status.FAILED, str(exc)
    except Exception as exc:  # recorded on the run and shown in the admin; the schedule goes on
        detail = getattr(exc, "detail", None) or f"{type(exc).__name__}: {exc}"
        run.status, run.error = SyncRun.Status.FAILED, detail
    else:
        run.status = SyncRun.Status.PARTIAL if counts["skipped"] else SyncRun.Status.OK
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
