"""The OSWorld importer on browser tasks: OSWorld-format dicts written here, their setup and checks.

The browser verifiers are judged on browser states written here too, and an imported task runs its
setup and checks through a stand-in client that answers ``ChromeTools`` calls as the guest would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_gym.tasks.base import TaskContext, TaskSetupError
from desktop_gym.tasks.json_task import JsonTask
from desktop_gym.tasks.loader import SCHEMA_PATH, TaskFileError, load_task_file, validate_definition
from desktop_gym.tasks.osworld_import import convert_osworld, import_osworld_file
from desktop_gym.tasks.osworld_report import INTERNET, NO_CHECK, absent_app, blocking_reason, coverage
from desktop_gym.verifiers import BROWSER_READS, get_verifier, same_url

LAUNCH = [
    {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]}},
    {"type": "launch", "parameters": {"command": ["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"]}},
]


def task(evaluator: dict[str, Any], config: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    """A minimal OSWorld-format browser task."""
    return {
        "id": "c0ffee00-1111-4222-8333-444455556666",
        "snapshot": "chrome",
        "instruction": "Do the thing in the browser.",
        "config": LAUNCH if config is None else config,
        "related_apps": ["chrome"],
        "evaluator": evaluator,
        **extra,
    }


def rule(func: str, getter: str, rules: dict[str, Any], **result: Any) -> dict[str, Any]:
    return {"func": func, "result": {"type": getter, **result}, "expected": {"type": "rule", "rules": rules}}


def convert(data: dict[str, Any]):
    return convert_osworld(data, Path("/nonexistent"), source="test.json")


def leaf(verifier: str, args: dict[str, Any], label: str) -> dict[str, Any]:
    return {"name": verifier, "chrome": BROWSER_READS[verifier], "args": args, "label": label}


# ------------------------------------------------------------------ what maps, and to what

MAPPED = {
    "do-not-track": (
        rule("exact_match", "enable_do_not_track", {"expected": "true"}),
        leaf("chrome_settings", {"expected": {"do_not_track": True}}, "do-not-track"),
    ),
    "search engine": (
        rule("exact_match", "default_search_engine", {"expected": "DuckDuckGo"}),
        leaf("chrome_settings", {"expected": {"default_search_engine": "DuckDuckGo"}}, "default search engine"),
    ),
    "startup page": (
        rule("exact_match", "new_startup_page", {"expected": "true"}),
        leaf("chrome_settings", {"expected": {"restore_on_startup": 5}}, "startup opens the New Tab page"),
    ),
    "font size range": (
        rule("check_font_size", "chrome_font_size", {"type": "range", "min": 20, "max": 30}),
        leaf("chrome_settings", {"between": {"font_size": [20, 30]}}, "font size"),
    ),
    "font size value": (
        rule("check_font_size", "chrome_font_size", {"type": "value", "value": 24}),
        leaf("chrome_settings", {"expected": {"font_size": 24}}, "font size"),
    ),
    "settings page": (
        rule("is_expected_active_tab", "active_url_from_accessTree", {"type": "url", "url": "chrome://settings/fonts"}),
        leaf("chrome_url", {"equals": "chrome://settings/fonts"}, "the active tab's URL"),
    ),
    "local site pattern": (
        rule("is_expected_url_pattern_match", "active_tab_info", {"expected": ["shop\\.gym\\.test/search", "q=tea"]}),
        leaf("chrome_url", {"patterns": ["shop\\.gym\\.test/search", "q=tea"]}, "the active tab's URL"),
    ),
    "tabs": (
        rule("is_expected_tabs", "open_tabs_info", {"type": "url", "urls": ["http://news.gym.test/", "about:blank"]}),
        leaf("chrome_tabs", {"urls": ["http://news.gym.test/", "about:blank"]}, "the open tabs"),
    ),
    "bookmarks bar": (
        rule(
            "is_expected_bookmarks",
            "bookmarks",
            {"type": "bookmark_bar_websites_urls", "urls": ["http://docs.gym.test/"]},
        ),
        leaf("chrome_bookmarks", {"folder": "Bookmarks bar", "urls": ["http://docs.gym.test/"]}, "the bookmarks bar"),
    ),
}


@pytest.mark.parametrize("name", list(MAPPED))
def test_a_browser_check_maps_to_the_browser_verifier_of_the_same_meaning(name: str) -> None:
    evaluator, expected = MAPPED[name]
    report = convert(task(evaluator))
    assert report.status == "ok", report.describe()
    assert report.task["verifier"] == expected
    assert report.task["apps"] == ["chrome"] and report.task["setup"] == [{"type": "launch", "app": "chrome"}]
    assert not report.task["needs_save"]
    notes = "\n".join(report.notes)
    assert "config[0] (launch): google-chrome's flags ['--remote-debugging-port=1337'] dropped" in notes
    assert "config[1] (launch): socat dropped" in notes


def test_imported_browser_task_is_written_valid_and_loads(tmp_path: Path) -> None:
    source = tmp_path / "dnt.json"
    source.write_text(json.dumps(task(MAPPED["do-not-track"][0])))
    report = import_osworld_file(source, tmp_path / "cache", tmp_path / "suite")
    assert report.written is not None, report.describe()
    loaded = load_task_file(report.written)
    assert loaded.apps == ("chrome",) and loaded.definition["verifier"]["chrome"] == "get_settings"


def test_opened_tabs_become_open_tab_steps_and_a_content_free_check_on_them_maps() -> None:
    page = "https://blog.example.org/post/"
    config = [*LAUNCH, {"type": "chrome_open_tabs", "parameters": {"urls_to_open": ["https://example.org/", page]}}]
    config.append({"type": "activate_window", "parameters": {"window_name": "Google Chrome"}})
    evaluator = rule("is_expected_bookmarks", "bookmarks", {"type": "bookmark_bar_websites_urls", "urls": [page]})
    report = convert(task(evaluator, config))
    assert report.status == "ok", report.describe()
    assert report.task["setup"] == [
        {"type": "launch", "app": "chrome"},
        {"type": "open_tab", "url": "https://example.org/"},
        {"type": "open_tab", "url": page},
    ]
    notes = "\n".join(report.notes)
    assert "config[3] (activate_window): Chrome's window activation dropped" in notes
    assert "blog.example.org, example.org show the desktop's offline page" in notes
    validate_definition(report.task, "test.json")


def test_tabs_without_a_launch_start_the_browser_first() -> None:
    config = [{"type": "chrome_open_tabs", "parameters": {"urls_to_open": ["http://news.gym.test/"]}}]
    evaluator = rule("is_expected_tabs", "open_tabs_info", {"type": "url", "urls": ["http://news.gym.test/"]})
    report = convert(task(evaluator, config))
    assert report.task["setup"] == [
        {"type": "launch", "app": "chrome"},
        {"type": "open_tab", "url": "http://news.gym.test/"},
    ]


def test_a_browser_restart_before_the_checks_is_not_run() -> None:
    evaluator = rule("exact_match", "enable_do_not_track", {"expected": "false"})
    evaluator["postconfig"] = [
        {"type": "execute", "parameters": {"command": "pkill chrome", "shell": "true"}},
        {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]}},
    ]
    report = convert(task(evaluator))
    assert report.status == "ok", report.describe()
    assert report.task["verifier"] == leaf("chrome_settings", {"expected": {"do_not_track": False}}, "do-not-track")
    assert sum("not run: the checks read the live browser" in note for note in report.notes) == 2


# ------------------------------------------------------------------ what does not map, and why

WEB_PAGE = rule(
    "is_expected_active_tab", "active_url_from_accessTree", {"type": "url", "url": "https://shop.example.com/cart"}
)


def test_a_check_on_a_page_the_agent_must_find_on_the_web_needs_the_internet() -> None:
    config = [*LAUNCH, {"type": "chrome_open_tabs", "parameters": {"urls_to_open": ["https://www.example.com/"]}}]
    data = task(WEB_PAGE, config)
    report = convert(data)
    assert report.status == "unsupported"
    assert report.unsupported[0] == "internet: needs the internet (www.example.com)"
    assert blocking_reason(report) == "internet: needs the internet (www.example.com)"
    assert absent_app(data) == INTERNET


def test_a_page_named_only_in_the_instruction_or_a_file_check_with_the_browser_needs_the_internet() -> None:
    settings = rule("exact_match", "enable_do_not_track", {"expected": "true"})
    named = task(settings, instruction="Read https://news.example.net/today and turn on do-not-track.")
    # A setting needs no page even when the instruction names one.
    assert convert(named).status == "ok"
    url_check = rule("is_expected_url_pattern_match", "active_url_from_accessTree", {"expected": ["today"]})
    named = task(url_check, instruction="Open today's page of https://news.example.net.")
    assert convert(named).unsupported[0] == "internet: needs the internet (news.example.net)"
    file_check = rule("exact_match", "vm_file", {"expected": "42"}, path="/home/user/answer.txt")
    report = convert(task(file_check))
    assert report.unsupported[0] == "internet: needs the internet (it uses the browser to fetch what its check reads)"
    # The same check without the browser is not judged by the internet rule.
    plain = convert(task(file_check, config=[], related_apps=["os"]))
    assert plain.status == "ok" and plain.task["verifier"]["name"] == "text_file"


def test_setup_steps_without_equivalent_name_their_reason() -> None:
    cases = {
        "chrome_close_tabs": "closing tabs by URL has no setup step here",
        "update_browse_history": "seeding the browser's history has no setup step here",
    }
    settings = rule("exact_match", "enable_do_not_track", {"expected": "true"})
    for kind, reason in cases.items():
        report = convert(task(settings, [*LAUNCH, {"type": kind, "parameters": {}}]))
        assert report.status == "unsupported"
        assert len(report.unsupported) == 1 and report.unsupported[0].startswith(f"config[2] ({kind}): {reason}")
    profile_edit = {"type": "execute", "parameters": {"command": "cd ~/.config/google-chrome/Default && ls"}}
    report = convert(task(settings, [profile_edit, *LAUNCH]))
    assert report.unsupported[0].startswith("config[0] (execute): the command edits Google Chrome's profile files")


@pytest.mark.parametrize(
    ("evaluator", "reason"),
    [
        (
            rule("is_expected_bookmarks", "bookmarks", {"type": "bookmark_bar_folders_names", "names": ["Work"]}),
            "is_expected_bookmarks bookmark_bar_folders_names: the browser's bookmark list holds bookmarks",
        ),
        (rule("exact_match", "profile_name", {"expected": "Sam"}), "result getter 'profile_name' has no equivalent"),
        (rule("exact_match", "new_startup_page", {"expected": "false"}), "exact_match on new_startup_page expecting"),
        (rule("check_font_size", "chrome_font_size", {"type": "median"}), "check_font_size rule type 'median'"),
        (rule("is_expected_tabs", "open_tabs_info", {"type": "titles"}), "is_expected_tabs rule type 'titles'"),
        (rule("is_expected_active_tab", "open_tabs_info", {"type": "url"}), "result getter 'open_tabs_info' has no"),
    ],
)
def test_a_browser_check_without_equivalent_is_reported(evaluator: dict[str, Any], reason: str) -> None:
    report = convert(task(evaluator))
    assert report.status == "unsupported" and "verifier" not in report.task
    assert len(report.unsupported) == 1 and reason in report.unsupported[0], report.unsupported


def test_the_report_counts_browser_tasks_mapped_out_of_scope_and_why(tmp_path: Path) -> None:
    folder = tmp_path / "examples" / "chrome"
    folder.mkdir(parents=True)
    samples = {
        "mapped": task(MAPPED["do-not-track"][0]),
        "infeasible": task({"func": "infeasible"}, config=[]),
        "web": task(WEB_PAGE),
        "no check": task({"func": "", "result": {}, "expected": {}}, config=[]),
        "folders": task(rule("is_expected_bookmarks", "bookmarks", {"type": "bookmark_bar_folders_names"})),
    }
    for index, (name, data) in enumerate(samples.items()):
        (folder / f"{index}-{name.replace(' ', '_')}.json").write_text(json.dumps(data))
    result = coverage(tmp_path / "examples")
    assert result.total["chrome"] == 5 and result.mapped["chrome"] == 2 and result.out_of_scope["chrome"] == 2
    assert result.absent == {INTERNET: 1, NO_CHECK: 1}
    (reason,) = result.reasons
    assert reason.startswith("evaluator.func (is_expected_bookmarks): is_expected_bookmarks bookmark_bar_folders")
    assert "chrome" in result.describe() and INTERNET in result.describe()


# ------------------------------------------------------------------ the browser verifiers


def test_urls_compare_as_the_address_bar_shows_them() -> None:
    assert same_url("https://www.Example.org/", "http://example.org")
    assert same_url("chrome://settings/fonts", "chrome://settings/fonts")
    assert not same_url("https://example.org/a", "https://example.org/b")
    assert not same_url("https://example.org/?q=1", "https://example.org/?q=2")


def test_browser_verifiers_are_strict() -> None:
    settings = get_verifier("chrome_settings")
    state = {"do_not_track": True, "font_size": 20, "default_search_engine": "Bing"}
    assert settings(state, expected={"do_not_track": True, "default_search_engine": "Bing"}).success
    assert not settings({**state, "do_not_track": 1}, expected={"do_not_track": True}).success
    assert settings(state, between={"font_size": [16, 99]}).success
    assert not settings({**state, "font_size": 16}, between={"font_size": [16, 99]}).success  # strictly between
    assert not settings({**state, "font_size": True}, between={"font_size": [0, 99]}).success
    assert not settings(state).success and not settings(None, expected={"do_not_track": True}).success
    url = get_verifier("chrome_url")
    assert url("https://shop.gym.test/search?q=tea", patterns=["q=tea", "search"]).success
    assert not url("https://shop.gym.test/search?q=tea", patterns=["q=tea", "page=2"]).success
    assert not url("https://shop.gym.test/", equals="https://shop.gym.test/cart").success
    tabs = get_verifier("chrome_tabs")
    open_tabs = [{"url": "http://news.gym.test/"}, {"url": "about:blank"}]
    assert tabs(open_tabs, urls=["about:blank", "https://news.gym.test"]).success
    assert not tabs([*open_tabs, {"url": "about:blank"}], urls=["about:blank", "http://news.gym.test/"]).success
    marks = get_verifier("chrome_bookmarks")
    bar = [
        {"folder": "Bookmarks bar", "url": "http://a.gym.test/"},
        {"folder": "Bookmarks bar/Work", "url": "http://b.gym.test/"},
    ]
    assert marks(bar, folder="Bookmarks bar", urls=["http://a.gym.test/"]).success
    assert not marks(bar, folder="Bookmarks bar", urls=["http://a.gym.test/", "http://b.gym.test/"]).success


def test_the_schema_lists_the_calls_the_browser_verifiers_read() -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    assert sorted(schema["$defs"]["verifier_leaf"]["properties"]["chrome"]["enum"]) == sorted(BROWSER_READS.values())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"verifier": {"name": "chrome_url", "chrome": "get_settings", "args": {"equals": "x"}}},
            "give 'chrome': 'get_url'",
        ),
        ({"verifier": {"name": "command_output", "chrome": "get_url"}}, "only the browser verifiers"),
        ({"verifier": {"name": "chrome_url", "command": "true", "args": {"equals": "x"}}}, "give 'chrome': 'get_url'"),
        ({"setup": [{"type": "open_tab", "url": "http://news.gym.test/"}]}, "open_tab needs the browser"),
    ],
)
def test_the_loader_names_a_browser_leaf_or_tab_at_fault(change: dict[str, Any], message: str) -> None:
    definition = {
        "id": "t.browser",
        "instruction": "x",
        "apps": ["chrome"],
        "setup": [{"type": "launch", "app": "chrome"}],
        "verifier": {"name": "chrome_url", "chrome": "get_url", "args": {"equals": "about:blank"}},
    }
    with pytest.raises(TaskFileError, match=message):
        validate_definition({**definition, **change}, "t.json")


class BrowserStandIn:
    """Answers the guest calls an imported browser task makes: launch, ``ChromeTools`` calls."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state, self.calls, self.launched = state, [], []

    def launch_app(self, app: str, file: str | None = None, timeout: float = 30.0) -> None:
        self.launched.append(app)

    def call_api(self, app: str, method: str, args_json: str = "{}", timeout: float | None = None) -> str:
        from desktop_gym.errors import GuestError

        self.calls.append((app, method, json.loads(args_json)))
        if method == "open_tab":
            self.state["list_tabs"].append({"url": json.loads(args_json)["url"]})
            return json.dumps(len(self.state["list_tabs"]) - 1)
        if method not in self.state:
            raise GuestError(f"ChromeTools.{method}: the browser is not running")
        return json.dumps(self.state[method])


def test_an_imported_task_opens_its_tabs_and_judges_the_live_browser_state(tmp_path: Path) -> None:
    page = "http://docs.gym.test/help"
    config = [*LAUNCH, {"type": "chrome_open_tabs", "parameters": {"urls_to_open": [page]}}]
    evaluator = rule("is_expected_bookmarks", "bookmarks", {"type": "bookmark_bar_websites_urls", "urls": [page]})
    definition = convert(task(evaluator, config)).task
    client = BrowserStandIn({"list_tabs": [{"url": "about:blank"}], "list_bookmarks": []})
    ctx = TaskContext(client=client, rng=np.random.default_rng(0), params={})  # type: ignore[arg-type]
    json_task = JsonTask(definition)
    json_task.setup(ctx)
    assert client.launched == ["chrome"] and ("ChromeTools", "open_tab", {"url": page}) in client.calls
    untouched = json_task.verify(ctx)
    assert not untouched.success and "missing ['http://docs.gym.test/help']" in untouched.reason
    client.state["list_bookmarks"] = [{"folder": "Bookmarks bar", "title": "Help", "url": page}]
    assert json_task.verify(ctx).success
    client.state.pop("list_bookmarks")  # the browser went away: the check fails and says why
    gone = json_task.verify(ctx)
    assert not gone.success and "the browser's state (list_bookmarks) could not be read" in gone.reason


def test_a_tab_that_cannot_open_fails_the_setup_naming_the_step() -> None:
    class NoBrowser(BrowserStandIn):
        def call_api(self, app: str, method: str, args_json: str = "{}", timeout: float | None = None) -> str:
            from desktop_gym.errors import GuestError

            raise GuestError("ChromeTools.open_tab: the browser is not running")

    definition = {
        "id": "t.tab",
        "instruction": "x",
        "apps": ["chrome"],
        "setup": [{"type": "launch", "app": "chrome"}, {"type": "open_tab", "url": "http://news.gym.test/"}],
        "verifier": {"name": "chrome_url", "chrome": "get_url", "args": {"equals": "http://news.gym.test/"}},
    }
    ctx = TaskContext(client=NoBrowser({}), rng=np.random.default_rng(0), params={})  # type: ignore[arg-type]
    with pytest.raises(TaskSetupError, match=r"setup\[1\] \(open_tab http://news.gym.test/\): ChromeTools.open_tab"):
        JsonTask(validate_definition(definition, "t.json")).setup(ctx)
