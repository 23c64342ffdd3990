"""ChromeTools against the live browser through the real CallApi RPC, each result checked a second way
(the page's own DOM, the site server's stored data, the profile's files, a fresh DevTools read)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from desktop_gym.guest.client import GuestClient, GuestError

from .conftest import launched_app

pytestmark = pytest.mark.slow


def chrome(guest: GuestClient, method: str, **arguments: Any) -> Any:
    return json.loads(guest.call_api("ChromeTools", method, json.dumps(arguments), timeout=40.0))


@pytest.fixture(scope="module")
def browser(_session_guest: GuestClient) -> Iterator[GuestClient]:
    """One Chromium for the module (a launch takes seconds); every test starts from one tab."""
    _session_guest.kill_apps()
    _session_guest.exec("rm -rf ~/.config/chromium ~/Downloads", shell=True)
    yield from launched_app(_session_guest, "chrome")


@pytest.fixture
def tab(browser: GuestClient) -> GuestClient:
    """The browser with exactly one tab, showing about:blank."""
    tabs = chrome(browser, "list_tabs")
    while len(tabs) > 1:
        chrome(browser, "close_tab", index=len(tabs) - 1)
        tabs = chrome(browser, "list_tabs")
    chrome(browser, "switch_tab", index=0)
    chrome(browser, "navigate", url="about:blank")
    return browser


def test_launch_is_ready_with_devtools_and_window(tab):
    windows = [w for w in tab.windows() if "chromium" in w.app.lower()]
    assert windows, tab.windows()
    assert chrome(tab, "get_url") == "about:blank"


def test_navigate_title_text_and_history_steps(tab):
    assert "News" in chrome(tab, "navigate", url="http://news.gym.test/")
    assert chrome(tab, "get_url") == "http://news.gym.test/"
    links = chrome(tab, "get_links")
    article = next(href for _, href in links if "/article/" in href)
    chrome(tab, "navigate", url=article)
    assert chrome(tab, "get_url") == article
    assert chrome(tab, "go_back") == "http://news.gym.test/"
    assert chrome(tab, "go_forward") == article
    assert chrome(tab, "reload") == article
    text = chrome(tab, "get_page_text", max_chars=200)
    assert 0 < len(text) <= 200
    with pytest.raises(GuestError, match="forward"):
        chrome(tab, "go_forward")


def test_tabs_open_switch_close(tab):
    assert chrome(tab, "open_tab", url="http://docs.gym.test/") == 1
    tabs = chrome(tab, "list_tabs")
    assert [t["active"] for t in tabs] == [False, True]
    assert tabs[1]["url"].startswith("http://docs.gym.test/")
    assert chrome(tab, "switch_tab", index=0) == "about:blank"
    assert [t["active"] for t in chrome(tab, "list_tabs")] == [True, False]
    assert chrome(tab, "close_tab", index=1) == 1
    with pytest.raises(GuestError, match="last tab"):
        chrome(tab, "close_tab")
    with pytest.raises(GuestError, match="no tab 5"):
        chrome(tab, "switch_tab", index=5)


def test_offline_only_gym_sites_and_refused_schemes(tab):
    chrome(tab, "navigate", url="http://example.com/")
    assert "offline" in chrome(tab, "get_page_text").lower()
    with pytest.raises(GuestError, match="javascript"):
        chrome(tab, "navigate", url="javascript:alert(1)")


def test_login_by_accessible_names_and_form(tab):
    chrome(tab, "navigate", url="http://shop.gym.test/login")
    chrome(tab, "type_text", name="username", text="alice")
    chrome(tab, "type_text", selector="input[name=password]", text="wrong")
    chrome(tab, "submit_form")
    assert chrome(tab, "find_text", text="Signed in as") == 0
    chrome(tab, "navigate", url="http://shop.gym.test/login")
    users = chrome(tab, "get_page_text")
    assert "password" in users.lower()


def test_search_pagination_and_click(tab):
    chrome(tab, "navigate", url="http://shop.gym.test/")
    filled = chrome(tab, "fill_form", fields={"q": ""}, submit=False) if chrome(tab, "find_text", text="search") else []
    assert isinstance(filled, list)
    chrome(tab, "navigate", url="http://shop.gym.test/search?q=")
    before = chrome(tab, "get_url")
    chrome(tab, "click", selector="a[rel=next]")
    assert chrome(tab, "get_url") != before
    assert "page=2" in chrome(tab, "get_url")


def test_contact_form_submission_is_stored(tab):
    chrome(tab, "navigate", url="http://shop.gym.test/contact")
    chrome(
        tab,
        "fill_form",
        fields={"name": "Ada", "email": "ada@example.org", "message": "hello from gym", "subscribe": "true"},
        submit=True,
    )
    assert chrome(tab, "find_text", text="thank") >= 1
    stored = chrome(tab, "site_submissions")
    assert any(s.get("fields", s).get("message") == "hello from gym" for s in stored), stored


def test_bookmarks_add_folder_list_remove(tab):
    assert chrome(tab, "create_bookmark_folder", name="Work") == "Bookmarks bar/Work"
    chrome(tab, "add_bookmark", url="http://docs.gym.test/", title="Docs", folder="Bookmarks bar/Work")
    chrome(tab, "add_bookmark", url="http://news.gym.test/", title="News")
    marks = chrome(tab, "list_bookmarks")
    assert {"folder": "Bookmarks bar/Work", "title": "Docs", "url": "http://docs.gym.test/"} in marks
    assert {"folder": "Bookmarks bar", "title": "News", "url": "http://news.gym.test/"} in marks
    with pytest.raises(GuestError, match="no bookmark folder"):
        chrome(tab, "add_bookmark", url="http://news.gym.test/", folder="Nope")
    assert chrome(tab, "remove_bookmark", url="http://news.gym.test/") == 1
    assert all(m["url"] != "http://news.gym.test/" for m in chrome(tab, "list_bookmarks"))


def test_history_search(tab):
    chrome(tab, "navigate", url="http://docs.gym.test/")
    found = chrome(tab, "search_history", text="docs.gym.test")
    assert any(e["url"].startswith("http://docs.gym.test/") for e in found), found
    assert chrome(tab, "search_history", text="no-such-page-was-visited") == []


def test_download_lands_in_downloads(tab):
    chrome(tab, "navigate", url="http://shop.gym.test/downloads")
    path = chrome(tab, "download", url="http://shop.gym.test/files/orders.csv")
    assert path == "~/Downloads/orders.csv"
    data = tab.get_file("~/Downloads/orders.csv")
    assert data.count(b"\n") >= 5
    assert {"name": "orders.csv", "size": len(data), "complete": True} in chrome(tab, "list_downloads")


def test_settings_change_and_read_back(tab):
    chrome(tab, "set_homepage", url="http://news.gym.test/")
    chrome(tab, "set_font_size", size=20)
    chrome(tab, "set_do_not_track", enabled=True)
    chrome(tab, "set_third_party_cookies", blocked=True)
    chrome(tab, "set_default_zoom", percent=125)
    chrome(tab, "set_startup_pages", urls=["http://docs.gym.test/"])
    settings = chrome(tab, "get_settings")
    assert settings["homepage"] == "http://news.gym.test/"
    assert settings["homepage_is_newtabpage"] is False
    assert settings["font_size"] == 20
    assert settings["do_not_track"] is True
    assert settings["cookie_controls_mode"] == 1
    assert settings["default_zoom"] == 125
    assert settings["startup_urls"] == ["http://docs.gym.test/"]
    assert settings["restore_on_startup"] == 4
    with pytest.raises(GuestError, match="9 to 72"):
        chrome(tab, "set_font_size", size=500)
    chrome(tab, "set_minimum_font_size", size=12)
    chrome(tab, "show_bookmarks_bar", visible=True)
    chrome(tab, "set_search_suggestions", enabled=False)
    chrome(tab, "set_startup_behavior", behavior="continue")
    settings = chrome(tab, "get_settings")
    assert (settings["minimum_font_size"], settings["bookmark_bar"]) == (12, True)
    assert (settings["search_suggestions"], settings["restore_on_startup"]) == (False, 1)
    with pytest.raises(GuestError, match="behavior must be one of"):
        chrome(tab, "set_startup_behavior", behavior="sometimes")


def test_default_search_engine(tab):
    engines = chrome(tab, "get_settings")["default_search_engine"]
    assert engines
    with pytest.raises(GuestError, match="choose from"):
        chrome(tab, "set_default_search_engine", name="no such engine")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ({"selector": "#does-not-exist"}, "no element matches"),
        ({"selector": "[[["}, "invalid CSS selector"),
        ({"name": "a button nobody made"}, "no element is named"),
    ],
)
def test_element_errors_are_argument_errors(tab, target, message):
    chrome(tab, "navigate", url="http://docs.gym.test/")
    with pytest.raises(GuestError, match=message):
        chrome(tab, "click", **target)
