"""Topic–subject associations (docs/confluent.md, "Associations"): which subject holds the key or value schema of a
Kafka topic, as Confluent's `/associations` API keeps them and the clients' `AssociatedNameStrategy` (their default
subject name strategy) reads them.

An association is kept by the schema of its subject, in its attribute `confluentassociations` (`ATTRIBUTE`; 1.0: in
`meta`): a list of `{"resourceName", "resourceNamespace", "resourceId", "resourceType", "associationType", "lifecycle",
"frozen", "guid"}`. So it is written through the registry's services (`set_resource_meta`: the schema's owners decide,
as for its other settings; an audit row and an `updated` event), shown, exported and imported with the schema by both
bindings, and deleted with it; no table of this API's own holds it. A topic is named by its id (`resourceId`), its
name and the Kafka cluster's id (`resourceNamespace`).

- `associations(...)`: the associations found, filtered as Confluent's GET routes filter them.
- `create_or_update(ctx, body, create=...)`: `POST /associations` (`create`) and `PUT /associations/resources/{id}`:
  Confluent's request checks (42212 naming the member), the defaults (`value`; WEAK without a schema, STRONG and frozen
  with one; a STRONG association's subject `:.NAMESPACE:NAME-TYPE`), a schema sent with it registered first (through
  this API's registration), and Confluent's refusals: the subject without a live version (40907), the topic with
  another association of the type (40903), a frozen one moved (40908), a subject with a STRONG association given
  another (40905) or a STRONG association given to a subject that has others (40904).
- `delete(ctx, resource_id, ...)`: `DELETE /associations/resources/{id}` (40410 when there is none); with
  `cascadeLifecycle`, a STRONG association's subject is deleted with it (its schema, through the registry's services).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import transaction

from registry.models import Resource
from registry.services import EntityAddress, WriteContext, delete_resource, set_resource_meta

from . import selectors, services, subjects
from .api.inputs import registration
from .association_shapes import ATTRIBUTE, LIFECYCLES, MEMBERS, TOPIC, TYPES, WILDCARD, attribute_problem, name_problem
from .errors import ConfluentError
from .subjects import GROUPS, SCHEMAS, Subject, parse

INVALID = 42212
NOT_FOUND = 40410
RESOURCE_EXISTS = 40903
SUBJECT_EXISTS = 40904
STRONG_EXISTS = 40905
NO_ACTIVE_VERSION = 40907
FROZEN = 40908


def invalid(member: str, detail: str) -> ConfluentError:
    return ConfluentError(INVALID, f"Invalid association: {member} {detail}")


@dataclass
class Found:
    subject: str
    resource: Resource
    item: dict

    def as_json(self) -> dict:
        """An association as Confluent answers it (`Association`)."""
        return {"subject": self.subject, **{k: self.item[k] for k in ("guid", *MEMBERS) if k in self.item}}


def associations(
    *,
    name: str | None = None,
    namespace: str | None = None,
    resource_id: str | None = None,
    subject: str | None = None,
    resource_type: str | None = TOPIC,
    types: list[str] | None = None,
    lifecycle: str | None = None,
    hidden: frozenset[str] | set[str] = frozenset(),
) -> list[Found]:
    """The associations kept by the schemas of every context, filtered: a topic's name and cluster (`-` for either:
    any), its id, a subject, the resource type, the association types, the lifecycle; those of the schema groups in
    `hidden` (the caller may not read them) left out. In subject order, then as each schema keeps them."""
    rows = (
        Resource.objects.filter(group__group_type=GROUPS, resource_type=SCHEMAS, extensions__has_key=ATTRIBUTE)
        .select_related("group")
        .order_by("group__gid", "rid")
    )
    out = []
    for resource in rows:
        if resource.group.gid in hidden:
            continue
        held = subjects.name_of(resource.group.gid, resource.rid)
        value = resource.extensions.get(ATTRIBUTE)
        if held is None or attribute_problem(value) is not None or (subject is not None and held != subject):
            continue
        for item in value:
            if name not in (None, WILDCARD) and item["resourceName"] != name:
                continue
            if namespace not in (None, WILDCARD) and item["resourceNamespace"] != namespace:
                continue
            if resource_id is not None and item["resourceId"] != resource_id:
                continue
            if resource_type and item["resourceType"] != resource_type:
                continue
            if types and item["associationType"] not in types:
                continue
            if lifecycle and item["lifecycle"] != lifecycle:
                continue
            out.append(Found(held, resource, item))
    return out


@dataclass
class Wanted:
    """One association of a request, checked and with its defaults."""

    subject: Subject
    association_type: str
    lifecycle: str
    frozen: bool
    schema: dict | None


def _infos(body: dict, *, create: bool) -> tuple[dict, list[Wanted]]:
    """The topic and the associations of a request, as Confluent's `AssociationCreateOrUpdateRequest.validate`."""
    if not isinstance(body, dict):
        raise invalid("request", "must be a JSON object")
    topic = {}
    for member in ("resourceName", "resourceNamespace", "resourceId"):
        value = body.get(member)
        if problem := name_problem(value):
            raise invalid(member, problem)
        if value == WILDCARD and member != "resourceId":
            raise invalid(member, f"cannot be the wildcard '{WILDCARD}'")
        topic[member] = value
    resource_type = body.get("resourceType") or TOPIC
    if resource_type != TOPIC:
        raise invalid("resourceType", f"must be '{TOPIC}'")
    topic["resourceType"] = TOPIC
    infos = body.get("associations")
    if not isinstance(infos, list) or not infos:
        raise invalid("associations", "cannot be null or empty")
    wanted, seen = [], set()
    for index, info in enumerate(infos):
        member = f"associations[{index}]"
        if not isinstance(info, dict):
            raise invalid(member, "must be an object")
        kind = info.get("associationType") or "value"
        if kind not in TYPES:
            raise invalid(f"{member}.associationType", "must be either 'key' or 'value'")
        if kind in seen:
            raise invalid(f"{member}.associationType", f"'{kind}' is given twice")
        seen.add(kind)
        schema = info.get("schema")
        if schema is not None and not isinstance(schema, dict):
            raise invalid(f"{member}.schema", "must be a schema object")
        if schema is not None and not create:
            raise invalid(f"{member}.schema", "cannot be provided when adding an association to an existing topic")
        lifecycle = info.get("lifecycle")
        if lifecycle is not None and lifecycle not in LIFECYCLES:
            raise invalid(f"{member}.lifecycle", "must be STRONG or WEAK")
        if schema is not None and lifecycle == "WEAK":
            raise invalid(f"{member}.lifecycle", "cannot be WEAK when schema is provided")
        lifecycle = "STRONG" if schema is not None else (lifecycle or "WEAK")
        frozen = info.get("frozen")
        if frozen is not None and not isinstance(frozen, bool):
            raise invalid(f"{member}.frozen", "must be true or false")
        if frozen is not None and frozen != (lifecycle == "STRONG"):
            raise invalid(f"{member}.frozen", f"association with lifecycle of {lifecycle} cannot be frozen={frozen}")
        default = f":.{topic['resourceNamespace']}:{topic['resourceName']}-{kind}"
        name = info.get("subject")
        if name is not None and (not isinstance(name, str) or not name):
            raise invalid(f"{member}.subject", "must be a subject's name")
        if name is None:
            if lifecycle == "WEAK":
                raise invalid(f"{member}.subject", "must be provided for WEAK associations")
            name = default
        if create and lifecycle == "STRONG" and name != default:
            raise invalid(f"{member}.subject", f"frozen associations must use subject '{default}'")
        if create and lifecycle == "WEAK" and name == default:
            raise invalid(f"{member}.subject", f"WEAK associations cannot use subject '{default}'")
        wanted.append(Wanted(parse(name), kind, lifecycle, lifecycle == "STRONG", schema))
    return topic, wanted


def _address(subject: Subject) -> EntityAddress:
    return EntityAddress(GROUPS, subject.group_id, SCHEMAS, subject.resource_id)


def _write(ctx: WriteContext, subject: Subject, items: list[dict]) -> None:
    set_resource_meta(ctx=ctx, address=_address(subject), meta={ATTRIBUTE: items or None})


def create_or_update(ctx: WriteContext, body: dict, *, create: bool) -> dict:
    """Create (POST) or create and update (PUT) a topic's associations, in one transaction; the answer is Confluent's
    `AssociationResponse`. Nothing is written when one of them is refused."""
    with transaction.atomic():
        return _create_or_update(ctx, body, create=create)


def _create_or_update(ctx: WriteContext, body: dict, *, create: bool) -> dict:

    topic, wanted = _infos(body, create=create)
    answered = []
    for want in wanted:
        if want.schema is not None:
            services.register(ctx=ctx, subject=want.subject, data=registration(want.schema))
        resource = selectors.find_resource(want.subject)
        if resource is None or not selectors.subject_versions(resource):
            raise ConfluentError(
                NO_ACTIVE_VERSION, f"No active (non-deleted) version exists for subject '{want.subject.name}'"
            )
        existing = associations(resource_id=topic["resourceId"], types=[want.association_type])
        mine = [found for found in existing if found.subject == want.subject.name]
        others = [found for found in existing if found.subject != want.subject.name]
        if others:
            if create or others[0].item["frozen"]:
                code = FROZEN if others[0].item["frozen"] and not create else RESOURCE_EXISTS
                raise ConfluentError(
                    code,
                    f"An association of type '{want.association_type}' already exists for resource "
                    f"'{topic['resourceId']}'"
                    + (f" and is frozen for subject '{others[0].subject}'" if code == FROZEN else ""),
                )
        held = [item for item in resource.extensions.get(ATTRIBUTE) or [] if isinstance(item, dict)]
        elsewhere = [item for item in held if item.get("resourceId") != topic["resourceId"]]
        if any(item.get("lifecycle") == "STRONG" for item in elsewhere):
            raise ConfluentError(
                STRONG_EXISTS, f"A strong association already exists for subject '{want.subject.name}'"
            )
        if want.lifecycle == "STRONG" and elsewhere:
            raise ConfluentError(SUBJECT_EXISTS, f"An association already exists for subject '{want.subject.name}'")
        for found in others:  # moved to this subject (PUT of an association not frozen)
            _write(ctx, parse(found.subject), [i for i in found.resource.extensions[ATTRIBUTE] if i is not found.item])
        item = {
            **topic,
            "associationType": want.association_type,
            "lifecycle": want.lifecycle,
            "frozen": want.frozen,
            "guid": mine[0].item.get("guid") if mine else str(uuid.uuid4()),
        }
        kept = [i for i in held if i is not (mine[0].item if mine else None)]
        if not mine or mine[0].item != item:
            _write(ctx, want.subject, [*kept, item])
        answered.append(
            {
                "subject": want.subject.name,
                "associationType": want.association_type,
                "lifecycle": want.lifecycle,
                "frozen": want.frozen,
            }
        )
    return {**topic, "associations": answered}


def delete(ctx: WriteContext, resource_id: str, *, resource_type: str, types: list[str] | None, cascade: bool) -> None:
    """Delete a topic's associations (those of `types`, else all), in one transaction; 40410 when it has none. With
    `cascade`, the subject of a STRONG association goes with it."""
    with transaction.atomic():
        _delete(ctx, resource_id, resource_type=resource_type, types=types, cascade=cascade)


def _delete(ctx: WriteContext, resource_id: str, *, resource_type: str, types: list[str] | None, cascade: bool) -> None:
    found = associations(resource_id=resource_id, resource_type=resource_type or TOPIC, types=types or None)
    if not found:
        raise ConfluentError(NOT_FOUND, f"Association for '{resource_id}' not found.")
    by_subject: dict[str, list[Found]] = {}
    for item in found:
        by_subject.setdefault(item.subject, []).append(item)
    for name, items in by_subject.items():
        subject = parse(name)
        gone = {id(found.item) for found in items}
        if cascade and any(found.item["lifecycle"] == "STRONG" for found in items):
            delete_resource(ctx=ctx, address=_address(subject))  # the schema, its versions and its associations
            continue
        resource = items[0].resource
        _write(ctx, subject, [i for i in resource.extensions[ATTRIBUTE] if id(i) not in gone])


def held_by(resource: Resource) -> bool:
    """Whether a subject's schema keeps associations (Confluent refuses to delete such a subject: 40904)."""
    return bool(resource.extensions.get(ATTRIBUTE))
