"""Fixtures of the core binding's tests: a writer client (`su`: the superuser `alice`, by token) and a group `g1`."""

import pytest

from tests import helpers


@pytest.fixture
def writer(su):
    return su


@pytest.fixture
def group(writer):
    return helpers.make_group(writer, "g1", description="first")
