"""`describe` (registry/http/openapi.py), the kernel's attaching of a binding's operations to its views: a view that
inherits a method from a view described before it is described as itself (its flags, summary and text), not as the
view it inherits from, and a method a view does not route cannot be described."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.urls import path
from drf_spectacular.generators import SchemaGenerator

from registry.http.openapi import describe, flag, operation
from registry.http.requests import declared_flags
from registry.http.views import RegistryView

MEANINGS = {name: flag(name, f"the {name} flag") for name in ("a", "b")}


def described(patterns) -> dict:
    """The OpenAPI document drf-spectacular builds of these routes: {path: {method: operation}}."""
    return SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)["paths"]


def query_parameters(op: dict) -> list[str]:
    return [p["name"] for p in op.get("parameters", []) if p["in"] == "query"]


def test_a_view_inheriting_a_described_method_is_described_as_itself():
    class Base(RegistryView):
        flags = declared_flags(get="a")

        def get(self, request):
            return HttpResponse()

    class Derived(Base):
        flags = declared_flags(get="b")

    describe(Base, {"get": operation("the base", description="what the base answers")}, MEANINGS)
    describe(Derived, {"get": operation("the derived", description="what the derived answers")}, MEANINGS)
    paths = described([path("base", Base.as_view()), path("derived", Derived.as_view())])
    base, derived = paths["/base"]["get"], paths["/derived"]["get"]
    assert (derived["summary"], derived["description"]) == ("the derived", "what the derived answers")
    assert query_parameters(derived) == ["b"]  # before: ["a", "b"], the base's flags first
    assert (base["summary"], base["description"], query_parameters(base)) == (
        "the base",
        "what the base answers",
        ["a"],
    )


def test_a_method_the_view_does_not_route_is_not_described():
    class Routed(RegistryView):
        def get(self, request):
            return HttpResponse()

        def post(self, request):
            return HttpResponse()

    class ReadOnly(Routed):
        http_method_names = ["get", "head", "options"]

    with pytest.raises(ImproperlyConfigured, match="does not route POST"):
        describe(ReadOnly, {"post": operation("a write")})
    with pytest.raises(ImproperlyConfigured, match="does not route PUT"):
        describe(Routed, {"put": operation("a write")})
    assert "post" not in described([path("read-only", ReadOnly.as_view())])["/read-only"]
