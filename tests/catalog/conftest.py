"""The message validation tests use the core binding tests' clients: a token-authenticated superuser and an
anonymous client."""
from tests.api.conftest import admin_user, anon, su  # noqa: F401  fixtures, used by name
