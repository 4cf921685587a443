"""The admin's tests: `editor` (a superuser signed in to the admin by session) and the browser fixtures
(Playwright driving Debian's Chromium: playwright cannot download browsers here)."""

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "screenshots"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="module")  # Playwright's sync API keeps an event loop running: not beyond this module
def browser():
    if not os.path.exists(CHROMIUM):
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail("REQUIRE_SERVICES=1 but /usr/bin/chromium is not installed")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


@pytest.fixture
def shot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name):
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    return take


@pytest.fixture
def editor(client, django_user_model):
    """A superuser (`gov`) signed in to the admin by session, as a person is."""
    client.force_login(django_user_model.objects.create_superuser("gov", "g@example.com", "pw"))
    return client
