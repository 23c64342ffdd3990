"""OSWorld's Chrome tasks -> ours: the browser's setup, its checks, and which tasks need the internet.

Setup: OSWorld's ``google-chrome --remote-debugging-port=...`` launch becomes a launch of the app
``chrome`` (Chromium, which opens DevTools itself), its ``socat`` port forward is dropped, and
``chrome_open_tabs`` becomes ``open_tab`` steps. Checks: importing this module adds the browser
metrics to ``osworld_evaluators.METRICS``; each maps OSWorld's getter and rule onto a browser
verifier (``verifiers/browser_state.py``) that reads the same state from the live browser, not
from the profile files OSWorld reads after restarting Chrome.

The desktop reaches no website but its own ``*.gym.test`` ones, so a task that needs a live site
is refused by :func:`internet_need`: one whose pages are on the web, unless its check reads only
browser state that no page's content decides (a setting; the URL of a page the setup itself
opened), and one that uses the browser while its check reads a file or a command's output (the
browser is there to fetch something from the web).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..verifiers.browser_state import BROWSER_READS, normal_url
from .osworld_evaluators import METRICS, Node, Unsupported, _no_options, _rules
from .osworld_evaluators import exact_match as file_exact_match

#: Programs OSWorld starts for its browser.
BROWSER_PROGRAMS = ("google-chrome", "google-chrome-stable", "chromium", "chromium-browser")
#: ``related_apps`` names that mean the browser.
BROWSER_APP_NAMES = ("chrome", "google-chrome", "google chrome", "chromium", "browser")
#: Hosts this desktop serves (its offline sites) or that never leave the machine.
LOCAL_HOST = re.compile(r"(^|\.)gym\.test$|^localhost$|^127(\.\d+){3}$")
HOST_NAME = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+$")
#: URLs in free text: with a scheme, or a bare ``www.`` host.
URL_IN_TEXT = re.compile(r"""https?://[^\s'"<>()\[\]]+|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+""", re.IGNORECASE)
BOOKMARKS_BAR = "Bookmarks bar"
#: Getters whose value the agent sets in the browser itself, whatever any page holds.
SETTING_GETTERS = (
    "enable_do_not_track",
    "default_search_engine",
    "new_startup_page",
    "chrome_font_size",
    "profile_name",
    "enable_enhanced_safety_browsing",
    "data_delete_automacally",
    "enabled_experiments",
    "chrome_language",
    "find_unpacked_extension_path",
)
#: Getters of the active tab's URL (the address bar; ``active_tab_info`` reloads it and adds its HTML).
URL_GETTERS = ("active_url_from_accessTree", "active_tab_info")
#: Getters of URLs the browser holds: a check on them needs no page when the URLs are known beforehand.
URL_STATE_GETTERS = (*URL_GETTERS, "open_tabs_info", "bookmarks")
#: Getters of what visiting pages leaves in the browser: with web pages in the task, the web decides it.
VISIT_GETTERS = ("history", "cookie_data")


def _argv(command: Any) -> list[str]:
    """An OSWorld command (a string or a list) as its words."""
    if isinstance(command, str):
        try:
            return shlex.split(command)
        except ValueError:
            return command.split()
    return [str(part) for part in command or []]


def _program(command: Any) -> str:
    """The program an OSWorld command runs, without its folder (``google-chrome``)."""
    argv = _argv(command)
    return argv[0].rsplit("/", 1)[-1] if argv else ""


def is_browser_restart(command: Any) -> bool:
    """Whether ``command`` stops or starts OSWorld's browser (``pkill chrome``, ``google-chrome ...``)."""
    argv, program = _argv(command), _program(command)
    if program in BROWSER_PROGRAMS:
        return True
    return program in ("pkill", "killall") and any("chrom" in arg for arg in argv[1:])


def browser_config(
    kind: Any, params: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]
) -> tuple[list[Node], str] | None:
    """Our setup steps for one OSWorld config step about the browser, and a note on what changed.

    Args:
        kind: the config step's type.
        params: its parameters.
        steps: our setup steps so far (a tab needs the browser launched first).

    Returns:
        the steps (none when the step is dropped) and a note ("" when nothing needs saying); None
        when the step does not concern the browser.

    Raises:
        Unsupported: the step concerns the browser and has no equivalent.
    """
    launched = any(step.get("type") == "launch" and step.get("app") == "chrome" for step in steps)
    launch = [] if launched else [{"type": "launch", "app": "chrome"}]
    if kind == "chrome_open_tabs":
        urls = params.get("urls_to_open") or []
        if not isinstance(urls, list) or not urls:
            raise Unsupported("chrome_open_tabs without urls_to_open")
        return [*launch, *({"type": "open_tab", "url": str(url)} for url in urls)], ""
    if kind == "chrome_close_tabs":
        raise Unsupported("closing tabs by URL has no setup step here (open_tab opens tabs; none closes them)")
    if kind == "update_browse_history":
        raise Unsupported("seeding the browser's history has no setup step here")
    if kind == "activate_window" and re.search(r"chrome|chromium", str(params.get("window_name", "")), re.I):
        return [], "Chrome's window activation dropped: the browser is in front after its launch and each open_tab"
    if kind not in ("launch", "execute", "command"):
        return None
    command = params.get("command")
    argv, program = _argv(command), _program(command)
    if program in BROWSER_PROGRAMS:
        urls = [arg for arg in argv[1:] if not arg.startswith("-")]
        flags = [arg for arg in argv[1:] if arg.startswith("-")]
        note = f"{program}'s flags {flags} dropped: the desktop's Chromium opens DevTools itself" if flags else ""
        return [*launch, *({"type": "open_tab", "url": url} for url in urls)], note
    if program == "socat" and "9222" in " ".join(argv):
        return [], "socat dropped: it forwards Chrome's DevTools port for OSWorld's checks; ours read the browser"
    if ".config/google-chrome" in " ".join(argv):
        raise Unsupported(
            "the command edits Google Chrome's profile files (~/.config/google-chrome); the desktop's Chromium "
            "keeps its profile in ~/.config/chromium, prepared at its launch"
        )
    return None


# ------------------------------------------------------------------ which tasks need the internet


def _urls(value: Any) -> Iterator[str]:
    """Every URL in ``value`` (strings, lists, dicts), skipping files OSWorld downloads (read from the cache here)."""
    if isinstance(value, str):
        yield from URL_IN_TEXT.findall(value)
    elif isinstance(value, Mapping):
        if value.get("type") in ("download", "cloud_file"):
            return
        for item in value.values():
            yield from _urls(item)
    elif isinstance(value, list):
        for item in value:
            yield from _urls(item)


def web_host(url: str) -> str | None:
    """The host of ``url`` when it is a site on the internet (not the desktop's own), else None."""
    if url.lower().startswith("www."):
        url = "https://" + url
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().rstrip(".")  # a sentence's full stop after the URL
    if parts.scheme.lower() not in ("http", "https") or not HOST_NAME.match(host) or LOCAL_HOST.search(host):
        return None  # not a web page, a host name cut short ("https://www." as a prefix), or the desktop's own
    return host


def uses_browser(data: Mapping[str, Any]) -> bool:
    """Whether an OSWorld task starts the browser, sets it up, or names it among its apps."""
    if any(str(app).lower() in BROWSER_APP_NAMES for app in data.get("related_apps", []) or []):
        return True
    for step in data.get("config", []) or []:
        kind, params = step.get("type"), step.get("parameters", {}) or {}
        if str(kind).startswith("chrome_") or kind == "update_browse_history":
            return True
        if kind in ("launch", "execute", "command") and _program(params.get("command")) in BROWSER_PROGRAMS:
            return True
    return False


def _opened_urls(data: Mapping[str, Any]) -> list[str]:
    """The pages OSWorld's setup opens: ``chrome_open_tabs`` and URLs on the browser's command line."""
    opened: list[str] = []
    for step in data.get("config", []) or []:
        params = step.get("parameters", {}) or {}
        if step.get("type") == "chrome_open_tabs":
            opened += [str(url) for url in params.get("urls_to_open") or []]
        elif _program(params.get("command")) in BROWSER_PROGRAMS:
            opened += [arg for arg in _argv(params.get("command"))[1:] if not arg.startswith("-")]
    return opened


def _check_needs_no_page(evaluator: Mapping[str, Any], opened: set[str]) -> bool:
    """Whether every check reads browser state that no web page decides: a setting, or URLs in ``opened``."""
    funcs = evaluator.get("func")
    funcs = funcs if isinstance(funcs, list) else [funcs]
    results, expecteds = evaluator.get("result", {}), evaluator.get("expected", {})
    results = results if isinstance(results, list) else [results] * len(funcs)
    expecteds = expecteds if isinstance(expecteds, list) else [expecteds] * len(funcs)
    for func, result, expected in zip(funcs, results, expecteds, strict=False):
        getter = (result or {}).get("type")
        if getter in SETTING_GETTERS:
            continue
        if getter not in URL_STATE_GETTERS or func == "is_expected_url_pattern_match":
            return False
        if any(web_host(url) and normal_url(url) not in opened for url in _urls(expected or {})):
            return False  # the agent must find the page on the web to know its URL
    return True


def _getters(evaluator: Mapping[str, Any]) -> list[Any]:
    results = evaluator.get("result", {})
    return [(result or {}).get("type") for result in (results if isinstance(results, list) else [results])]


def internet_need(data: Mapping[str, Any]) -> str | None:
    """Why an OSWorld task needs the internet (``needs the internet (<host>)``), or None.

    A task that does not use the browser, is infeasible or has no check is not judged here. One
    that does needs the internet unless its checks read only browser state no page decides (see
    the module's docstring); the host named is the first web host its setup opens, its instruction
    names or its checks compare.
    """
    evaluator = data.get("evaluator", {}) or {}
    if not uses_browser(data) or evaluator.get("func") in ("infeasible", "", None, []):
        return None
    opened = _opened_urls(data)
    urls = [*opened, *URL_IN_TEXT.findall(str(data.get("instruction", ""))), *_urls(evaluator)]
    hosts = [host for host in map(web_host, urls) if host]
    state_getters = (*SETTING_GETTERS, *URL_STATE_GETTERS, *VISIT_GETTERS)
    if not hosts and all(getter in state_getters for getter in _getters(evaluator)):
        return None  # the check reads the browser's own state, and no page on the web is named
    if _check_needs_no_page(evaluator, {normal_url(url) for url in opened}):
        return None
    if hosts:
        return f"needs the internet ({hosts[0]})"
    return "needs the internet (it uses the browser to fetch what its check reads)"


def offline_hosts(data: Mapping[str, Any]) -> list[str]:
    """The web hosts of the pages a task's setup opens (the browser shows the desktop's offline page for them)."""
    return sorted({host for host in map(web_host, _opened_urls(data)) if host})


# ------------------------------------------------------------------ metrics


def _leaf(verifier: str, args: Node, label: str) -> Node:
    return {"name": verifier, "chrome": BROWSER_READS[verifier], "args": args, "label": label}


def _getter(result: Mapping[str, Any], allowed: Sequence[str], metric: str) -> str:
    kind = result.get("type")
    if kind not in allowed:
        raise Unsupported(f"result getter {kind!r} has no equivalent for {metric} (supported: {', '.join(allowed)})")
    return str(kind)


def exact_match(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """OSWorld's exact_match on a browser setting (do-not-track, default search engine, the startup
    page), else on a file or command as ``osworld_evaluators.exact_match`` maps it."""
    getter = result.get("type")
    if getter in ("vm_file", "vm_command_line"):
        return file_exact_match(result, expected, options, cache_dir)
    supported = ("vm_file", "vm_command_line", "enable_do_not_track", "default_search_engine", "new_startup_page")
    _getter(result, supported, "exact_match")
    _no_options(options, "exact_match")
    wanted = str(_rules(expected).get("expected", ""))
    if getter == "default_search_engine":
        return _leaf("chrome_settings", {"expected": {"default_search_engine": wanted}}, "default search engine")
    if wanted not in ("true", "false") or (getter == "new_startup_page" and wanted != "true"):
        raise Unsupported(f"exact_match on {getter} expecting {wanted!r} has no equivalent")
    if getter == "enable_do_not_track":
        return _leaf("chrome_settings", {"expected": {"do_not_track": wanted == "true"}}, "do-not-track")
    # OSWorld's "true": Chromium opens the New Tab page on startup (restore_on_startup 5, its default).
    return _leaf("chrome_settings", {"expected": {"restore_on_startup": 5}}, "startup opens the New Tab page")


def check_font_size(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The default font size: a value, or strictly between ``min`` and ``max`` (as OSWorld compares)."""
    _getter(result, ("chrome_font_size",), "check_font_size")
    _no_options(options, "check_font_size")
    rules = _rules(expected)
    if rules.get("type") == "value":
        return _leaf("chrome_settings", {"expected": {"font_size": rules["value"]}}, "font size")
    if rules.get("type") == "range":
        return _leaf("chrome_settings", {"between": {"font_size": [rules["min"], rules["max"]]}}, "font size")
    raise Unsupported(f"check_font_size rule type {rules.get('type')!r} has no equivalent")


def is_expected_active_tab(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The active tab shows the rule's URL (scheme, ``www.`` and a lone ``/`` aside, as OSWorld compares)."""
    _getter(result, URL_GETTERS, "is_expected_active_tab")
    _no_options(options, "is_expected_active_tab")
    rules = _rules(expected)
    if rules.get("type") != "url":
        raise Unsupported(f"is_expected_active_tab rule type {rules.get('type')!r} has no equivalent")
    return _leaf("chrome_url", {"equals": str(rules["url"])}, "the active tab's URL")


def is_expected_url_pattern_match(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """Each of the rule's regular expressions is found in the active tab's URL."""
    _getter(result, URL_GETTERS, "is_expected_url_pattern_match")
    _no_options(options, "is_expected_url_pattern_match")
    patterns = _rules(expected).get("expected")
    if not isinstance(patterns, list) or not patterns:
        raise Unsupported("is_expected_url_pattern_match with no list of patterns")
    return _leaf("chrome_url", {"patterns": [str(p) for p in patterns]}, "the active tab's URL")


def is_expected_tabs(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The open tabs are exactly the rule's URLs, in any order."""
    _getter(result, ("open_tabs_info",), "is_expected_tabs")
    _no_options(options, "is_expected_tabs")
    rules = _rules(expected)
    if rules.get("type") != "url" or not isinstance(rules.get("urls"), list):
        raise Unsupported(f"is_expected_tabs rule type {rules.get('type')!r} has no equivalent")
    return _leaf("chrome_tabs", {"urls": [str(url) for url in rules["urls"]]}, "the open tabs")


def is_expected_bookmarks(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """The bookmarks bar's own bookmarks (not those in its folders) are exactly the rule's URLs."""
    _getter(result, ("bookmarks",), "is_expected_bookmarks")
    _no_options(options, "is_expected_bookmarks")
    rules = _rules(expected)
    kind = rules.get("type")
    if kind == "bookmark_bar_websites_urls" and isinstance(rules.get("urls"), list):
        args = {"folder": BOOKMARKS_BAR, "urls": [str(url) for url in rules["urls"]]}
        return _leaf("chrome_bookmarks", args, "the bookmarks bar")
    if kind == "bookmark_bar_folders_names":
        raise Unsupported(
            "is_expected_bookmarks bookmark_bar_folders_names: the browser's bookmark list holds bookmarks, "
            "not folders, so an empty folder cannot be seen"
        )
    raise Unsupported(f"is_expected_bookmarks rule type {kind!r} has no equivalent")


METRICS.update(
    {
        "exact_match": exact_match,
        "check_font_size": check_font_size,
        "is_expected_active_tab": is_expected_active_tab,
        "is_expected_url_pattern_match": is_expected_url_pattern_match,
        "is_expected_tabs": is_expected_tabs,
        "is_expected_bookmarks": is_expected_bookmarks,
    }
)
