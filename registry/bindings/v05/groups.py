"""Views of `/GROUPs` and `/GROUPs/gID` (docs/api-contract.md section 4)."""

from __future__ import annotations

from django.db import transaction
from django.http import HttpResponse

from ... import services
from ...documents.exports import export_document
from ...documents.imports import import_document
from ...domain.attributes import stored_attributes
from ...domain.json_text import Spliced
from ...http import entity_views as kernel
from ...http.requests import declared_flags, flag, json_body, query_epoch
from ...http.views import json_response
from ...store import selectors
from .binding import CoreView


class GroupCollectionView(CoreView, kernel.GroupCollectionView):
    flags = declared_flags(get="inline filter limit page", post="", delete="force")

    def post(self, request):
        body = json_body(request)
        group = services.create_group(ctx=self.context(), address=self.address(), data=body, seed_binding=True)
        return self.entity_answer(self.group_json(selectors.get_group(self.gt, group.gid)), created=True)

    def delete(self, request):
        deleted = self.delete_members(json_body(request, required=False, kind=list))
        return json_response({g.gid: self.group_json(g) for g in deleted})


class GroupView(CoreView, kernel.GroupView):
    flags = declared_flags(get="inline referencedby", put="epoch", delete="epoch force")

    def group_answer(self, gid, created=False):
        """`?inline` with the media type of a registry document: the group as an export writes it."""
        if flag(self.request, "inline") and "application/cloudevents-registry+json" in self.request.headers.get(
            "Accept", ""
        ):
            spliced = Spliced()  # the stored JSON documents written as their text: json_response's bytes
            document = spliced.dumps(export_document(self.group_plural, gid, splice=spliced))
            return HttpResponse(document, content_type="application/cloudevents-registry+json")
        return super().group_answer(gid, created)

    def put(self, request, gid):
        """Replace or create the group; a collection in the body (`schemas`, `definitions`) is written as a document
        import writes it (its resources created or updated), in the same transaction."""
        body = json_body(request)
        nested = {rt.plural: body.pop(rt.plural) for rt in self.gt.resources if rt.plural in body}
        ctx = self.context()
        with transaction.atomic():
            group, created = services.put_group(
                ctx=ctx, address=self.address(gid), data=body, expected_epoch=query_epoch(request), seed_binding=True
            )
            if nested:
                # one write: its versions are checked against each other (not an import's history)
                nested_doc = {self.group_plural: {gid: {**stored_attributes(group), **nested}}}
                import_document(ctx, nested_doc, history=False)
        return self.group_answer(group.gid, created)

    def delete_group(self, gid):
        last = self.group_json(selectors.get_group(self.gt, gid))  # (read first: the group as it was)
        super().delete_group(gid)
        return json_response(last)
