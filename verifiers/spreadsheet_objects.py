"""Verifiers for objects embedded in saved xlsx workbooks: charts and pivot tables.

Both are read from the package parts (sheet -> drawing -> chart, sheet -> pivot table -> cache).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from ._load import guarded_read
from ._ooxml import CHART_NS, SHEET_NS, Package, local_name, open_package, texts
from ._text import fold_text
from .registry import register_verifier
from .result import VerifierResult, count_mismatch


def _chart_facts(package: Package, part: str) -> dict[str, Any]:
    root = package.xml(part)
    types: list[str] = []
    for plot_area in root.iter(f"{{{CHART_NS}}}plotArea"):
        for child in plot_area:
            tag = local_name(child)
            if not tag.endswith("Chart"):
                continue
            kind = tag[: -len("Chart")].replace("3D", "").lower()
            direction = child.find(f"{{{CHART_NS}}}barDir")
            if kind == "bar" and direction is not None and direction.get("val") == "col":
                types.append("column")
            else:
                types.append(kind)
    title_element = next(root.iter(f"{{{CHART_NS}}}title"), None)
    chart = next(root.iter(f"{{{CHART_NS}}}chart"), None)
    # The chart-level title is the first <c:title> directly under <c:chart>; axis titles come later.
    if chart is not None:
        title_element = chart.find(f"{{{CHART_NS}}}title")
    title = texts(title_element) if title_element is not None else ""
    values: list[str] = []
    categories: list[str] = []
    for series_element in root.iter(f"{{{CHART_NS}}}ser"):
        for tag, into in (("val", values), ("yVal", values), ("cat", categories), ("xVal", categories)):
            for reference in series_element.findall(f"{{{CHART_NS}}}{tag}//{{{CHART_NS}}}f"):
                into.append((reference.text or "").strip())
    series = sum(1 for _ in root.iter(f"{{{CHART_NS}}}ser"))
    return {"part": part, "types": types, "title": title, "series": series, "values": values, "categories": categories}


def _split_reference(reference: str) -> tuple[str | None, str]:
    """``'My Sheet'!$B$2:$B$9`` -> (``My Sheet``, ``B2:B9``); no sheet -> (None, range)."""
    sheet, _, cells = reference.rpartition("!")
    sheet = sheet.strip("'").replace("''", "'") if sheet else None
    return sheet, cells.replace("$", "").upper()


def _references_match(found: Sequence[str], wanted: str, default_sheet: str) -> bool:
    """Whether one chart reference in ``found`` names the same cells as ``wanted`` (sheet optional)."""
    want_sheet, want_cells = _split_reference(wanted)
    for reference in found:
        sheet, cells = _split_reference(reference)
        if cells == want_cells and (want_sheet is None or (sheet or default_sheet) == want_sheet):
            return True
    return False


def xlsx_charts(package: Package) -> list[dict[str, Any]]:
    """Every chart in the workbook: sheet, types (``"bar"``/``"column"``/``"line"``/``"pie"``/...), title."""
    charts: list[dict[str, Any]] = []
    for sheet_name, sheet_part in package.sheet_parts().items():
        for drawing in package.related(sheet_part, "drawing"):
            for chart_part in package.related(drawing, "chart"):
                charts.append({"sheet": sheet_name, **_chart_facts(package, chart_part)})
    return charts


def _objects_on(
    data: bytes | None, read: Callable[[Package], list[dict[str, Any]]], sheet: str | None
) -> tuple[list[dict[str, Any]], str]:
    """The objects ``read`` finds in the workbook (only those on ``sheet`` when given) and where they were sought.

    Raises:
        DocumentError: missing or unreadable.
    """
    found = guarded_read("xlsx", read, open_package(data, "xlsx"))
    if sheet is None:
        return found, "in the workbook"
    return [item for item in found if item["sheet"] == sheet], f"on sheet {sheet!r}"


def _type_matches(types: Sequence[str], wanted: str) -> bool:
    wanted = wanted.lower().removesuffix("chart")
    # A column chart is a bar chart drawn vertically; asking for "bar" accepts both directions.
    return wanted in types or (wanted == "bar" and "column" in types)


@register_verifier("xlsx_charts", reads="file")
def verify_xlsx_charts(
    data: bytes | None,
    sheet: str | None = None,
    count: int | None = None,
    min_count: int = 1,
    chart_type: str | None = None,
    title: str | None = None,
    title_match: Literal["exact", "contains"] = "exact",
    ignore_case: bool = False,
    values: Sequence[str] | None = None,
    categories: str | None = None,
) -> VerifierResult:
    """Check that a workbook has charts, optionally of a type, with a title, over given data.

    One chart must satisfy every condition given.

    Args:
        data: the file's bytes, or None when the file does not exist.
        sheet: only charts on this sheet; every sheet when None.
        count: the exact number of charts; when None at least ``min_count``.
        min_count: the least number of charts (when ``count`` is None).
        chart_type: one chart must be of this type: ``"bar"`` (any direction), ``"column"``,
            ``"line"``, ``"pie"``, ``"area"``, ``"scatter"``, ``"doughnut"``, ``"radar"``, ...
        title: the chart's title (whitespace runs count as one space).
        title_match: the title is ``"exact"``-ly ``title`` or ``"contains"`` it.
        ignore_case: compare the title case-insensitively.
        values: the ranges the chart's series plot, one per series in any order
            (``"Monthly!B2:B13"``; ``$`` ignored; without a sheet name any sheet's range counts).
        categories: the range the chart's categories (x values) come from.
    """
    charts, where = _objects_on(data, xlsx_charts, sheet)
    summary = [{k: c[k] for k in ("sheet", "types", "title", "values", "categories")} for c in charts]
    mismatch = count_mismatch(
        len(charts), f"charts {where}", count, min_count if count is None else None, found=summary
    )
    if mismatch:
        return mismatch
    candidates = charts
    if chart_type is not None:
        candidates = [chart for chart in candidates if _type_matches(chart["types"], chart_type)]
        if not candidates:
            found_types = sorted({t for chart in charts for t in chart["types"]})
            return VerifierResult.failed(
                f"no {chart_type} chart {where}; chart types found: {found_types}", found=summary
            )
    if title is not None:
        wanted = fold_text(title, ignore_case)
        folded = [(chart, fold_text(chart["title"], ignore_case)) for chart in candidates]
        candidates = [chart for chart, have in folded if (wanted == have if title_match == "exact" else wanted in have)]
        if not candidates:
            titles = [c["title"] for c in charts]
            wording = "titled" if title_match == "exact" else "with a title containing"
            return VerifierResult.failed(f"no chart {where} is {wording} {title!r}; titles: {titles}", found=summary)
    if values is not None or categories is not None:

        def plots(chart: dict[str, Any]) -> bool:
            if values is not None and (
                len(chart["values"]) != len(values)
                or not all(_references_match(chart["values"], wanted, chart["sheet"]) for wanted in values)
            ):
                return False
            return categories is None or _references_match(chart["categories"], categories, chart["sheet"])

        if not any(plots(chart) for chart in candidates):
            found_data = [{"values": c["values"], "categories": c["categories"]} for c in candidates]
            return VerifierResult.failed(
                f"no chart {where} plots values {list(values or [])} with categories {categories}; "
                f"charts plot {found_data}",
                found=summary,
            )
    return VerifierResult.passed(f"{len(charts)} charts {where} as expected", found=summary)


def _pivot_facts(package: Package, part: str) -> dict[str, Any]:
    root = package.xml(part)
    names: list[str] = []
    source: dict[str, str | None] = {"sheet": None, "ref": None}
    for cache in package.related(part, "pivotCacheDefinition"):
        cache_root = package.xml(cache)
        names = [field.get("name", "") for field in cache_root.iter(f"{{{SHEET_NS}}}cacheField")]
        worksheet_source = next(cache_root.iter(f"{{{SHEET_NS}}}worksheetSource"), None)
        if worksheet_source is not None:
            source = {"sheet": worksheet_source.get("sheet"), "ref": worksheet_source.get("ref")}

    def field_names(container: str, item: str, attribute: str) -> list[str]:
        found = []
        for element in root.iter(f"{{{SHEET_NS}}}{container}"):
            for field in element.iter(f"{{{SHEET_NS}}}{item}"):
                index = int(field.get(attribute, "-1"))
                if 0 <= index < len(names):  # -2 is the "Values" pseudo-field
                    found.append(names[index])
        return found

    location = root.find(f"{{{SHEET_NS}}}location")
    return {
        "name": root.get("name", ""),
        "location": location.get("ref") if location is not None else None,
        "source": source,
        "row_fields": field_names("rowFields", "field", "x"),
        "column_fields": field_names("colFields", "field", "x"),
        "data_fields": field_names("dataFields", "dataField", "fld"),
        "page_fields": field_names("pageFields", "pageField", "fld"),
    }


def xlsx_pivot_tables(package: Package) -> list[dict[str, Any]]:
    """Every pivot table: sheet, name, location, source, and the field names in each area."""
    pivots: list[dict[str, Any]] = []
    for sheet_name, sheet_part in package.sheet_parts().items():
        for part in package.related(sheet_part, "pivotTable"):
            pivots.append({"sheet": sheet_name, **_pivot_facts(package, part)})
    return pivots


@register_verifier("xlsx_pivot_tables", reads="file")
def verify_xlsx_pivot_tables(
    data: bytes | None,
    sheet: str | None = None,
    count: int | None = None,
    min_count: int = 1,
    row_fields: Sequence[str] | None = None,
    data_fields: Sequence[str] | None = None,
) -> VerifierResult:
    """Check that a workbook has pivot tables, optionally using given fields.

    Args:
        data: the file's bytes, or None when the file does not exist.
        sheet: only pivot tables placed on this sheet; every sheet when None.
        count: the exact number of pivot tables; when None at least ``min_count``.
        min_count: the least number (when ``count`` is None).
        row_fields: one pivot table must have these source columns as row fields (any order).
        data_fields: that pivot table must summarise these source columns.
    """
    pivots, where = _objects_on(data, xlsx_pivot_tables, sheet)
    mismatch = count_mismatch(
        len(pivots), f"pivot tables {where}", count, min_count if count is None else None, found=pivots
    )
    if mismatch:
        return mismatch

    def uses(pivot: dict[str, Any], key: str, wanted: Sequence[str] | None) -> bool:
        return wanted is None or {n.casefold() for n in wanted} <= {n.casefold() for n in pivot[key]}

    if row_fields is not None or data_fields is not None:
        if not any(uses(p, "row_fields", row_fields) and uses(p, "data_fields", data_fields) for p in pivots):
            found = [{"row_fields": p["row_fields"], "data_fields": p["data_fields"]} for p in pivots]
            return VerifierResult.failed(
                f"no pivot table {where} has row fields {list(row_fields or [])} and data fields "
                f"{list(data_fields or [])}; found {found}",
                found=pivots,
            )
    return VerifierResult.passed(f"{len(pivots)} pivot tables {where} as expected", found=pivots)
