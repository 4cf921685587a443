"""Every scenario here runs once per binding (`binding`: the adapters of adapters.py), with a superuser's client."""

import pytest

from .adapters import ALL_BINDINGS, BINDINGS


@pytest.fixture(params=BINDINGS, ids=[b.name for b in BINDINGS])
def binding(request):
    return request.param


@pytest.fixture(params=ALL_BINDINGS, ids=[b.name for b in ALL_BINDINGS])
def any_binding(request):
    """Every binding, the older Schema Registry binding too: for the operations all of them have (group writes,
    adding a schema version)."""
    return request.param
