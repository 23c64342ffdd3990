"""Rule-based checks of the browser's state: bookmarks, settings, tabs, the web app's stored
submissions, downloaded files. Each takes the state as read (``read_state``: the live browser through
``ChromeTools``' read-only calls, the same state the GUI shows) and returns a ``VerifierResult``
naming the first check that failed. Strict: an extra bookmark of the same URL in the wrong folder,
a setting of the wrong type, a submission with one field off all fail."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from desktop_gym.verifiers.result import VerifierResult

#: Read-only ``ChromeTools`` calls a verifier may make.
READ_METHODS = ("list_bookmarks", "get_settings", "list_tabs", "site_submissions", "list_downloads", "get_url")


def read_state(client: Any, method: str, **arguments: Any) -> Any:
    """One read-only ``ChromeTools`` call on the live browser (through the guest's CallApi).

    Raises:
        ValueError: ``method`` is not a read-only call.
    """
    if method not in READ_METHODS:
        raise ValueError(f"{method!r} is not one of the read-only calls {READ_METHODS}")
    return json.loads(client.call_api("ChromeTools", method, json.dumps(arguments), timeout=40.0))


def verify_bookmark(bookmarks: Sequence[Mapping[str, str]], url: str, title: str, folder: str) -> VerifierResult:
    """Exactly one bookmark of ``url``: titled ``title``, in ``folder`` (a path like ``Bookmarks bar/Work``)."""
    marks = [b for b in bookmarks if b.get("url") == url]
    if not marks:
        return VerifierResult.failed(f"no bookmark of {url}", found=[b.get("url") for b in bookmarks][:20])
    if len(marks) > 1:
        return VerifierResult.failed(f"{len(marks)} bookmarks of {url}, expected one", found=marks)
    mark = marks[0]
    if mark.get("folder", "").casefold() != folder.casefold():
        return VerifierResult.failed(f"the bookmark of {url} is in {mark.get('folder')!r}, not {folder!r}", found=mark)
    if mark.get("title") != title:
        return VerifierResult.failed(f"the bookmark of {url} is titled {mark.get('title')!r}, not {title!r}")
    return VerifierResult.passed(f"{url} is bookmarked as {title!r} in {folder!r}")


def verify_no_bookmark(bookmarks: Sequence[Mapping[str, str]], url: str) -> VerifierResult:
    """No bookmark of ``url`` is left."""
    left = [b for b in bookmarks if b.get("url") == url]
    if left:
        return VerifierResult.failed(f"{url} is still bookmarked", found=left)
    return VerifierResult.passed(f"no bookmark of {url}")


def verify_settings(settings: Mapping[str, Any], expected: Mapping[str, Any]) -> VerifierResult:
    """Every ``expected`` setting has exactly its value (and type: ``True`` is not ``1``)."""
    for name, value in expected.items():
        found = settings.get(name)
        if type(found) is not type(value) or found != value:
            return VerifierResult.failed(f"the setting {name} is {found!r}, expected {value!r}", setting=name)
    return VerifierResult.passed(f"the settings {', '.join(expected)} are as asked")


def verify_tab_urls(tabs: Sequence[Mapping[str, Any]], urls: Iterable[str]) -> VerifierResult:
    """Each of ``urls`` is open in a tab of its own."""
    open_urls = [t.get("url", "") for t in tabs]
    for url in urls:
        count = open_urls.count(url)
        if count != 1:
            return VerifierResult.failed(f"{url} is open in {count} tabs, expected one", open=open_urls)
    return VerifierResult.passed("each page is open in its own tab", open=open_urls)


def verify_submission(submissions: Sequence[Mapping[str, Any]], path: str, fields: Mapping[str, str]) -> VerifierResult:
    """Exactly one form was submitted to ``path``, holding exactly ``fields`` (other fields may be empty)."""
    posted = [s for s in submissions if s.get("path") == path]
    if len(posted) != 1:
        return VerifierResult.failed(f"{len(posted)} forms were submitted to {path}, expected one")
    got = posted[0].get("fields", {})
    for name, value in fields.items():
        if str(got.get(name, "")).strip() != value:
            return VerifierResult.failed(f"the field {name} was {got.get(name)!r}, expected {value!r}", field=name)
    return VerifierResult.passed(f"the form at {path} was submitted with the right values")


def verify_file_bytes(data: bytes | None, expected: bytes, path: str) -> VerifierResult:
    """The file at ``path`` exists with exactly ``expected`` bytes."""
    if data is None:
        return VerifierResult.failed(f"{path} does not exist")
    if data != expected:
        return VerifierResult.failed(f"{path} differs from the served file ({len(data)} vs {len(expected)} bytes)")
    return VerifierResult.passed(f"{path} holds the served file")
