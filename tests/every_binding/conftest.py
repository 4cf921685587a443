"""Every scenario here runs once per binding (`binding`: the adapters of adapters.py), with a superuser's client."""

import pytest

from .adapters import BINDINGS


@pytest.fixture(params=BINDINGS, ids=[b.name for b in BINDINGS])
def binding(request):
    return request.param
