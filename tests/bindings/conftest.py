"""Clients of the older bindings' tests: a writer (a superuser) and an anonymous reader."""

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def writer(superuser):
    client = APIClient()
    client.force_authenticate(superuser)
    return client


@pytest.fixture
def reader():
    return APIClient()
