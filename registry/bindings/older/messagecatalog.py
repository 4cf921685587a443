"""The Message Catalog API (message-catalog-api.md section 4, and the `OPTIONS` features document of
message-catalog-api-2022.txt section 4.2.1) at `/messagecatalog/...`, over the same definition groups and
definitions as the core binding's `/definitionGroups` (docs/api-contract.md section 8).

The operations are those of the Schema Registry API binding (`schemaregistry.py`; both bindings build on
the base views of `base.py`), with these differences:
- a definition's document is a JSON object (415 for other media types). When it has no `format`, the
  `format` attribute given in the query string or a header, else the group's format, is written into it
  (the spec: "OPTIONAL for clients", "REQUIRED to be returned by the server"). The document comes back
  with its Content-Type and with the definition's metadata (`id`, `name`, `description`) in the object,
  as in the core binding, so it is not byte for byte what was sent.
- definitions keep only their latest version in this store (`versions: 0` in the model): the versions
  list holds that one number, and older numbers are 404.
- `POST /messagecatalog/{group}/messagedefinitions` (2022 draft) takes a definition object whose `id`
  names the definition (absent: server-generated); it adds a version when the definition exists.
- `GET /messagecatalog/messagedefinition?uri=...` is the lookup by version URI; without `uri` that path is
  the group named `messagedefinition`, so no group id is shadowed.
"""

from __future__ import annotations

import json

from django.http import HttpResponse

from ... import services
from ...domain.errors import Problem
from ...http.requests import body_bytes, check_flags, declared_flags, loads_strict
from ...http.views import json_response
from ...models import Group, Resource
from ...representations import is_json_media_type
from .base import (
    ATTRIBUTES,
    BindingMixin,
    GroupBase,
    GroupsBase,
    LookupBase,
    OlderBinding,
    ResourceBase,
    ResourcesBase,
    VersionBase,
    VersionsBase,
)

MESSAGE_CATALOG = OlderBinding(
    "messagecatalog",
    "",
    "definitionGroups",
    "definitions",
    "messagedefinitions",
    ("format", "description", "name", "authority"),
    "messagedefinition",
)
# attributes `?filter=ATTR=VALUE` matches on groups, definitions (their latest version) and versions
FILTER_ATTRIBUTES = ["id", "name", "description", "format", "authority", "epoch"]
TAGS = ["message catalog API"]


class MessageCatalogBinding(BindingMixin):
    """Mixin: the Message Catalog API's names and its document rules."""

    names = MESSAGE_CATALOG
    binding = MESSAGE_CATALOG.declaration()

    def prepare(self, group: Group, resource: Resource | None, inp: services.VersionInput) -> None:
        media_type = inp.media_type or "application/json"
        if not is_json_media_type(media_type):
            raise Problem("unsupported-media-type", f"a message definition is a JSON object, not {media_type}")
        inp.media_type = media_type
        assert inp.document is not None  # (a POST's body: bytes, maybe empty)
        document = loads_strict(inp.document, "message definition")
        if not isinstance(document, dict):
            raise Problem("invalid-document", "a message definition must be a JSON object")
        if "format" not in document:
            document["format"] = inp.attributes.get("format") or group.extensions.get("format")
            inp.document = json.dumps(document, ensure_ascii=False).encode()


class MessageCatalogView(MessageCatalogBinding, GroupsBase):
    """`/messagecatalog`: the group ids, and the features document."""

    flags = {**GroupsBase.flags, **declared_flags(options="")}

    def options(self, request, *args, **kwargs):
        """The features this catalog supports, for the user asking (section 4.2.1 of the 2022 draft)."""
        user = request.user
        update = bool(user and user.is_authenticated and user.has_perm("registry.add_version"))
        return json_response(
            {"filterattributes": FILTER_ATTRIBUTES, "pagination": True, "update": update},
            headers={"Allow": ", ".join(self.allowed_methods)},
        )


class MessageGroupView(MessageCatalogBinding, GroupBase):
    pass


class MessageDefinitionsView(MessageCatalogBinding, ResourcesBase):
    flags = {**ResourcesBase.flags, **declared_flags(post=f"epoch {ATTRIBUTES}")}

    def post(self, request, gid):
        """Add a definition version from a definition object naming its `id` (2022 draft, section 4.3.3)."""
        raw = body_bytes(request)
        document = loads_strict(raw, "message definition") if raw.strip() else None
        if not isinstance(document, dict):
            raise Problem("bad-request", "the body must be a message definition (a JSON object)")
        rid = document.get("id")
        if rid is not None and not isinstance(rid, str):
            raise Problem("invalid-attribute", "id must be a string")
        return self.write_version(request, gid, rid, raw)


class MessageDefinitionView(MessageCatalogBinding, ResourceBase):
    pass


class MessageDefinitionVersionsView(MessageCatalogBinding, VersionsBase):
    pass


class MessageDefinitionVersionView(MessageCatalogBinding, VersionBase):
    pass


class MessageDefinitionLookupView(MessageCatalogBinding, LookupBase, GroupBase):
    """`/messagecatalog/messagedefinition`: with `?uri=` the lookup, else the group of that id."""

    flags = declared_flags(put="epoch", delete="epoch")  # (its GET's flags depend on `uri`: checked by the GET)

    def dispatch(self, request, *args, **kwargs):
        # without `uri`, the group of that id: read (under its rule) and written as through the path of any group
        if "uri" not in request.GET:
            kwargs["gid"] = self.names.lookup_segment
        return super().dispatch(request, *args, **kwargs)

    def get(self, request, *args, **kwargs) -> HttpResponse:
        """GET `?uri=...`: a definition version by its version URI; without `uri`: the group `messagedefinition`."""
        if "uri" in request.GET:
            check_flags(request, {"uri"})
            return self.lookup(request)
        check_flags(request, set())
        return super().get(request, *args, **kwargs)


# the views of each level, in the order of their routes (urls.py; the lookup's path before the groups') and
# described in openapi.py
VIEWS = {
    "groups": MessageCatalogView,
    "lookup": MessageDefinitionLookupView,
    "group": MessageGroupView,
    "resources": MessageDefinitionsView,
    "resource": MessageDefinitionView,
    "versions": MessageDefinitionVersionsView,
    "version": MessageDefinitionVersionView,
}
