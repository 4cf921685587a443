"""The core binding's client fixtures (tests/api/conftest.py: a token-authenticated superuser and an anonymous
client), for the catalog's HTTP tests."""
from tests.api.conftest import admin_user, anon, su  # noqa: F401  fixtures, used by name
