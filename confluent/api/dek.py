"""The DEK registry at `/confluent/dek-registry/v1` (docs/data-contracts.md, "The DEK registry"): KEKs and their DEKs,
as Confluent's API reference and clients (`DekRegistryClient`) use them. Reads follow the registry's read rules (a KEK
of a schema group the caller may not read is not found); a DEK's plain `keyMaterial` (a shared KEK's) is answered
only to the callers `dek_selectors.may_read_material` names. Writes go through confluent/dek_services.py."""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import path

from registry.http.requests import declared_flags, json_body

from .. import dek_errors, dek_selectors, dek_services, kms, selectors
from ..dek_models import Dek, Kek
from .base import ConfluentView, answer, flag, page, queries, query

UPDATE_MEMBERS = ("kmsProps", "doc", "shared")


class DekRegistryView(ConfluentView):
    def initial(self, request, *args, **kwargs):
        # a KEK name or DEK subject with a control character is Confluent's invalid key (the base would call it an
        # invalid subject)
        for name in ("name", "subject"):
            value = kwargs.get(name)
            if value is not None and any(ord(c) < 32 or ord(c) == 127 for c in value):
                raise dek_errors.invalid(name)
        super().initial(request, *args, **kwargs)

    def kek(self, name: str, *, deleted: bool = False, context: str | None = None) -> Kek:
        """The KEK, when the caller may read its group (else 40470, as for no KEK)."""
        kek = dek_selectors.kek(name, deleted=deleted, context=context)
        if not dek_selectors.visible(kek, self.hidden_groups()):
            raise dek_errors.not_found(name)
        return kek

    def dek_answer(self, kek: Kek, row: Dek) -> HttpResponse:
        material = None
        if kek.shared and dek_selectors.may_read_material(self.request.user, kek):
            material = dek_selectors.key_material(kek, row)
        response = answer(dek_selectors.dek_json(kek, row, material))
        response["Cache-Control"] = "no-store"
        return response

    def one_dek(self, request, name: str, subject: str, number: int | None) -> HttpResponse:
        """A version of the subject's DEK (`?algorithm`, `?deleted`; None: the newest), with `keyMaterial` for those
        who may read it."""
        deleted = flag(request, "deleted")
        kek = self.kek(name, deleted=deleted)
        algorithm = dek_selectors.algorithm_of(query(request, "algorithm"))
        return self.dek_answer(kek, dek_selectors.dek(kek, subject, algorithm, number, deleted=deleted))

    def change_deks(self, request, name: str, subject: str, version: str | None, *, undelete: bool) -> HttpResponse:
        """Delete (soft, or `?permanent=true` after a soft delete) or undelete the subject's DEK (`?algorithm`): every
        version, or the `version` of the path (`latest` or -1: the newest): 204."""
        number = selectors.parse_version(version) if version is not None else None
        permanent = not undelete and flag(request, "permanent")
        self.kek(name, deleted=True)
        ctx, algorithm, every = self.context(), query(request, "algorithm"), version is None
        if undelete:
            dek_services.undelete_deks(
                ctx=ctx, kek_name=name, subject=subject, algorithm=algorithm, version=number, every=every
            )
        else:
            dek_services.delete_deks(
                ctx=ctx,
                kek_name=name,
                subject=subject,
                algorithm=algorithm,
                version=number,
                every=every,
                permanent=permanent,
            )
        return HttpResponse(status=204)


class KeksView(DekRegistryView):
    flags = declared_flags(get="subjectPrefix deleted offset limit", post="context testSharing")

    def get(self, request):
        """KEK names (`?subjectPrefix` (repeated): those with a DEK of such a subject; `?deleted`; `?offset`,
        `?limit`)."""
        names = dek_selectors.kek_names(
            prefixes=[p for p in queries(request, "subjectPrefix") if p],
            deleted=flag(request, "deleted"),
            hidden=self.hidden_groups(),
        )
        return answer(page(names, request))

    def post(self, request):
        """Create a KEK (`?context=`: the context whose subjects it serves; `?testSharing` is accepted: a shared
        KEK's KMS is always tried at creation)."""
        flag(request, "testSharing")
        body = json_body(request)  # a JSON object (400 otherwise)
        if body.get("deleted") is True:
            raise dek_errors.invalid("deleted", "a KEK is created live")
        data = dek_services.NewKek(
            name=body.get("name"),
            kms_type=body.get("kmsType"),
            kms_key_id=body.get("kmsKeyId"),
            kms_props=body.get("kmsProps"),
            doc=body.get("doc"),
            shared=body.get("shared"),
        )
        kek = dek_services.create_kek(ctx=self.context(), data=data, context=query(request, "context"))
        return answer(dek_selectors.kek_json(kek))


class KekView(DekRegistryView):
    flags = declared_flags(get="deleted context", put="context testSharing", delete="permanent")

    def get(self, request, name):
        """A KEK (`?deleted`: soft-deleted too; `?context=`: only when it serves that context)."""
        kek = self.kek(name, deleted=flag(request, "deleted"), context=query(request, "context"))
        return answer(dek_selectors.kek_json(kek))

    def put(self, request, name):
        """Change a KEK's `kmsProps`, `doc` or `shared` (members not sent are kept)."""
        flag(request, "testSharing")
        body = json_body(request)
        context = query(request, "context")
        self.kek(name, context=context)
        changes = {key: body[key] for key in UPDATE_MEMBERS if key in body}
        kek = dek_services.update_kek(
            ctx=self.context(),
            name=name,
            context=context,
            kms_props=changes.get("kmsProps", dek_services.UNSET),
            doc=changes.get("doc", dek_services.UNSET),
            shared=changes.get("shared", dek_services.UNSET),
        )
        return answer(dek_selectors.kek_json(kek))

    def delete(self, request, name):
        """Soft-delete a KEK, or (`?permanent=true`, after a soft delete) delete it: 204."""
        permanent = flag(request, "permanent")
        self.kek(name, deleted=True)
        dek_services.delete_kek(ctx=self.context(), name=name, permanent=permanent)
        return HttpResponse(status=204)


class KekUndeleteView(DekRegistryView):
    def post(self, request, name):
        self.kek(name, deleted=True)
        dek_services.undelete_kek(ctx=self.context(), name=name)
        return HttpResponse(status=204)


class KekTestView(DekRegistryView):
    def post(self, request, name):
        """Whether the registry reaches a shared KEK's KMS (wraps and unwraps a key): the KEK, else 42271."""
        kek = self.kek(name)
        if not kek.shared:
            raise dek_errors.invalid("shared", f"KEK '{name}' is not shared")
        try:
            kms.unwrap(kek.kms_type, kms.new_dek(kek.kms_type, dek_selectors.DEFAULT_ALGORITHM))
        except kms.KmsError as exc:
            raise dek_errors.invalid("shared", str(exc)) from None
        return answer(dek_selectors.kek_json(kek))


def _new_dek(body: dict, subject) -> dek_services.NewDek:
    return dek_services.NewDek(
        subject=subject,
        version=body.get("version"),
        algorithm=body.get("algorithm"),
        encrypted_key_material=body.get("encryptedKeyMaterial"),
    )


class DeksView(DekRegistryView):
    flags = declared_flags(get="deleted offset limit")

    def get(self, request, name):
        """The subjects of a KEK's DEKs (`?deleted`, `?offset`, `?limit`)."""
        deleted = flag(request, "deleted")
        kek = self.kek(name, deleted=deleted)
        return answer(page(dek_selectors.dek_subjects(kek, deleted=deleted), request))

    def post(self, request, name):
        """Create a DEK named by the body's `subject` (the older form of POST .../deks/SUBJECT)."""
        self.kek(name)
        body = json_body(request)
        kek, row = dek_services.create_dek(ctx=self.context(), kek_name=name, data=_new_dek(body, body.get("subject")))
        return self.dek_answer(kek, row)


class DekView(DekRegistryView):
    flags = declared_flags(get="algorithm deleted", post="rewrap", delete="algorithm permanent")

    def get(self, request, name, subject):
        """The subject's DEK version 1 (`?algorithm`, `?deleted`), as Confluent answers this route."""
        return self.one_dek(request, name, subject, 1)

    def post(self, request, name, subject):
        """Create a DEK of the subject (`?rewrap` is not served: 42271 when true)."""
        if flag(request, "rewrap"):
            raise dek_errors.invalid("rewrap", "rewrapping a DEK under its KEK is not served by this registry")
        self.kek(name)
        body = json_body(request)
        kek, row = dek_services.create_dek(ctx=self.context(), kek_name=name, data=_new_dek(body, subject))
        return self.dek_answer(kek, row)

    def delete(self, request, name, subject):
        """Soft-delete every version of the subject's DEK (`?algorithm`), or (`?permanent=true`) delete them: 204."""
        return self.change_deks(request, name, subject, None, undelete=False)


class DekUndeleteView(DekRegistryView):
    flags = declared_flags(post="algorithm")

    def post(self, request, name, subject):
        return self.change_deks(request, name, subject, None, undelete=True)


class DekVersionsView(DekRegistryView):
    flags = declared_flags(get="algorithm deleted offset limit")

    def get(self, request, name, subject):
        """The versions of the subject's DEK (`?algorithm`, `?deleted`, `?offset`, `?limit`)."""
        deleted = flag(request, "deleted")
        kek = self.kek(name, deleted=deleted)
        algorithm = dek_selectors.algorithm_of(query(request, "algorithm"))
        rows = dek_selectors.deks(kek, subject, algorithm, deleted=deleted)
        return answer(page([row.version for row in rows], request))


class DekVersionView(DekRegistryView):
    flags = declared_flags(get="algorithm deleted", delete="algorithm permanent")

    def get(self, request, name, subject, version):
        """One version of the subject's DEK (`latest` or -1: the newest), with `keyMaterial` for those who may."""
        return self.one_dek(request, name, subject, selectors.parse_version(version))

    def delete(self, request, name, subject, version):
        return self.change_deks(request, name, subject, version, undelete=False)


class DekVersionUndeleteView(DekRegistryView):
    flags = declared_flags(post="algorithm")

    def post(self, request, name, subject, version):
        return self.change_deks(request, name, subject, version, undelete=True)


KEK = "dek-registry/v1/keks/<str:name>"
DEK = f"{KEK}/deks/<path:subject>"
# longest first: a subject may hold `/` (and so end in `/versions` or `/undelete`, as it may in Confluent's)
urlpatterns = [
    path("dek-registry/v1/keks", KeksView.as_view()),
    path(f"{DEK}/versions/<str:version>/undelete", DekVersionUndeleteView.as_view()),
    path(f"{DEK}/versions/<str:version>", DekVersionView.as_view()),
    path(f"{DEK}/versions", DekVersionsView.as_view()),
    path(f"{DEK}/undelete", DekUndeleteView.as_view()),
    path(DEK, DekView.as_view()),
    path(f"{KEK}/deks", DeksView.as_view()),
    path(f"{KEK}/undelete", KekUndeleteView.as_view()),
    path(f"{KEK}/test", KekTestView.as_view()),
    path(KEK, KekView.as_view()),
]
