"""What the two older bindings (Schema Registry API, Message Catalog API) share: the `Binding` naming a
binding's paths and core types, and the base views of their operations over `registry.services` and
`registry.store.selectors` (their OpenAPI descriptions are in `openapi.py`). The concrete views are in
`schemaregistry.py` and `messagecatalog.py`; the mapping is described in docs/older-bindings.md.

Lists are JSON arrays of ids or of version numbers. A version is the integer N of the stored version id
"N"; other ids (only the core binding can give them) are neither listed nor addressable here. Attributes
come in the query string or headers of the same name and go out as headers. `authority` is a version
attribute (inherited by later versions) defaulting to the binding's base URL; the version id is the
version's path below that base; the version URI is authority + version id (schema registry 2.2.2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models.functions import Length
from django.http import HttpResponse

from ... import services
from ...domain.attributes import timestamp
from ...domain.errors import Problem
from ...http import entity_views, fast_reads
from ...http.binding import Binding
from ...http.permissions import check_read
from ...http.problems import problem_body, problem_response_of
from ...http.requests import body_bytes, declared_flags, json_body, query_epoch
from ...http.views import RegistryView, document_answer, json_response
from ...models import Group, Resource, Version
from ...representations import document_bytes, merged_attributes
from ...store import selectors
from ...store.filters import apply as apply_filters
from ...store.filters import parse as parse_filters

INTEGER_ID = re.compile(r"^(0|[1-9][0-9]*)$")
URI_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")
MAX_URI_LENGTH = 4096
ATTRIBUTES = "ATTRIBUTES"  # in a base view's `flags`: the binding's version attributes (`OlderBinding.attributes`)


@dataclass(frozen=True)
class OlderBinding:
    api_base: str  # path of the API's base URL: the default authority ("schemaregistry")
    groups_path: str  # groups collection below the base ("schemagroups"; "" when the base is the collection)
    group_plural: str  # core group type ("schemaGroups")
    resource_plural: str  # core resource type ("schemas")
    resource_segment: str  # this binding's name of the resource collection ("schemas", "messagedefinitions")
    attributes: tuple[str, ...]  # version attributes accepted in the query string or headers of a POST
    lookup_segment: str  # the lookup by version URI below the base ("schema": `/schemaregistry/schema?uri=`)

    @property
    def groups_base(self) -> str:
        """The path of the groups collection ("schemaregistry/schemagroups", "messagecatalog")."""
        return "/".join(part for part in (self.api_base, self.groups_path) if part)

    def path_name(self, path: str) -> str:
        """A store path (`/schemaGroups/g/schemas/s/versions/1`) in this binding's names
        (`/schemaregistry/schemagroups/g/schemas/s/versions/1`); a path of other types unchanged."""
        segments = path.split("/")
        if len(segments) < 3 or segments[1] != self.group_plural:
            return path
        out = ["", self.api_base] + ([self.groups_path] if self.groups_path else []) + [segments[2]]
        if len(segments) > 3:
            if segments[3] != self.resource_plural:
                return path
            out += [self.resource_segment, *segments[4:]]
        return "/".join(out)

    def declaration(self) -> Binding:
        """This binding as the kernel reads it: problem documents naming entities by this binding's paths."""

        def render(problem: Problem, request) -> HttpResponse:
            return problem_response_of(problem_body(problem, request.path, self.path_name), problem)

        return Binding(name=self.api_base, render_problem=render)


def compose_uri(authority: str, version_id: str) -> str:
    """Section 2.2.2: an absolute id is the URI; a URN authority is joined with ':'; else with one '/'."""
    if URI_PATTERN.fullmatch(version_id):
        return version_id
    if "/" not in authority:  # urn:example:schemas + a1b2c3d4 -> urn:example:schemas:a1b2c3d4
        return f"{authority.rstrip(':')}:{version_id.lstrip('/')}"
    return f"{authority.rstrip('/')}/{version_id.lstrip('/')}"


def integer_versions(resource: Resource):
    """The versions this binding shows, in version order (numeric: "10" after "9")."""
    return (
        Version.objects.filter(resource=resource, vid__regex=INTEGER_ID.pattern)
        .defer("content")
        .order_by(Length("vid"), "vid")
    )


def document_address(initkwargs: dict, kwargs: dict) -> fast_reads.DocumentAddress | None:
    """What a document GET (latest, or by `version`) depends on, for the fast path (registry/http/fast_reads.py): the
    row of the document, as `ResourceBase.document_read` reads it."""
    text = kwargs.get("version")
    if text is not None and (not (text.isascii() and text.isdigit()) or len(text) > 20):
        return None  # a 404 of its own: the whole way
    vid = None if text is None else version_id_of(text)
    return fast_reads.DocumentAddress(
        initkwargs["group_plural"], kwargs["gid"], initkwargs["resource_plural"], kwargs["rid"], vid
    )


def version_id_of(text: str) -> str:
    """The stored version id of a `{version}` path segment; 404 for anything but an integer."""
    if not (text.isascii() and text.isdigit()):
        raise Problem("not-found", f"version {text!r} does not exist: versions of this binding are integers")
    return str(int(text))


class BindingView(RegistryView):
    """Base of every older-binding view: names, URLs, attribute headers and document responses."""

    names: OlderBinding  # set by each binding's views (`binding`, the kernel's declaration, comes from it)

    def __init_subclass__(cls, **kwargs):
        """A binding's view takes the binding's attributes as flags where its base view declares `ATTRIBUTES`."""
        super().__init_subclass__(**kwargs)
        names = getattr(cls, "names", None)
        if names is not None:
            cls.flags = {
                m: f - {ATTRIBUTES} | set(names.attributes) if ATTRIBUTES in f else f for m, f in cls.flags.items()
            }

    def api_url(self) -> str:
        return f"{self.base_url()}/{self.names.api_base}"

    def groups_url(self) -> str:
        return f"{self.base_url()}/{self.names.groups_base}"

    def relative_version_id(self, resource: Resource, vid: str) -> str:
        """The version's path below the API's base (its id: section 2.2.2), the store path in this binding's names."""
        return self.names.path_name(f"{resource.path}/versions/{vid}").removeprefix(f"/{self.names.api_base}")

    def version_url(self, resource: Resource, vid: str) -> str:
        return self.api_url() + self.relative_version_id(resource, vid)

    def group_json(self, group: Group) -> dict:
        out: dict[str, object] = {"id": group.gid}
        for key in ("name", "description", "tags", "docs"):
            if getattr(group, key):
                out[key] = getattr(group, key)
        out.update(group.extensions)
        out.update(
            epoch=group.epoch, createdtimeutc=timestamp(group.created_on), updatedtimeutc=timestamp(group.modified_on)
        )
        return out

    def version_attributes(self, resource: Resource, version: Version) -> dict:
        """A version's attributes in this binding's names (the response headers, and delete answers)."""
        attrs = merged_attributes(resource, version)
        version_id = self.relative_version_id(resource, version.vid)
        authority = attrs.get("authority") or self.api_url()
        out = {"id": version_id, "uri": compose_uri(authority, version_id), "authority": authority}
        if INTEGER_ID.fullmatch(version.vid):
            out["version"] = int(version.vid)
        for key in ("format", "description", "name", "compatibility"):
            if isinstance(attrs.get(key), str) and "\n" not in attrs[key] and "\r" not in attrs[key]:
                out[key] = attrs[key]
        out.update(
            epoch=version.epoch,
            createdtimeutc=timestamp(version.created_on),
            updatedtimeutc=timestamp(version.modified_on),
        )
        return out

    def document(self, resource: Resource, version: Version, status: int = 200) -> HttpResponse:
        """The document with the media type it was stored with, byte for byte; attributes as headers."""
        headers = {name: str(value) for name, value in self.version_attributes(resource, version).items()}
        headers["Content-Location"] = self.version_url(resource, version.vid)
        content = b"" if version.resource_uri else document_bytes(self.rt, resource, version)
        return document_answer(version, content, headers, status, redirect=307)

    def request_attributes(self, request) -> dict:
        """Attributes from the query string or headers of the same name (empty value: remove)."""
        if "id" in request.GET or request.headers.get("id") is not None:
            raise Problem(
                "invalid-attribute",
                "id: version ids are assigned by this registry (the version URI is authority + the version's path)",
            )
        attrs = {}
        for key in self.names.attributes:
            query, header = request.GET.get(key), request.headers.get(key)
            if query is not None and header is not None and query != header:
                raise Problem("invalid-attribute", f"{key}: the query string and the {key} header disagree")
            value = query if query is not None else header
            if value is not None:
                attrs[key] = value or None
        authority = attrs.get("authority")
        if authority is not None and not URI_PATTERN.fullmatch(authority):
            raise Problem("invalid-attribute", f"authority {authority!r} must be a URI")
        return attrs

    def prepare(self, group: Group, resource: Resource | None, inp: services.VersionInput) -> None:
        """The binding's own rules on a new version's input, before the services validate it."""

    def write_version(self, request, gid: str, rid: str | None, raw: bytes) -> HttpResponse:
        """Add the document `raw` as a new version of `rid` (its attributes from the request); the first creates the
        resource (`rid` None: with an id the services give)."""
        inp = services.VersionInput(
            document=raw,
            media_type=request.META.get("CONTENT_TYPE") or None,
            attributes=self.request_attributes(request),
            epoch=query_epoch(request),
        )
        group = selectors.get_group(self.gt, gid)
        resource = None
        if rid is not None:
            resource = (
                Resource.objects.select_related("latest")
                .filter(group=group, resource_type=self.resource_plural, rid=rid)
                .first()
            )
        self.prepare(group, resource, inp)
        ctx = self.context()
        if resource is not None:
            resource, version = services.create_version(ctx=ctx, address=self.address(gid, rid), data=inp)
        else:
            if inp.epoch is not None:
                raise Problem(
                    "not-found",
                    f"{self.groups_url()}/{gid}/{self.names.resource_segment}/{rid} "
                    "does not exist (an epoch was given)",
                )
            resource = services.create_resource(ctx=ctx, address=self.address(gid, rid, resources=True), data=inp)
            latest = resource.latest
            assert latest is not None  # (made with its first version)
            version = latest
        response = self.document(resource, version, status=201)
        response["Location"] = self.version_url(resource, version.vid)
        return response


if TYPE_CHECKING:
    BindingMixin = BindingView  # (each binding's mixin comes before one of the base views below)
else:
    BindingMixin = object


LIST = "filter limit page"  # the flags of a list's GET
# (the views' operations are described in openapi.py, where the kernel's methods are a binding's operations too)


class GroupsBase(BindingView, entity_views.GroupCollectionView):
    flags = declared_flags(get=LIST)

    def groups_json(self, groups) -> list[str]:
        return [g.gid for g in groups]


class GroupBase(BindingView, entity_views.GroupView):
    flags = declared_flags(get="", put="epoch", delete="epoch")

    def location(self, data: dict) -> str:
        return f"{self.groups_url()}/{data['id']}"

    def put_group(self, gid: str) -> bool:
        """The body holds the group's attributes (missing ones are removed)."""
        body = json_body(self.request, required=False) or {}
        body = {k: v for k, v in body.items() if k not in ("createdtimeutc", "updatedtimeutc")}
        # the group's format rules (non-empty, frozen while it holds resources) are the type's validation hook's
        _group, created = services.put_group(
            ctx=self.context(),
            address=self.address(gid),
            data=body,
            expected_epoch=query_epoch(self.request),
            seed_binding=True,  # the seed's older bindings: a definition group's format is REQUIRED (CONTRACT 18)
        )
        return created

    def delete_group(self, gid: str) -> HttpResponse:
        """Answers the deleted group's last attributes."""
        group = services.delete_group(
            ctx=self.context(), address=self.address(gid), expected_epoch=query_epoch(self.request)
        )
        return json_response(self.group_json(group))


class ResourcesBase(BindingView, entity_views.ResourceCollectionView):
    flags = declared_flags(get=LIST, delete="")

    def resources_json(self, group, resources) -> list[str]:
        return [r.rid for r in resources]

    def delete(self, request, gid):
        """Delete everything in the group; answers the deleted ids."""
        deleted = services.delete_resources(ctx=self.context(), address=self.address(gid, resources=True), items=None)
        return json_response([r.rid for r, _v in deleted])


class ResourceBase(BindingView, entity_views.ResourceView):
    flags = declared_flags(get="", post=f"epoch {ATTRIBUTES}", delete="epoch")
    http_method_names = ["get", "post", "delete", "head", "options"]  # a POST adds a version: no PUT

    def ids(self, rid: str, vid: str | None) -> tuple[str, str | None, bool]:
        """A version is named by its number (the stored id "N"); no path names an entity's metadata."""
        return rid, None if vid is None else version_id_of(vid), False

    def document_read(self, gid: str, rid: str, vid: str | None, created: bool = False) -> HttpResponse:
        """The latest version's document, or that of `vid`."""
        return self.document(*selectors.get_document_version(self.gt, gid, self.resource_plural, rid, vid))

    def post(self, request, gid, rid):
        """Add the document in the body as a new version; the first POST creates the resource."""
        raw = body_bytes(request)
        if not raw.strip():
            raise Problem("bad-request", f"the body must be the {self.rt.singular} document")
        return self.write_version(request, gid, rid, raw)

    def delete_entity(self, gid: str, rid: str, vid: str | None) -> HttpResponse:
        """Answers a version's last attributes; a resource's, with its id, version numbers and creation time."""
        if vid is not None:
            resource, deleted = services.delete_version(
                ctx=self.context(), address=self.address(gid, rid, vid), expected_epoch=query_epoch(self.request)
            )
            return json_response(self.version_attributes(resource, deleted))
        group = selectors.get_group(self.gt, gid)
        numbers = [int(v.vid) for v in integer_versions(selectors.get_resource(group, self.resource_plural, rid))]
        resource, latest = services.delete_resource(
            ctx=self.context(), address=self.address(gid, rid), expected_epoch=query_epoch(self.request)
        )
        resource.group = group
        out = self.version_attributes(resource, latest) if latest is not None else {}
        out.update(id=rid, versions=numbers, createdtimeutc=timestamp(resource.created_on))
        return json_response(out)


class VersionsBase(BindingView, entity_views.VersionCollectionView):
    flags = declared_flags(get=LIST)

    def version_page(self, resource, page):
        qs = apply_filters(integer_versions(resource), parse_filters(self.filters()), id_column="vid")
        total = qs.count()
        return [int(vid) for vid in qs[page.offset : page.offset + page.limit].values_list("vid", flat=True)], total

    def versions_json(self, group, resource, versions) -> list[int]:
        return versions


class VersionBase(ResourceBase, entity_views.VersionView):
    flags = declared_flags(get="", delete="epoch")
    http_method_names = ["get", "delete", "head", "options"]

    def dispatch(self, request, *args, version, **kwargs):
        # the route names the segment `version` (so does the OpenAPI description): the kernel's view reads `vid`
        return super().dispatch(request, *args, vid=version, **kwargs)


class LookupBase(BindingView):
    flags = declared_flags(get="uri")

    def lookup(self, request):
        """The version whose URI (authority + version id, section 2.2.2) is `?uri=`."""
        uri = request.GET.get("uri")
        if not uri or len(uri) > MAX_URI_LENGTH:
            raise Problem("bad-request", f"the uri query parameter is required, at most {MAX_URI_LENGTH} characters")
        found = self.find(uri)
        if found is None:
            raise Problem("not-found", f"no version of this registry has the URI {uri}")
        return self.document(*found)

    def find(self, uri: str):
        groups = f"{re.escape(self.names.groups_path)}/" if self.names.groups_path else ""
        pattern = (
            rf"(?:^|[/:]){groups}([^/:]+)/{re.escape(self.names.resource_segment)}/([^/:]+)"
            r"/versions/([^/:]+)$"
        )
        match = re.search(pattern, uri)
        if match is None:
            return None
        gid, rid, vid = match.groups()
        version = (
            Version.objects.select_related("resource", "resource__group")
            .filter(
                resource__group__group_type=self.group_plural,
                resource__group__gid=gid,
                resource__resource_type=self.resource_plural,
                resource__rid=rid,
                vid=vid,
            )
            .first()
        )
        if version is None or self.version_attributes(version.resource, version)["uri"] != uri:
            return None  # the path matches but the authority does not: another registry's version
        # the group is named by the query, not the path: its read rule is asked here (public reads off)
        check_read(self.request, version.resource.path, group=version.resource.group)
        return version.resource, version
