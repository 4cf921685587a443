"""Topic–subject associations at `/confluent/associations` (confluent/associations.py; docs/confluent.md,
"Associations"): the routes Confluent's API has for one topic or subject, as the clients use them
(`SchemaRegistryClient.get_associations_by_resource_name`, which their `AssociatedNameStrategy` calls for every
serializer, `create_association`, `delete_associations`). Reads leave out the associations of contexts the caller may
not read; writes are the subject's schema's (the services authorize them)."""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import path

from registry.http.requests import declared_flags, json_body

from .. import associations
from ..errors import ConfluentError
from .base import ConfluentView, answer, flag, page, queries, query


def _filters(request) -> dict:
    lifecycle = query(request, "lifecycle") or None
    if lifecycle is not None and lifecycle not in associations.LIFECYCLES:
        raise associations.invalid("lifecycle", "must be STRONG or WEAK")
    return {
        "resource_type": query(request, "resourceType") or associations.TOPIC,
        "types": [t for t in queries(request, "associationType") if t] or None,
        "lifecycle": lifecycle,
    }


def refuse_dry_run(request) -> None:
    if flag(request, "dryRun"):
        raise ConfluentError(associations.INVALID, "Invalid association: dryRun is not served by this registry")


FILTERS = "resourceType associationType lifecycle offset limit"


class AssociationsView(ConfluentView):
    flags = declared_flags(post="dryRun")

    def post(self, request):
        """Create a topic's associations (`?dryRun=true` is refused: not served)."""
        refuse_dry_run(request)
        return answer(associations.create_or_update(self.context(), json_body(request), create=True))


class ByResourceNameView(ConfluentView):
    flags = declared_flags(get=FILTERS)

    def get(self, request, namespace, name):
        """The associations of a topic by its name and its cluster's id (`-` for either: any)."""
        found = associations.associations(
            name=name, namespace=namespace, hidden=self.hidden_groups(), **_filters(request)
        )
        return answer(page([item.as_json() for item in found], request))


class ByResourceIdView(ConfluentView):
    flags = declared_flags(
        get=FILTERS, put="dryRun", delete="dryRun cascadeLifecycle resourceType associationType lifecycle"
    )

    def get(self, request, resource_id):
        found = associations.associations(resource_id=resource_id, hidden=self.hidden_groups(), **_filters(request))
        return answer(page([item.as_json() for item in found], request))

    def put(self, request, resource_id):
        """Create or update a topic's associations (the body's `resourceId`, when given, must be the path's)."""
        refuse_dry_run(request)
        body = json_body(request)  # a JSON object (400 otherwise)
        if body.get("resourceId") not in (None, resource_id):
            raise associations.invalid("resourceId", "in the path does not match the request's")
        return answer(associations.create_or_update(self.context(), {**body, "resourceId": resource_id}, create=False))

    def delete(self, request, resource_id):
        """Delete a topic's associations (`?associationType` repeated: those alone; `?cascadeLifecycle=true`: the
        subjects of STRONG ones with them): 204."""
        refuse_dry_run(request)
        filters = _filters(request)
        associations.delete(
            self.context(),
            resource_id,
            resource_type=filters["resource_type"],
            types=filters["types"],
            cascade=flag(request, "cascadeLifecycle"),
        )
        return HttpResponse(status=204)


class BySubjectView(ConfluentView):
    flags = declared_flags(get=FILTERS)

    def get(self, request, subject):
        found = associations.associations(subject=subject, hidden=self.hidden_groups(), **_filters(request))
        return answer(page([item.as_json() for item in found], request))


urlpatterns = [
    path("associations", AssociationsView.as_view()),
    path("associations/subjects/<path:subject>", BySubjectView.as_view()),
    path("associations/resources/<str:namespace>/<str:name>", ByResourceNameView.as_view()),
    path("associations/resources/<str:resource_id>", ByResourceIdView.as_view()),
]
