"""The OSWorld importer on real OSWorld task files (a sample copied into tests/tasks/data/osworld_real).

The sample is OSWorld's own JSON, unchanged; the files the tasks download (inputs and gold
documents) are not public here, so tests write stand-ins under the names the tasks use.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pptx
import pytest

from desktop_gym.cli import main
from desktop_gym.reward_attacks import StandInGuest
from desktop_gym.tasks.base import TaskContext
from desktop_gym.tasks.json_task import JsonTask
from desktop_gym.tasks.osworld_import import convert_osworld, import_osworld_file
from desktop_gym.tasks.osworld_report import INTERNET, NO_CHECK, absent_app, blocking_reason, coverage

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
    assert reasons["libreoffice_writer/4bcb1253"] is None  # compare_pdfs
    assert reasons["multi_apps/0c825995"].startswith("internet: needs the internet")  # and Google Drive
    assert reasons["multi_apps/788b3701"] == "internet: needs the internet (github.com)"  # the next chapter is online
    assert "drives the GUI" in reasons["libreoffice_writer/66399b0d"]


def test_coverage_report_counts_domains_and_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    result = coverage(REAL)
    assert sum(result.total.values()) == len(list(REAL.rglob("*.json")))
    assert result.mapped["libreoffice_impress"] == result.total["libreoffice_impress"]
    out_of_scope = sum(result.out_of_scope.values())
    assert sum(result.reasons.values()) == sum(result.total.values()) - sum(result.mapped.values()) - out_of_scope
    assert result.absent[INTERNET] == 1 and result.absent[NO_CHECK] == 1
    assert result.absent["Google Drive (an account and the internet)"] == 1
    assert result.absent["the Nautilus file manager"] == 2
    assert result.absent["the Nautilus file manager (the task opens a folder)"] == 1
    assert main(["tasks", "import-osworld", "--report", str(REAL)]) == 0
    out = capsys.readouterr().out
    assert "libreoffice_impress" in out and "not mapped, by first reason" in out
    assert "share = map / (tasks - out)" in out and "out of scope (left out of the share)" in out


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


# A real task file of each newly supported metric -> the verifier of ours it maps to.
NEW_METRICS = {
    "libreoffice_writer/0e763496": "docx_run_fonts",  # compare_font_names
    "libreoffice_writer/41c621f7": "docx_formatted_text",  # compare_highlighted_text
    "libreoffice_writer/ecc2413d": "docx_page_breaks",  # contains_page_break
    "libreoffice_writer/663876c7": "docx_equations",  # compare_insert_equation
    "libreoffice_writer/4bcb1253": "pdf_text",  # compare_pdfs
    "libreoffice_impress/ce88f674": "pptx_orientation",  # check_slide_orientation_Portrait
    "libreoffice_impress/f0a334af": "pptx_media",  # contains_mp4_video
    "libreoffice_impress/3b27600c": "pptx_background",  # evaluate_presentation_fill_to_rgb_distance
    "libreoffice_impress/ac9bb6cb": "pptx_slide_number_color",  # check_page_number_colors
    "libreoffice_impress/5d901039": "pptx_picture_fills_slide",  # check_image_stretch_and_center
    "libreoffice_impress/455d3c66": "image_similar",  # compare_images
    "libreoffice_calc/0bf05a7d": "csv_rows",  # compare_table over [xlsx, exported csv]
    "libreoffice_calc/357ef137": "xlsx_cells",  # compare_table check_cell approx, no gold
    "os/37887e8c": "command_output",  # postconfig download + execute, then the script's output
    "os/23393935": "directory_tree",  # check_moved_jpgs
    "multi_apps/8df7e444": "archive_members",  # compare_zip_files
    "multi_apps/f7dfbef3": "archive_members",  # compare_archive
    "multi_apps/337d318b": "pdf_text",  # compare_pdfs
}


def _leaf_names(node: dict) -> list[str]:
    if "name" in node:
        return [node["name"]]
    children = node.get("all") or node.get("any") or [node.get("not", {})]
    return [name for child in children for name in _leaf_names(child)]


def _stand_in_cache(data: dict, folder: Path) -> Path:
    """Every file a task downloads or compares with, as a small real file of its type, by name."""
    import io
    import tarfile
    import zipfile

    from PIL import Image

    names = re.findall(r'"(?:dest|path)": "([^"]+)"', json.dumps(data))
    names += [
        n
        for value in re.findall(r'"(?:dest|path)": \[([^\]]*)\]', json.dumps(data))
        for n in re.findall(r'"([^"]+)"', value)
    ]
    for name in {n.rsplit("/", 1)[-1] for n in names}:
        target, extension = folder / name, name.rsplit(".", 1)[-1].lower()
        if extension == "docx":
            import docx

            document = docx.Document()
            paragraph = document.add_paragraph("plain ")
            run = paragraph.add_run("marked")
            run.font.highlight_color = 7  # yellow
            paragraph.add_run("")._r.append(_omml())
            document.save(target)
        elif extension == "pptx":
            target.write_bytes(_deck(["Title", "body"]))
        elif extension in ("png", "jpg"):
            Image.new("RGB", (8, 8), (200, 10, 10)).save(target)
        elif extension == "pdf":
            target.write_bytes(_pdf("gold page"))
        elif extension == "zip":
            with zipfile.ZipFile(target, "w") as archive:
                archive.writestr("a.txt", "alpha")
        elif extension == "gz":
            with tarfile.open(target, "w:gz") as archive:
                info = tarfile.TarInfo("out/a.pdf")
                info.size = 3
                archive.addfile(info, io.BytesIO(b"pdf"))
        elif extension == "xlsx":
            import openpyxl

            workbook = openpyxl.Workbook()
            workbook.active.append(["id"])
            workbook.save(target)
        else:
            target.write_text("id\n0000001\n" if extension == "csv" else "echo Success\n")
    return folder


def _omml():  # noqa: ANN202 - an lxml element
    from docx.oxml import parse_xml

    return parse_xml(
        '<m:oMath xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"><m:r><m:t>x</m:t></m:r></m:oMath>'
    )


def _pdf(text: str) -> bytes:
    """A one-page PDF showing ``text`` (made by pypdf's writer, no fonts needed for extraction)."""
    import io

    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(200, 200)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    stream = DecodedStreamObject()
    stream.set_data(f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET".encode())
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(NEW_METRICS))
def test_newly_supported_metrics_map_to_our_verifiers(name: str, tmp_path: Path) -> None:
    path = next(REAL.glob(f"{name}*.json"))
    data = json.loads(path.read_text())
    without = convert_osworld(data, tmp_path / "nothing", source=path.name)
    assert blocking_reason(without) is None, without.describe()
    assert absent_app(data) is None
    report = convert_osworld(data, _stand_in_cache(data, tmp_path), source=path.name)
    assert report.status == "ok", report.describe()
    assert NEW_METRICS[name] in _leaf_names(report.task["verifier"])


def test_postconfig_runs_before_the_checks_and_embeds_the_downloaded_script(tmp_path: Path) -> None:
    data = json.loads(next(REAL.glob("os/37887e8c*.json")).read_text())
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "eval.sh").write_text("echo 'Success: The task was completed correctly.'\n")
    (cache / "setup.sh").write_text("mkdir -p /tmp/test_files\n")
    report = convert_osworld(data, cache, source="37887e8c")
    assert report.status == "ok", report.describe()
    first, chmod, check = report.task["verifier"]["all"]
    assert first["name"] == "command_output" and 'base64 -d > "$HOME"/eval.sh' in first["command"]
    assert chmod["command"] == "chmod +x eval.sh"
    assert check["args"]["contains"] == "Success: The task was completed correctly."
    assert "eval.sh" not in json.dumps(report.task["setup"])  # the agent never sees the checker


def test_sheet_print_compares_the_exported_csv_and_runs_the_export_first(tmp_path: Path) -> None:
    data = json.loads(next(REAL.glob("libreoffice_calc/0bf05a7d*.json")).read_text())
    report = convert_osworld(data, _stand_in_cache(data, tmp_path), source="0bf05a7d")
    export, check = report.task["verifier"]["all"]
    assert "--convert-to" in export["command"] and "$HOME/Customers_New_7digit_Id.xlsx" in export["command"]
    assert check["file"] == "~/Customers_New_7digit_Id-Sheet1.csv"
    assert check["args"]["expected_rows"] == [["id"], ["0000001"]]
    assert any("not run: the agent must save itself" in note for note in report.notes)


@pytest.mark.slow
def test_a_real_task_with_a_postconfig_checker_script_runs_on_the_desktop(tmp_path: Path, desktop) -> None:
    """os/37887e8c: setup downloads and runs setup.sh; the evaluator's postconfig downloads eval.sh,
    makes it executable, and the check reads its output. The checker must not exist during the
    episode and must run after it."""
    from desktop_gym import DesktopEnv
    from desktop_gym.tasks import load_suite_dir

    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "setup.sh").write_text("mkdir -p /tmp/test_files\n")
    (cache / "eval.sh").write_text(
        '[ -f "$HOME/compressed.flag" ] && echo "Success: The task was completed correctly." || echo "Failure"\n'
    )
    out = tmp_path / "suite"
    source = str(next(REAL.glob("os/37887e8c*.json")))
    assert main(["tasks", "import-osworld", source, "--cache", str(cache), "--out", str(out), "--suite", "owreal"]) == 0
    (task,) = load_suite_dir(out)
    env = DesktopEnv(backend=desktop)
    try:
        env.reset(seed=0, options={"task_id": task.id})
        *_, info = env.step("done()")
        assert not info["success"] and "Success: The task" in info["verifier"]["reason"], info["verifier"]
        env.reset(seed=0, options={"task_id": task.id})
        env.step("type(text='test -e ~/eval.sh || touch ~/compressed.flag\\n')")  # no checker during the episode
        env.step("wait(seconds=0.3)")
        *_, info = env.step("done()")
        assert info["success"], info["verifier"]
    finally:
        env.close()
