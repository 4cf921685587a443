"""Fixtures of the core binding's tests: a group `g1` made by the superuser's client (`su`)."""

import pytest

from tests import helpers


@pytest.fixture
def group(su):
    return helpers.make_group(su, "g1", description="first")
