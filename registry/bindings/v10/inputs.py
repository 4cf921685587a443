"""A 1.0 request's resource or version as the services' input (`VersionInput`): from a JSON body (`$details`,
or a resource without a document) or, for a document resource, from the body as the document and the
`xRegistry-*` headers as its metadata."""

from __future__ import annotations

import base64
import binascii
import json
from functools import partial

from ...http.requests import expected_epoch, header_input
from ...services.inputs import UNSET, VersionInput
from .base import XREGISTRY
from .bodies import json_body
from .documents import _strip, _version_to_v05, meta_attribute_names
from .errors import V1Problem
from .mapping import NAMES, ResourceMapping


def check_same_id(body: dict, singular: str, expected: str | None, subject: str | None = None, text=False) -> None:
    """The spec's `mismatched_id` when a body's `<singular>id` is not the one its path or its map's key names
    (`expected`; None: any); `text`: compared as text (a version's body may give `versionid: 1` for version "1")."""
    given = body.get(f"{singular}id")
    if expected is not None and given is not None and (str(given) if text else given) != expected:
        raise V1Problem(
            "mismatched_id",
            f"{singular}id {given!r} does not match {expected!r}",
            subject=subject,
            args={"singular": singular, "invalid_id": given, "expected_id": expected},
        )


def version_input(rm: ResourceMapping, rid: str, vid: str | None, data: dict) -> VersionInput:
    """A 1.0 version (or resource) body as the services' input."""
    if not isinstance(data, dict):
        raise V1Problem("bad_request", f"{rid}: a version must be an object")
    check_same_id(data, "version", vid, text=True)
    check_same_id(data, rm.v1_singular, rid)
    given = data.get("versionid")
    epoch = data.get("epoch")
    converted = _version_to_v05(rm, vid or "1", data)
    converted.pop("id", None)
    inp = VersionInput(
        version_id=vid or (str(given) if given is not None else None),
        epoch=epoch,
        resource_id=rid,
        inherit_descriptions=False,  # a 1.0 version has its own labels and description (it inherited them)
    )
    if not rm.hasdocument:
        inp.document = json.dumps(converted, ensure_ascii=False).encode()
        inp.media_type = "application/json"
        return inp
    document = converted.pop(rm.v1_singular, UNSET)
    encoded = converted.pop(f"{rm.v1_singular}Base64", UNSET)
    uri = converted.pop(f"{rm.v1_singular}URI", UNSET)
    content_type = converted.pop("contenttype", None)
    if isinstance(document, str):
        inp.document = document.encode()
        inp.media_type = content_type or "text/plain; charset=utf-8"
    elif document is not UNSET:  # any other JSON value is a JSON document
        inp.document = json.dumps(document, ensure_ascii=False).encode()
        inp.media_type = content_type or "application/json"
    elif encoded is not UNSET:
        try:
            inp.document = base64.b64decode(encoded, validate=True)
        except (binascii.Error, TypeError):
            raise V1Problem(
                "invalid_attribute",
                f"{rm.v1_singular}base64 is not base64",
                args={"name": f"{rm.v1_singular}base64", "error_detail": "not base64"},
            ) from None
        inp.media_type = content_type or "application/octet-stream"
    elif uri is not UNSET:
        inp.resource_uri = uri
    meta = meta_attribute_names(rm)
    inp.attributes = {k: v for k, v in converted.items() if k not in meta}
    return inp


def _header_attributes(rm: ResourceMapping, rid: str, vid: str | None, attrs: dict) -> VersionInput:
    """The services' input of a document resource's `xRegistry-*` headers (registry/http/requests.header_input)."""
    data = _strip(attrs, set())
    data.pop(f"{rm.v1_singular}id", None)
    inp = version_input(rm, rid, vid, {k: v for k, v in data.items() if k != "versionid"})
    if "versionid" in attrs and vid is None:
        inp.version_id = attrs["versionid"]
    return inp


def request_input(rm: ResourceMapping, rid: str, vid: str | None, request, *, details: bool) -> VersionInput:
    if rm.hasdocument and not details:  # the body is the document, the headers its metadata
        translate = partial(_header_attributes, rm, rid, vid)
        uri = f"{rm.v1_singular}url"
        inp = header_input(request, XREGISTRY, map_name=NAMES["tags"], uri_name=uri, translate=translate)
    else:
        inp = version_input(rm, rid, vid, json_body(request, required=False) or {})
    inp.epoch = expected_epoch(request, inp.epoch)  # ?epoch, xRegistry-epoch, If-Match and the body's, agreeing
    return inp
