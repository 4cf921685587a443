"""`/api/docs/` works without internet access: Swagger UI's files come from this server (drf-spectacular-sidecar),
every file the page names is served, and the page names no other host."""

import re
from urllib.parse import urlparse


def test_api_docs_page_uses_only_local_assets_and_each_is_served(client, db):
    page = client.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    references = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
    assert any(ref.endswith("swagger-ui-bundle.js") for ref in references), references
    assert any(ref.endswith("swagger-ui.css") for ref in references), references
    for ref in references:
        assert not urlparse(ref).netloc, f"the docs page loads {ref} from another host"
        assert ref.startswith("/static/drf_spectacular_sidecar/"), ref
        asset = client.get(ref)
        assert asset.status_code == 200, ref
        body = b"".join(asset.streaming_content) if asset.streaming else asset.content
        assert len(body) > 100, ref
    # the script that starts Swagger UI reads the schema from this server, and names no CDN
    assert "cdn.jsdelivr.net" not in html and "unpkg.com" not in html and "@latest" not in html
    assert client.get("/api/schema/").status_code == 200
