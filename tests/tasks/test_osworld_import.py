"""The OSWorld importer on OSWorld-format files written for these tests (tests/tasks/data/osworld)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_gym import DesktopEnv
from desktop_gym.cli import main
from desktop_gym.tasks import load_suite_dir
from desktop_gym.tasks.artifacts import docx_bytes, xlsx_bytes
from desktop_gym.tasks.osworld_import import convert_osworld, import_osworld_file
from desktop_gym.verifiers import get_verifier

DATA = Path(__file__).parent / "data" / "osworld"
PRICES = [["Item", "Qty", "Price", "Total"], ["Pen", 3, 2.5, None], ["Pad", 2, 4, None]]
GOLD = [["Item", "Qty", "Price", "Total"], ["Pen", 3, 2.5, 7.5], ["Pad", 2, 4, 8]]


@pytest.fixture
def cache(tmp_path) -> Path:
    """The downloaded files, by name, as a user's OSWorld cache folder would hold them."""
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "prices.xlsx").write_bytes(xlsx_bytes(PRICES, sheet_title="Prices"))
    (folder / "prices_gold.xlsx").write_bytes(xlsx_bytes(GOLD, sheet_title="Prices"))
    (folder / "letter.docx").write_bytes(docx_bytes(["Dear Sam,", "draft"]))
    (folder / "letter_gold.docx").write_bytes(docx_bytes(["Dear Sam,", "", "We accept."]))
    (folder / "report_gold.csv").write_text("a,b\n1,2\n")
    return folder


def convert(name: str, cache: Path):
    return convert_osworld(json.loads((DATA / name).read_text()), cache, source=name)


def test_calc_compare_table_maps_to_sheet_checks_with_embedded_gold(cache):
    report = convert("calc_compare_table.json", cache)
    assert report.status == "ok", report.describe()
    task = report.task
    assert task["id"] == "osworld.libreoffice_calc_1a2b3c4d" and task["apps"] == ["calc"] and task["needs_save"]
    assert task["setup"] == [
        {"type": "put_file", "path": "~/prices.xlsx", "asset": "1a2b3c4d/prices.xlsx"},
        {"type": "open", "app": "calc", "path": "~/prices.xlsx"},
        {"type": "wait_window", "title": "^prices\\.xlsx\\ \\-\\ LibreOffice\\ Calc$", "activate": True},
    ]
    names, table = task["verifier"]["all"]
    assert names["args"] == {"expected": ["Prices"]}
    assert table["name"] == "sheet_table" and table["file"] == "~/prices.xlsx"
    assert table["args"]["expected_rows"] == GOLD
    notes = "\n".join(report.notes)
    assert "config[2] (sleep): fixed sleep of 2s dropped" in notes and "postconfig[1] (execute) not run" in notes
    # The mapped verifier accepts the gold workbook and rejects the untouched input.
    for data, ok in ((GOLD, True), (PRICES, False)):
        result = get_verifier("sheet_table")(xlsx_bytes(data, sheet_title="Prices"), **table["args"])
        assert result.success is ok, result.reason


def test_multi_function_and_literal_braces(cache):
    report = convert("writer_docx_and_text.json", cache)
    assert report.status == "ok", report.describe()
    task = report.task
    assert task["instruction"].endswith("write the word {{approved}} into ~/status.txt.")
    assert task["setup"][1] == {"type": "open", "app": "writer", "path": "~/letter.docx"}
    docx_check, text_check = task["verifier"]["all"]
    assert docx_check["args"] == {"text": "Dear Sam,\nWe accept.", "match": "equals", "ignore_case": True}
    assert text_check["file"] == "~/status.txt"
    assert text_check["args"] == {"expected": "{{approved}}", "strip": False}


def test_unmapped_check_is_reported_and_not_written_without_allow_partial(cache, tmp_path):
    out = tmp_path / "out"
    report = import_osworld_file(DATA / "partial_or.json", cache, out)
    assert report.status == "partial" and report.written is None
    assert len(report.unsupported) == 1
    assert report.unsupported[0].startswith(
        "evaluator.func[1] (check_triangle_position): metric 'check_triangle_position' has no equivalent (supported: "
    )
    assert "check_include_exclude, " in report.unsupported[0] and "compare_pdfs, " in report.unsupported[0]
    assert "UNSUPPORTED: evaluator.func[1] (check_triangle_position)" in report.describe()
    report = import_osworld_file(DATA / "partial_or.json", cache, out, allow_partial=True)
    written = json.loads(report.written.read_text())
    assert written["verifier"]["args"]["expected_rows"] == [["a", "b"], ["1", "2"]]
    assert written["source"]["unsupported"] == report.unsupported


def test_unsupported_setup_and_metric_are_all_listed(cache):
    report = convert("unsupported_setup.json", cache)
    assert report.status == "unsupported"
    text = "\n".join(report.unsupported)
    assert report.unsupported[0] == "internet: needs the internet (drive.google.com)"
    assert "config[0] (googledrive): config step type 'googledrive' has no equivalent" in text
    assert "config[2] (execute): the command drives the GUI" in text
    assert "config[1] (launch)" in report.mapped and "evaluator.func (is_expected_active_tab)" in report.mapped


def test_missing_download_names_the_files_looked_for(cache):
    (cache / "prices.xlsx").unlink()
    report = convert("calc_compare_table.json", cache)
    assert report.status == "unsupported"
    assert any("config[0] (download): file not in the cache" in u and "prices.xlsx" in u for u in report.unsupported)


def test_infeasible_task(cache):
    report = convert("infeasible.json", cache)
    assert report.status == "ok" and report.task["infeasible"] and "verifier" not in report.task
    assert report.task["setup"] == [{"type": "launch", "app": "terminal"}]


@pytest.mark.slow
def test_imported_terminal_task_runs_and_its_verifier_decides(cache, tmp_path, desktop):
    out = tmp_path / "suite"
    source = str(DATA / "os_include_exclude.json")
    assert main(["tasks", "import-osworld", source, "--cache", str(cache), "--out", str(out), "--suite", "owtest"]) == 0
    (task,) = load_suite_dir(out)
    assert task.id == "owtest.os_5e6f7a8b"
    assert task.definition["setup"][0] == {"type": "run", "command": "mkdir -p $HOME/projects/old", "timeout": 60}
    env = DesktopEnv(backend=desktop)
    try:
        env.reset(seed=0, options={"task_id": task.id})
        *_, info = env.step("done()")
        assert not info["success"] and "stdout does not contain 'demo'" in info["verifier"]["reason"]
        env.reset(seed=0, options={"task_id": task.id})
        env.step("type(text='mkdir ~/projects/demo && rmdir ~/projects/old\\n')")
        env.step("wait(seconds=0.2)")
        *_, info = env.step("done()")
        assert info["success"], info["verifier"]
    finally:
        env.close()


def test_compare_table_rules_map_one_by_one_and_unknown_rules_are_reported(cache):
    report = convert("calc_table_rules.json", cache)
    assert report.task["setup"][1] == {"type": "open", "app": "calc", "path": "~/prices.xlsx"}
    assert report.status == "unsupported"  # the only metric has a rule without equivalent: nothing is kept
    assert report.unsupported == [
        "evaluator.func (compare_table): compare_table rule 2 of type 'style' has no equivalent"
    ]
    data = json.loads((DATA / "calc_table_rules.json").read_text())
    data["evaluator"]["options"]["rules"].pop()
    report = convert_osworld(data, cache)
    assert report.status == "ok", report.describe()
    table, cell = report.task["verifier"]["all"]
    assert table["args"] == {"expected_rows": GOLD, "sheet": "Prices"}
    assert cell["args"] == {"expected": {"D3": 8}, "sheet": "Prices"}
