"""OSWorld's table metrics -> our verifiers: ``compare_table`` (a gold workbook, its rules, or the
sheet as a postconfig exported it to CSV) and ``compare_csv``.

Importing this module adds them to ``osworld_evaluators.METRICS`` (the importer imports it).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .osworld_evaluators import METRICS, Node, Unsupported, _gold, _no_options, _source, guest_path


def _cell(value: Any) -> Any:
    """A gold cell as JSON: numbers, text and blanks as they are, anything else as its text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return str(value)
    return str(value)


def _sheet_index(ref: str | int, names: list[str]) -> str:
    """OSWorld's sheet reference (``RI0``/``EI0``/``0`` by index, ``RN<name>``/``EN<name>`` by name) -> a name."""
    match = re.fullmatch(r"[RE](I|N)(.+)", ref) if isinstance(ref, str) else re.fullmatch(r"(I)(\d+)", f"I{ref}")
    if not match:
        raise Unsupported(f"sheet reference {ref!r} not understood")
    if match.group(1) == "N":
        return match.group(2)
    index = int(match.group(2))
    if index >= len(names):
        raise Unsupported(f"sheet index {index} out of range for the gold workbook {names}")
    return names[index]


def _approx_tolerance(method: str) -> float | None:
    """``eq`` -> our default tolerance (None); ``approx:0.001`` -> 0.001."""
    if method == "eq":
        return None
    match = re.fullmatch(r"approx:([0-9.eE+-]+)", method)
    if not match:
        raise Unsupported(f"compare_table check_cell method {method!r} has no equivalent (eq, approx:<tolerance>)")
    return float(match.group(1))


def _printed_sheets(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    """compare_table over ``[workbook, <name>-Sheet1.csv]`` (a postconfig exports the CSV): the rules
    compare sheets as printed, which our ``csv_rows`` does on the exported CSV against the gold one."""
    from ..verifiers.tables import csv_rows

    paths = result.get("path")
    rules = options.get("rules") or []
    if len(paths) != 2 or not rules or any(rule.get("type") != "sheet_print" for rule in rules):
        raise Unsupported(
            "compare_table over several files is only supported as [workbook, exported CSV] with sheet_print rules"
        )
    rows = csv_rows(_gold(expected, cache_dir, index=1))
    ignore_case = any(rule.get("ignore_case") for rule in rules)
    return {
        "name": "csv_rows",
        "file": guest_path(str(paths[1])),
        "args": {"expected_rows": rows, "ignore_case": ignore_case},
        "label": "the sheet as exported to CSV",
    }


def _check_cell(source: Node, rule: Mapping[str, Any], sheet: str | None) -> Node:
    tolerance = _approx_tolerance(str(rule["props"]["value"].get("method")))
    args: Node = {"expected": {rule["coordinate"]: rule["props"]["value"].get("ref")}, "sheet": sheet}
    return {"name": "xlsx_cells", **source, "args": args | ({"tolerance": tolerance} if tolerance else {})}


def _cells_without_gold(source: Node, options: Mapping) -> Node:
    """compare_table with only ``check_cell`` value rules and no gold workbook. A sheet named by
    the rule is read by name; sheet index 0 is read as the active sheet (the sheet a task's
    single-sheet workbook opens on); other indices need the gold's sheet names."""
    rules = options.get("rules") or []
    checks = []
    for index, rule in enumerate(rules):
        if rule.get("type") != "check_cell" or set(rule.get("props", {})) != {"value"}:
            raise Unsupported(f"compare_table without a gold workbook: rule {index} is not a check_cell value rule")
        ref = rule.get("sheet_idx", 0)
        named = re.fullmatch(r"[RE]N(.+)", ref) if isinstance(ref, str) else None
        if not named and ref not in (0, "RI0", "EI0"):
            raise Unsupported(f"compare_table without a gold workbook: sheet {ref!r} needs the gold's sheet names")
        checks.append(_check_cell(source, rule, named.group(1) if named else None))
    if not checks:
        raise Unsupported("compare_table without a gold workbook and without rules")
    return checks[0] if len(checks) == 1 else {"all": checks}


def compare_table(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    from ..verifiers._load import open_xlsx
    from ..verifiers.tables import sheet_rows

    if isinstance(result.get("path"), list):
        return _printed_sheets(result, expected, options, cache_dir)
    source = _source(result)
    if expected.get("type") == "rule" or not expected:
        return _cells_without_gold(source, options)
    gold = _gold(expected, cache_dir)
    names = list(open_xlsx(gold).sheetnames)

    def table(name: str) -> Node:
        rows = [[_cell(v) for v in row] for row in sheet_rows(gold, name)[1]]
        return {
            "name": "sheet_table",
            **source,
            "args": {"expected_rows": rows, "sheet": name},
            "label": f"sheet {name}",
        }

    rules = options.get("rules")
    _no_options(options, "compare_table", ("rules",))
    if not rules:
        names_check = {"name": "xlsx_sheet_names", **source, "args": {"expected": names}, "label": "sheet names"}
        return {"all": [names_check, *(table(name) for name in names)]}
    checks: list[Node] = []
    for index, rule in enumerate(rules):
        kind = rule.get("type")
        if kind == "sheet_data":
            checks.append(table(_sheet_index(rule.get("sheet_idx1", rule.get("sheet_idx0", 0)), names)))
        elif kind == "sheet_name":
            checks.append({"name": "xlsx_sheet_names", **source, "args": {"expected": names}, "label": "sheet names"})
        elif kind == "check_cell" and set(rule.get("props", {})) == {"value"}:
            tolerance = _approx_tolerance(str(rule["props"]["value"].get("method")))
            sheet = _sheet_index(rule.get("sheet_idx", 0), names)
            args: Node = {"expected": {rule["coordinate"]: rule["props"]["value"].get("ref")}, "sheet": sheet}
            checks.append(
                {"name": "xlsx_cells", **source, "args": args | ({"tolerance": tolerance} if tolerance else {})}
            )
        else:
            raise Unsupported(f"compare_table rule {index} of type {kind!r} has no equivalent")
    return checks[0] if len(checks) == 1 else {"all": checks}


def compare_csv(result: Mapping, expected: Mapping, options: Mapping, cache_dir: Path) -> Node:
    from ..verifiers.tables import csv_rows

    _no_options(options, "compare_csv")
    rows = csv_rows(_gold(expected, cache_dir))
    return {"name": "csv_rows", **_source(result), "args": {"expected_rows": rows}}


METRICS.update({"compare_table": compare_table, "compare_csv": compare_csv})
