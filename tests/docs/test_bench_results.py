"""Benchmark result files: each is well formed, shown by a docs page, and tracked by git, while
the benchmarks' ad-hoc outputs stay ignored. The renderer is the docs build hook."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pathspec
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_bench_results_hook", DOCS / "hooks" / "bench_results.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = load_hook()


def shown_names() -> set[str]:
    names: set[str] = set()
    for page in DOCS.glob("*.md"):
        names |= set(hook.MARKER.findall(page.read_text(encoding="utf-8")))
    return names


def test_there_are_result_files_and_each_is_well_formed() -> None:
    names = hook.result_names()
    assert len(names) >= 10
    for name in sorted(names):
        result = hook.load_result(name)
        assert result["tables"], name
        assert result["recorded_in"], name


def test_every_result_file_is_shown_and_every_marker_has_a_file() -> None:
    assert shown_names() == hook.result_names()


def test_a_rendered_result_has_its_rows_and_provenance() -> None:
    result = hook.load_result("targets-2026-12-01")
    text = hook.render_result("targets-2026-12-01")
    assert result["command"] in text and result["recorded_in"] in text
    table_lines = [line for line in text.splitlines() if line.startswith("|")]
    assert len(table_lines) == sum(len(table["rows"]) + 2 for table in result["tables"])
    assert "| reset Calc starter, screenshot-only obs, p50 | 1627 ms |" in text


def write(folder: Path, name: str, content: object) -> None:
    (folder / f"{name}.json").write_text(content if isinstance(content, str) else json.dumps(content))


GOOD = {
    "title": "t", "benchmark": "bench/x.py", "command": "x", "measured": "now", "machine": "m", "load": "l",
    "recorded_in": "abc1234", "tables": [{"columns": ["a", "b"], "rows": [["1", "2|3"]]}],
}  # fmt: skip


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not JSON"),
        ({k: v for k, v in GOOD.items() if k != "recorded_in"}, "missing field(s) recorded_in"),
        ({**GOOD, "tables": [{"columns": ["a", "b"], "rows": [["1"]]}]}, "rows[0] has 1 cells, 2 columns"),
        ({**GOOD, "tables": [{"rows": []}]}, "needs 'columns' and 'rows'"),
    ],
)
def test_a_malformed_result_file_is_named(tmp_path: Path, content: object, message: str) -> None:
    write(tmp_path, "bad", content)
    with pytest.raises(hook.ResultFileError, match="bad.json") as error:
        hook.load_result("bad", tmp_path)
    assert message in str(error.value)


def test_a_marker_without_a_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(hook.ResultFileError, match="no such benchmark result file"):
        hook.render_markers("<!-- bench-result: nowhere -->\n", tmp_path)


def test_markers_are_replaced_and_pipes_escaped(tmp_path: Path) -> None:
    write(tmp_path, "good", GOOD)
    page, names = hook.render_markers("before\n<!-- bench-result: good -->\nafter\n", tmp_path)
    assert names == {"good"}
    assert "<!-- bench-result" not in page
    assert "| 1 | 2\\|3 |" in page


def test_the_build_fails_on_a_result_no_page_shows() -> None:
    from mkdocs.exceptions import PluginError

    hook.on_pre_build(config=None)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="benchmarks.md"))
    hook.on_page_markdown("<!-- bench-result: targets-2026-12-01 -->\n", page=page, config=None, files=None)
    with pytest.raises(PluginError, match="no page shows: .*api-2026-12-01"):
        hook.on_env(env=None, config=None, files=None)
    for name in hook.result_names():
        hook.on_page_markdown(f"<!-- bench-result: {name} -->\n", page=page, config=None, files=None)
    assert hook.on_env(env="env", config=None, files=None) == "env"


def ignored(path: str) -> bool:
    """Whether the root .gitignore ignores a path (git's own rules, through pathspec: mkdocs needs it)."""
    spec = pathspec.GitIgnoreSpec.from_lines((ROOT / ".gitignore").read_text(encoding="utf-8").splitlines())
    return spec.match_file(path)


def test_result_files_are_tracked_and_ad_hoc_outputs_ignored() -> None:
    for name in hook.result_names():
        assert not ignored(f"bench/results/log/{name}.json"), name
    assert not ignored("bench/results/learning.json")
    for ad_hoc in (
        "bench/results/osworld-venv/bin/python",
        "bench/results/apigen/recording/report.json",
        "bench/results/train-demo.json",
        "bench/results/tmp/run.json",
        "bench/results/log/partial.tmp",
        "site/index.html",
    ):
        assert ignored(ad_hoc), ad_hoc
