"""Every page names an icon, and the icon is served (browsers ask /favicon.ico first)."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from desktop_gym.web import create_app


def test_the_favicon_is_served_and_every_page_links_it(tmp_path: Path) -> None:
    client = TestClient(create_app(root=tmp_path))
    for url in ("/favicon.ico", "/static/favicon.svg"):
        reply = client.get(url)
        assert reply.status_code == 200 and reply.headers["content-type"].startswith("image/svg+xml"), url
        assert reply.text.lstrip().startswith("<svg")
    for page in ("/", "/view", "/view/x", "/train", "/dashboard"):
        assert '<link rel="icon" href="/static/favicon.svg"' in client.get(page).text, page
