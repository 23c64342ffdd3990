"""Latency of verifiers on realistic documents: p50/p95 per verifier, cold (parse included) and warm.

Run: ``.venv/bin/python bench/bench_verifiers.py [--repeats 30]``. Cold runs clear the parse caches
before every call, i.e. the cost of one check on a freshly saved file; warm runs reuse the parsed
document, i.e. the extra cost of each further check composed over the same file.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from collections.abc import Callable

from desktop_gym import verifiers as v
from desktop_gym.verifiers import _load, _ooxml
from desktop_gym.verifiers.result import VerifierResult


def make_xlsx(rows: int = 500) -> bytes:
    """A 500-row, 6-column sales sheet with formulas, a filter, conditional formatting and a chart."""
    import openpyxl
    from openpyxl.chart import BarChart, Reference
    from openpyxl.formatting.rule import CellIsRule
    from openpyxl.styles import Font, PatternFill

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Sales"
    sheet.append(["Item", "Region", "Q1", "Q2", "Q3", "Total"])
    for row in range(2, rows + 2):
        sheet.append([f"Item {row}", f"R{row % 7}", row, row * 2, row * 3, f"=C{row}+D{row}+E{row}"])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = f"A1:F{rows + 1}"
    sheet.conditional_formatting.add(
        f"F2:F{rows + 1}", CellIsRule(operator="greaterThan", formula=["100"], fill=PatternFill(bgColor="FFC7CE"))
    )
    chart = BarChart()
    chart.title = "Totals"
    chart.add_data(Reference(sheet, min_col=6, min_row=1, max_row=21), titles_from_data=True)
    sheet.add_chart(chart, "H2")
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def make_docx(paragraphs: int = 60) -> bytes:
    """A report: a heading, 60 paragraphs with a bold run each, a 10x4 table."""
    import docx

    document = docx.Document()
    document.add_heading("Annual report", level=1)
    for index in range(paragraphs):
        paragraph = document.add_paragraph(f"Paragraph {index} discusses the results of team {index % 9}. ")
        paragraph.add_run(f"Key figure {index}.").bold = True
    table = document.add_table(rows=10, cols=4)
    for row in range(10):
        for col in range(4):
            table.cell(row, col).text = f"{row}-{col}"
    document.sections[0].header.paragraphs[0].text = "ACME"
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def make_pptx(slides: int = 12) -> bytes:
    """A 12-slide deck with titles, bullet text and notes."""
    import pptx

    deck = pptx.Presentation()
    for index in range(slides):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Slide {index + 1}"
        slide.placeholders[1].text = "\n".join(f"Point {index}.{n}" for n in range(5))
        slide.notes_slide.notes_text_frame.text = f"Say point {index}"
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def clear_caches() -> None:
    for cached in (_load._xlsx, _load._docx, _load._pptx, _load._odf, _ooxml._package):
        cached.cache_clear()


def measure(check: Callable[[], VerifierResult], repeats: int, cold: bool) -> tuple[float, float]:
    timings = []
    for _ in range(repeats):
        if cold:
            clear_caches()
        start = time.perf_counter()
        result = check()
        timings.append((time.perf_counter() - start) * 1000)
        assert result.success, result.reason
    timings.sort()
    return statistics.median(timings), timings[min(len(timings) - 1, int(len(timings) * 0.95))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    xlsx, docx_data, pptx_data = make_xlsx(), make_docx(), make_pptx()
    checks: dict[str, Callable[[], VerifierResult]] = {
        "xlsx_cells": lambda: v.verify_xlsx_cells(xlsx, {"C2": 2, "A501": "Item 501"}),
        "xlsx_formulas": lambda: v.verify_xlsx_formulas(xlsx, {"F2": "=C2+D2+E2"}),
        "xlsx_sorted": lambda: v.verify_xlsx_sorted(xlsx, "C"),
        "xlsx_autofilter": lambda: v.verify_xlsx_autofilter(xlsx, "A1:F501"),
        "xlsx_conditional_formatting": lambda: v.verify_xlsx_conditional_formatting(xlsx, "F2:F10"),
        "xlsx_charts": lambda: v.verify_xlsx_charts(xlsx, chart_type="bar", title="Totals"),
        "xlsx_pivot_tables (none)": lambda: v.not_(v.verify_xlsx_pivot_tables(xlsx)),
        "sheet_table (500 rows)": lambda: v.verify_sheet_table(xlsx, [["Item", "Region", "Q1"]], cell_range="A1:C1"),
        "docx_paragraph": lambda: v.verify_docx_has_paragraph(docx_data, "Key figure 59.", exact=False),
        "docx_font": lambda: v.verify_docx_font(docx_data, "Key figure 42.", bold=True),
        "docx_page_setup": lambda: v.verify_docx_page_setup(docx_data, orientation="portrait"),
        "docx_tables": lambda: v.verify_docx_tables(docx_data, count=1),
        "pptx_text": lambda: v.verify_pptx_text(pptx_data, "Point 11.4", slide=12),
        "pptx_notes": lambda: v.verify_pptx_notes(pptx_data, 7, "point 6"),
        "pptx_transitions (none)": lambda: v.not_(v.verify_pptx_transitions(pptx_data, slide=1)),
        "csv_rows (1000 rows)": lambda: v.verify_csv_rows(
            b"a,b\n" + b"".join(b"%d,%d\n" % (i, i) for i in range(1000)),
            [[i, i] for i in range(1000)],
            skip_header=True,
        ),
    }
    sizes = {"xlsx": len(xlsx), "docx": len(docx_data), "pptx": len(pptx_data)}
    print(f"documents: {', '.join(f'{k} {n / 1024:.0f} KiB' for k, n in sizes.items())}; repeats {args.repeats}")
    print(f"{'verifier':32} {'cold p50':>9} {'cold p95':>9} {'warm p50':>9}")
    for name, check in checks.items():
        cold_p50, cold_p95 = measure(check, args.repeats, cold=True)
        warm_p50, _ = measure(check, args.repeats, cold=False)
        print(f"{name:32} {cold_p50:8.2f}ms {cold_p95:8.2f}ms {warm_p50:8.2f}ms")


if __name__ == "__main__":
    main()
