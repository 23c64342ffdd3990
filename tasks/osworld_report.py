"""How much of a folder of OSWorld tasks maps to desktop-gym tasks, and why the rest does not.

``coverage(folder)`` converts every task file under ``folder`` (OSWorld's
``evaluation_examples/examples/<domain>/*.json`` layout) without its downloaded files: a task
*maps given its files* when everything it needs has an equivalent here and only cached files are
missing. The rest are grouped by the first reason that keeps them out (an evaluator metric, a
result getter, a setup step), so the report says what to support next.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .osworld_chrome import internet_need
from .osworld_import import ImportReport, convert_osworld

MAX_FILES = 5_000
#: OSWorld's office, OS, browser, image editor, media player and multi-app domains: the ones desktop-gym's apps cover.
DOMAINS = (
    "libreoffice_calc",
    "libreoffice_writer",
    "libreoffice_impress",
    "os",
    "chrome",
    "gimp",
    "vlc",
    "multi_apps",
)
#: What a task that needs a live website lacks here (the desktop serves only its own sites).
INTERNET = "the internet (a live website)"
#: Programs OSWorld's setup starts that this desktop does not have, and what they are.
ABSENT_PROGRAMS = {
    "thunderbird": "Thunderbird",
    "code": "VS Code",
    "nautilus": "the Nautilus file manager",
}
#: Setup step types that need a Google account or a site login.
ABSENT_STEP_TYPES = {
    "googledrive": "Google Drive (an account and the internet)",
    "login": "a website login (the internet)",
}
#: OSWorld ``related_apps`` names of apps this desktop lacks: a task that does not map and names one
#: is out of scope (its check reads what that app makes, such as an image GIMP edits).
ABSENT_RELATED_APPS = {
    "vscode": "VS Code",
    "vs_code": "VS Code",
    "thunderbird": "Thunderbird",
}
#: Commands in a check that read GNOME's own settings: this desktop runs openbox, not GNOME.
GNOME_ONLY = re.compile(r"\b(gsettings|timedatectl|gnome-shell|org\.gnome)\b")
NO_CHECK = "none: the task file has no check (evaluator.func is empty)"
#: Files with no viewer on this desktop, by extension.
ABSENT_VIEWERS = {"pdf": "a PDF viewer"}


@dataclass
class Coverage:
    """The outcome over a folder.

    Attributes:
        total: task files read, per domain (the folder's subfolder names).
        mapped: tasks that map given their files, per domain.
        out_of_scope: tasks that need what this desktop lacks (an app, the internet: ``absent_app``),
            per domain; they are left out of the share, and counted by what they lack in ``absent``.
        reasons: why the other in-scope tasks do not map, as a short category -> count.
        examples: one task file per category.
    """

    total: Counter[str] = field(default_factory=Counter)
    mapped: Counter[str] = field(default_factory=Counter)
    out_of_scope: Counter[str] = field(default_factory=Counter)
    absent: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)

    @property
    def fraction(self) -> float:
        """Mapped tasks over the tasks whose apps this desktop has."""
        in_scope = sum(self.total.values()) - sum(self.out_of_scope.values())
        return sum(self.mapped.values()) / max(in_scope, 1)

    def describe(self) -> str:
        """A table per domain, the apps that put tasks out of scope, then the reasons, most common first."""
        lines = [f"{'domain':<22} {'tasks':>6} {'out':>7} {'map':>6} {'share':>7}"]
        for domain in sorted(self.total):
            in_scope = self.total[domain] - self.out_of_scope[domain]
            share = self.mapped[domain] / max(in_scope, 1)
            counts = f"{self.total[domain]:>6} {self.out_of_scope[domain]:>7} {self.mapped[domain]:>6}"
            lines.append(f"{domain:<22} {counts} {share:>7.0%}")
        total, mapped, absent = sum(self.total.values()), sum(self.mapped.values()), sum(self.out_of_scope.values())
        lines.append(f"{'all':<22} {total:>6} {absent:>7} {mapped:>6} {self.fraction:>7.0%}")
        lines.append("out = out of scope (needs what this desktop lacks, listed below); share = map / (tasks - out)")
        if self.absent:
            lines.append("\nout of scope (left out of the share), by what the task needs that this desktop lacks:")
            lines += [f"  {count:>4}  {app}" for app, count in self.absent.most_common()]
        if self.reasons:
            lines.append("\nnot mapped, by first reason:")
            for reason, count in self.reasons.most_common():
                lines.append(f"  {count:>4}  {reason}  (e.g. {self.examples[reason]})")
        return "\n".join(lines)


def blocking_reason(report: ImportReport) -> str | None:
    """The first reason ``report``'s task would not map even with its files; None when it would."""
    if report.status == "error":
        return "not an OSWorld task file"
    for item in report.unsupported:
        if item in report.missing_assets:
            continue
        where, _, why = item.partition(": ")
        kind = re.sub(r"\[\d+\]", "", where)
        metric = re.search(r"metric '([^']+)'", why)
        if metric:
            return f"evaluator metric {metric.group(1)}"
        getter = re.search(r"getter '([^']+)'", why)
        if getter:
            return f"{kind}: getter {getter.group(1)}"
        return f"{kind}: {why[:70]}"
    return None


def absent_app(data: dict) -> str | None:
    """Why a task that does not map is out of scope: what it needs that this desktop lacks, or None.

    In order: a setup step that needs an account or a login, a program started by ``launch`` or
    ``execute``, an ``open`` of a file only such an app shows, a check on GNOME's settings, a live
    website (``INTERNET``, see ``osworld_chrome.internet_need``), an absent app in
    ``related_apps``, or a task file with no check at all (``NO_CHECK``).
    """
    reason = _absent_in_setup(data)
    if reason is not None:
        return reason
    evaluator = data.get("evaluator", {}) or {}
    if not isinstance(evaluator, dict):  # two of OSWorld's VLC files hold a string here
        return NO_CHECK
    if GNOME_ONLY.search(json.dumps(evaluator)):
        return "GNOME settings (this desktop runs openbox)"
    if internet_need(data) is not None:
        return INTERNET
    for app in data.get("related_apps", []) or []:
        if str(app).lower() in ABSENT_RELATED_APPS:
            return ABSENT_RELATED_APPS[str(app).lower()]
    if not evaluator.get("func"):
        return NO_CHECK
    return None


def _absent_in_setup(data: dict) -> str | None:
    for step in data.get("config", []) or []:
        kind, params = step.get("type"), step.get("parameters", {}) or {}
        if kind in ABSENT_STEP_TYPES:
            return ABSENT_STEP_TYPES[kind]
        if kind in ("launch", "execute", "command"):
            command = params.get("command")
            words = command.split() if isinstance(command, str) else [str(part) for part in command or []]
            program = words[0].rsplit("/", 1)[-1] if words else ""
            if program in ABSENT_PROGRAMS:
                return ABSENT_PROGRAMS[program]
        if kind == "open":
            name = str(params.get("path", "")).rstrip("/").rsplit("/", 1)[-1]
            if "." not in name:
                return "the Nautilus file manager (the task opens a folder)"
            extension = name.rsplit(".", 1)[-1].lower()
            if extension in ABSENT_VIEWERS:
                return ABSENT_VIEWERS[extension]
    return None


def coverage(folder: Path, domains: tuple[str, ...] | None = DOMAINS) -> Coverage:
    """Convert every ``<domain>/*.json`` under ``folder`` with an empty cache and tally what maps.

    Args:
        folder: OSWorld's ``evaluation_examples/examples`` (or a folder of task files).
        domains: the subfolders to read; every ``*.json`` below ``folder`` when None.
    """
    result = Coverage()
    if domains is None:
        files = sorted(Path(folder).rglob("*.json"))[:MAX_FILES]
    else:
        files = sorted(path for domain in domains for path in (Path(folder) / domain).glob("*.json"))[:MAX_FILES]
    with tempfile.TemporaryDirectory(prefix="osworld-cache-") as empty_cache:
        for path in files:
            domain = path.parent.name
            result.total[domain] += 1
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                report = convert_osworld(data, Path(empty_cache), source=str(path))
            except (OSError, ValueError) as error:
                reason = f"unreadable file ({type(error).__name__})"
            else:
                reason = blocking_reason(report)
                app = absent_app(data) if reason is not None and isinstance(data, dict) else None
                if app is not None:
                    result.out_of_scope[domain] += 1
                    result.absent[app] += 1
                    continue
            if reason is None:
                result.mapped[domain] += 1
            else:
                result.reasons[reason] += 1
                result.examples.setdefault(reason, f"{domain}/{path.name}")
    return result
