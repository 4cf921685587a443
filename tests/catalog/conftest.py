"""The core binding's client fixtures (tests/api/conftest.py), for the catalog's HTTP tests."""
from tests.api.conftest import admin_user, anon, su  # noqa: F401
