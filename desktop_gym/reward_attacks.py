"""Reward hacking attacks: cheap non-solutions a policy could find, each of which must fail the verifier.

Two kinds, so ``desktop-gym tasks check`` can afford them:

- **File-level attacks** change only the saved files, so they are judged by the task's own
  ``verify`` on those files without a desktop: ``setup`` runs against ``StandInGuest`` (an
  in-memory home; apps, windows and commands are not there), the files the verifier reads are
  recorded, and each attack writes its forgery there: the untouched input saved as the answer,
  an empty file, the content deleted, every string of the task's parameters typed as text into
  the first empty cells, and every such string written somewhere in the document.
- **Episode-level attacks** run on the real desktop (``EPISODE_ATTACKS``): exit at once claiming
  success, and save the untouched document then exit. CI runs them on a seeded rotating sample
  of tasks; ``desktop-gym tasks check --attacks all`` runs them on every task.

A task is unproven when any applicable attack passes its verifier.
"""

from __future__ import annotations

import io
import posixpath
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import GuestFileNotFoundError
from .guest.types import AppInfo, ExecResult

MAX_PLANTED_STRINGS = 40  # parameter strings planted by the "write the answers" attacks
MAX_STRING_CHARS = 200

#: Episode-level attacks: action texts played from reset, by name; ``{save}`` is the app's save call.
EPISODE_ATTACKS: dict[str, list[str]] = {
    "exit claiming success": ["exit(success=True)"],
    "save untouched and exit": ["{save}", "exit(success=True)"],
}
SAVE_ACTIONS = {"calc": "CalcTools.save()", "writer": "WriterTools.save()", "impress": "ImpressTools.save()"}


class StandInUnsupported(RuntimeError):
    """The task touched something ``StandInGuest`` does not have (live apps, commands, windows)."""


class StandInGuest:
    """A stand-in for ``GuestClient`` holding the session home in memory, for file-level attacks.

    ``put_file`` / ``get_file`` work on a dict keyed by normalised path; ``launch_app`` records
    the launch and says the app is alive; anything that needs a live desktop (``exec``, windows,
    app APIs) raises ``StandInUnsupported``, which makes the file-level attacks not applicable.
    """

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.reads: list[str] = []
        self.launched: list[str] = []

    @staticmethod
    def _key(path: str) -> str:
        return posixpath.normpath("/home/user/" + path[2:] if path.startswith("~/") else path)

    def put_file(self, path: str, data: bytes, mode: int = 0o644) -> str:
        self.files[self._key(path)] = bytes(data)
        return self._key(path)

    def get_file(self, path: str) -> bytes:
        key = self._key(path)
        self.reads.append(key)
        if key not in self.files:
            raise GuestFileNotFoundError(f"no such file in the stand-in home: {key}")
        return self.files[key]

    def launch_app(self, app: str, file: str | None = None, timeout: float = 30.0) -> AppInfo:
        self.launched.append(app)
        return AppInfo(app=app, pid=0, alive=True, window_id=None, file=file)

    def wait_apps_idle(self, *args: Any, **kwargs: Any) -> None:
        return None

    def exec(self, *args: Any, **kwargs: Any) -> ExecResult:
        raise StandInUnsupported("the task runs commands in the desktop")

    def __getattr__(self, name: str) -> Any:
        raise StandInUnsupported(f"the task calls the guest's {name}()")


@dataclass(frozen=True)
class AttackOutcome:
    """One attack on one task.

    Attributes:
        attack: the attack's name.
        applicable: whether it could be mounted (else ``reason`` says why not).
        passed: the verifier accepted the forgery (the task is then unproven).
        reason: the verifier's reason, or why the attack does not apply.
    """

    attack: str
    applicable: bool
    passed: bool
    reason: str


def _planted_strings(params: Mapping[str, Any]) -> list[str]:
    """Every scalar in the task's parameters as text (numbers as typed), capped in count and length."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if len(found) >= MAX_PLANTED_STRINGS:
            return
        if isinstance(value, Mapping):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)
        elif isinstance(value, bool) or value is None:
            return
        elif isinstance(value, str | int | float):
            text = str(value)[:MAX_STRING_CHARS]
            if text.strip() and text not in found:
                found.append(text)

    walk(params)
    return found


def _kind(data: bytes) -> str:
    if data.startswith(b"PK"):
        import zipfile

        try:
            names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
        except zipfile.BadZipFile:
            return "other"
        for marker, kind in (
            ("xl/workbook.xml", "xlsx"),
            ("word/document.xml", "docx"),
            ("ppt/presentation.xml", "pptx"),
        ):
            if marker in names:
                return kind
    return "other"


def _saved(document: Any) -> bytes:
    """The bytes of an openpyxl, python-docx or python-pptx document saved to memory."""
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _forge_xlsx(data: bytes, strings: Sequence[str], *, clear: bool) -> bytes:
    import openpyxl

    workbook = openpyxl.load_workbook(io.BytesIO(data))
    for sheet in workbook.worksheets:
        if clear:
            for row in sheet.iter_rows():
                for cell in row:
                    cell.value = None
        else:
            start = sheet.max_row + 1 if sheet.max_row > 1 or sheet["A1"].value is not None else 1
            for offset, text in enumerate(strings):
                sheet.cell(row=start + offset, column=1, value=text)
    return _saved(workbook)


def _forge_docx(data: bytes, strings: Sequence[str], *, clear: bool) -> bytes:
    import docx

    document = docx.Document(io.BytesIO(data))
    if clear:
        for paragraph in document.paragraphs:
            for run in paragraph.runs:
                run.text = ""
    else:
        for text in strings:
            document.add_paragraph(text)
    return _saved(document)


def _forge_pptx(data: bytes, strings: Sequence[str], *, clear: bool) -> bytes:
    import pptx
    from pptx.util import Inches

    presentation = pptx.Presentation(io.BytesIO(data))
    if clear:
        for slide in presentation.slides:
            for shape in slide.shapes:
                if shape.has_text_frame:
                    shape.text_frame.text = ""
    elif len(presentation.slides):
        box = presentation.slides[0].shapes.add_textbox(Inches(0.5), Inches(0.5), Inches(4), Inches(1))
        box.text_frame.text = "\n".join(strings)
    return _saved(presentation)


def _forge(data: bytes, strings: Sequence[str], *, clear: bool) -> bytes:
    """``data`` with its content cleared, or with ``strings`` written into it (format-aware)."""
    forgers: dict[str, Callable[..., bytes]] = {"xlsx": _forge_xlsx, "docx": _forge_docx, "pptx": _forge_pptx}
    kind = _kind(data)
    if kind in forgers:
        return forgers[kind](data, strings, clear=clear)
    if clear:
        return b""
    return data + b"\n" + "\n".join(strings).encode() + b"\n"


def _first_input(inputs: Mapping[str, bytes], path: str) -> bytes | None:
    """The input file most like ``path``: the same path, else the same extension, else any."""
    if path in inputs:
        return inputs[path]
    extension = posixpath.splitext(path)[1]
    same = [data for name, data in inputs.items() if posixpath.splitext(name)[1] == extension]
    return same[0] if same else next(iter(inputs.values()), None)


def _blank_document(extension: str) -> bytes | None:
    """An empty document of the kind a path's extension names (for outputs the task has no input of)."""
    from .tasks.artifacts import docx_bytes, pptx_bytes, xlsx_bytes

    makers: dict[str, Callable[[], bytes]] = {
        ".xlsx": lambda: xlsx_bytes([["x"]]),
        ".docx": lambda: docx_bytes(["x"]),
        ".pptx": lambda: pptx_bytes([{"title": "x"}]),
    }
    return makers[extension]() if extension in makers else (b"" if extension in (".txt", ".csv", ".md") else None)


def _same_kind_input(inputs: Mapping[str, bytes], path: str) -> bytes | None:
    """The input of the same kind as ``path``, else a blank document of that kind (None if unknown)."""
    extension = posixpath.splitext(path)[1].lower()
    same = [data for name, data in inputs.items() if posixpath.splitext(name)[1].lower() == extension]
    return same[0] if same else _blank_document(extension)


def file_attacks(
    inputs: Mapping[str, bytes], reads: Sequence[str], params: Mapping[str, Any]
) -> Iterator[tuple[str, dict[str, bytes]]]:
    """Each file-level attack as (name, the home's files after it)."""
    strings = _planted_strings(params)
    targets = list(dict.fromkeys(reads))

    def home_with(make: Callable[[str], bytes | None]) -> dict[str, bytes]:
        files = dict(inputs)
        for path in targets:
            forged = make(path)
            if forged is not None:
                files[path] = forged
        return files

    yield "untouched input saved as the answer", home_with(lambda path: _first_input(inputs, path))
    yield "empty file", home_with(lambda path: b"")
    source = {path: _same_kind_input(inputs, path) for path in targets}
    if any(data is not None for data in source.values()):
        yield (
            "content deleted",
            home_with(lambda path: _forge(source[path], [], clear=True) if source[path] is not None else None),
        )
        yield (
            "parameter strings typed into empty cells / appended",
            home_with(lambda path: _forge(source[path], strings, clear=False) if source[path] is not None else None),
        )


def run_file_attacks(task: Any, seed: int) -> list[AttackOutcome]:
    """Mount every file-level attack on ``task`` with the parameters of ``seed``.

    Returns:
        one outcome per attack; a single not-applicable outcome when the task's setup or verifier
        needs a live desktop, or reads no file.
    """
    from .tasks.base import TaskContext

    if task.infeasible:
        return [AttackOutcome("file attacks", False, False, "infeasible task: success only by declaring FAIL")]
    params = task.sample_params(np.random.default_rng(seed))
    guest = StandInGuest()
    try:
        ctx = TaskContext(client=guest, rng=np.random.default_rng(seed), params=dict(params))  # type: ignore[arg-type]
        task.setup(ctx)
        inputs = dict(guest.files)
        guest.reads.clear()
        task.verify(ctx)
    except StandInUnsupported as error:
        return [AttackOutcome("file attacks", False, False, f"not judged without a desktop: {error}")]
    reads = list(guest.reads)
    if not reads:
        return [AttackOutcome("file attacks", False, False, "the verifier reads no file")]
    outcomes = []
    for name, files in file_attacks(inputs, reads, params):
        guest.files = files
        try:
            verdict = task.verify(ctx)
        except StandInUnsupported as error:
            outcomes.append(AttackOutcome(name, False, False, f"not judged without a desktop: {error}"))
            continue
        except Exception as error:  # noqa: BLE001 - a verifier that crashes on a forgery is a finding too
            outcomes.append(AttackOutcome(name, True, False, f"the verifier raised {type(error).__name__}: {error}"))
            continue
        outcomes.append(AttackOutcome(name, True, bool(verdict.success), verdict.reason))
    return outcomes


def episode_attack_policy(actions: Sequence[str], apps: Sequence[str]) -> list[str] | None:
    """The action texts of an episode attack for a task's apps; None when it does not apply."""
    save = next((SAVE_ACTIONS[app] for app in apps if app in SAVE_ACTIONS), None)
    if any("{save}" in action for action in actions) and save is None:
        return None
    return [action.replace("{save}", save or "") for action in actions]


def rotating_sample(task_ids: Sequence[str], count: int, seed: int) -> list[str]:
    """``count`` task ids drawn by ``seed`` (CI passes a seed that changes per run), in registry order."""
    if count >= len(task_ids):
        return list(task_ids)
    chosen = set(np.random.default_rng(seed).choice(len(task_ids), size=count, replace=False).tolist())
    return [task_id for index, task_id in enumerate(task_ids) if index in chosen]
