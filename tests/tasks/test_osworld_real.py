"""The OSWorld importer on real OSWorld task files (a sample copied into tests/tasks/data/osworld_real).

The sample is OSWorld's own JSON, unchanged; the files the tasks download (inputs and gold
documents) are not public here, so tests write stand-ins under the names the tasks use.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pptx
import pytest

from desktop_gym.cli import main
from desktop_gym.reward_attacks import StandInGuest
from desktop_gym.tasks.base import TaskContext
from desktop_gym.tasks.json_task import JsonTask
from desktop_gym.tasks.osworld_import import convert_osworld, import_osworld_file
from desktop_gym.tasks.osworld_report import blocking_reason, coverage

REAL = Path(__file__).parent / "data" / "osworld_real"
OUTLINE_TASK = REAL / "libreoffice_impress" / "a669ef01-ded5-4099-9ea9-25e99b569840.json"


def _deck(*slides: list[str]) -> bytes:
    import io

    presentation = pptx.Presentation()
    for texts in slides:
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = texts[0]
        slide.placeholders[1].text = texts[1]
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def test_every_sample_file_maps_or_names_what_blocks_it() -> None:
    reasons = {}
    for path in sorted(REAL.rglob("*.json")):
        report = convert_osworld(json.loads(path.read_text()), Path("/nonexistent"), source=path.name)
        reasons[f"{path.parent.name}/{path.stem[:8]}"] = blocking_reason(report)
    assert reasons["libreoffice_impress/a669ef01"] is None  # compare_pptx_files, focus click dropped
    assert reasons["libreoffice_calc/01b269ae"] is None  # compare_table
    assert reasons["libreoffice_writer/0810415c"] is None  # compare_line_spacing
    assert reasons["libreoffice_calc/2bd59342"] is None  # infeasible
    assert reasons["libreoffice_writer/4bcb1253"] == "evaluator metric compare_pdfs"
    assert "googledrive" in reasons["multi_apps/0c825995"]
    assert "drives the GUI" in reasons["libreoffice_writer/66399b0d"]


def test_coverage_report_counts_domains_and_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    result = coverage(REAL)
    assert sum(result.total.values()) == len(list(REAL.rglob("*.json")))
    assert result.mapped["libreoffice_impress"] == result.total["libreoffice_impress"]
    assert sum(result.reasons.values()) == sum(result.total.values()) - sum(result.mapped.values())
    assert main(["tasks", "import-osworld", "--report", str(REAL)]) == 0
    out = capsys.readouterr().out
    assert "libreoffice_impress" in out and "not mapped, by first reason" in out


def test_a_real_impress_task_imports_and_its_verifier_compares_slide_texts(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    draft = _deck(["Writing outlines", "draft"], ["Second", "more"])
    gold = _deck(["Writing outlines", "Intro"], ["Second", "more"])
    (cache / "Writing-Outlines.pptx").write_bytes(draft)
    (cache / "Writing-Outlines_Gold.pptx").write_bytes(gold)
    report = import_osworld_file(OUTLINE_TASK, cache, out_dir=tmp_path / "suite")
    assert report.status == "ok" and report.written is not None, report.describe()
    assert any("click to focus" in note for note in report.notes)
    definition = json.loads(report.written.read_text())
    assert definition["needs_save"] and definition["apps"] == ["impress"]
    assert definition["verifier"]["name"] == "pptx_slide_texts"

    task = JsonTask(definition, assets_dir=tmp_path / "suite" / "assets")
    guest = StandInGuest()
    ctx = TaskContext(client=guest, rng=np.random.default_rng(0), params={})  # type: ignore[arg-type]
    task.setup(ctx)
    untouched = task.verify(ctx)
    assert not untouched.success and "slide 1 differs" in untouched.reason
    guest.put_file("~/Desktop/Writing-Outlines.pptx", gold)
    assert task.verify(ctx).success
