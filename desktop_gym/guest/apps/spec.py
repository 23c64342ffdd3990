"""The app contract: one :class:`AppSpec` per app, in one table every layer reads.

The launcher (how to start it, which window is its), the action executor (the names agents call
it by), the env (whether verification waits for a save), the API registry (which APIs are always
offered) and the task schema's ``app`` enum all read :data:`APP_SPECS`; a test checks they agree.
Adding an app is one entry here, plus its tool module when it has an API (the entry's ``tools``
names it; see README, "Adding an app"). Imported by the guest: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: How an app is started: a LibreOffice module (UNO pipe, fresh profile), or a plain command.
LAUNCH_KINDS = ("libreoffice", "command", "none")


@dataclass(frozen=True)
class AppSpec:
    """What desktop-gym knows about one app.

    Attributes:
        key: The app's name everywhere (``"calc"``): tasks, ``launch_app``, ``open_app``, the API.
        launch: ``"libreoffice"``, ``"command"`` or ``"none"`` (an API without an app, like ``os``).
        command: For ``"command"`` apps, the argv; the file to open (if any) is appended.
            For ``"libreoffice"`` apps, the soffice module flag (``("--calc",)``).
        window_class: A substring of the WM_CLASS of its main window (``"libreoffice"``).
        aliases: Other names agents use for it (``"excel"``); matched case-insensitively.
        saves_documents: It edits documents that the agent saves; verification waits for a save
            in flight (the document's modified flag).
        opens_files: ``launch_app`` may pass it a file.
        always_offered: Its API is offered whatever app is focused (``OSTools``).
        ready_marker: The app signals readiness by creating a marker file (the terminal's shell).
        tools: Its API's tool class: ``"module:Class"`` (a module of this package, ``"calc:CalcTools"``,
            or a dotted path), imported on first use; or the class itself; None when it has no API.
    """

    key: str
    launch: str
    command: tuple[str, ...] = ()
    window_class: str = ""
    aliases: tuple[str, ...] = ()
    saves_documents: bool = False
    opens_files: bool = True
    always_offered: bool = False
    ready_marker: bool = False
    tools: str | type | None = None

    def __post_init__(self) -> None:
        if not self.key.isidentifier() or self.key != self.key.lower():
            raise ValueError(f"AppSpec.key must be a lowercase identifier, got {self.key!r}")
        if self.launch not in LAUNCH_KINDS:
            raise ValueError(f"AppSpec.launch of {self.key!r} must be one of {LAUNCH_KINDS}, got {self.launch!r}")
        if self.launch != "none" and not (self.command and self.window_class):
            raise ValueError(f"AppSpec {self.key!r}: a launched app needs a command and a window_class")
        if isinstance(self.tools, str) and not _is_entry_point(self.tools):
            raise ValueError(f"AppSpec.tools of {self.key!r} must be 'module:Class', got {self.tools!r}")

    @property
    def launchable(self) -> bool:
        """Whether the launcher can start it (tasks may list it in ``apps``)."""
        return self.launch != "none"


APP_SPECS: dict[str, AppSpec] = {}


def register_app(spec: AppSpec) -> AppSpec:
    """Add an app to the table; returns it.

    Raises:
        ValueError: the key or one of its aliases is taken by another app.
    """
    if spec.key in APP_SPECS:
        raise ValueError(f"app {spec.key!r} is already registered")
    taken = app_aliases()
    clashes = [name for name in (spec.key, *spec.aliases) if name.casefold() in taken]
    if clashes:
        raise ValueError(f"app {spec.key!r}: names {clashes} already belong to other apps")
    APP_SPECS[spec.key] = spec
    return spec


def unregister_app(key: str) -> None:
    """Remove an app from the table (for tests that add a temporary one)."""
    APP_SPECS.pop(key, None)


def app_spec(key: str) -> AppSpec:
    """The spec of ``key``.

    Raises:
        ValueError: unknown app, naming the known ones.
    """
    try:
        return APP_SPECS[key]
    except KeyError:
        raise ValueError(f"unknown app {key!r} (known: {', '.join(launchable_apps())})") from None


def launchable_apps() -> tuple[str, ...]:
    """Keys of the apps the launcher can start, in table order."""
    return tuple(key for key, spec in APP_SPECS.items() if spec.launchable)


def document_apps() -> tuple[str, ...]:
    """Keys of the apps whose documents the agent saves (verification waits for pending saves)."""
    return tuple(key for key, spec in APP_SPECS.items() if spec.saves_documents)


def app_aliases() -> dict[str, str]:
    """Every name an agent may use for an app (casefolded) -> the app's key."""
    aliases: dict[str, str] = {}
    for key, spec in APP_SPECS.items():
        for name in (key, *spec.aliases):
            aliases.setdefault(name.casefold(), key)
    return aliases


def _is_entry_point(text: str) -> bool:
    module, colon, name = text.partition(":")
    return bool(colon) and all(part.isidentifier() for part in (*module.split("."), name))


def _libreoffice(key: str, flag: str, aliases: tuple[str, ...], **fields: Any) -> AppSpec:
    return AppSpec(
        key=key,
        launch="libreoffice",
        command=(flag,),
        window_class="libreoffice",
        aliases=(f"libreoffice {key}", f"libreoffice-{key}", *aliases),
        saves_documents=True,
        **fields,
    )


for _spec in (
    _libreoffice("calc", "--calc", ("localc", "spreadsheet", "excel", "scalc"), tools="calc:CalcTools"),
    _libreoffice(
        "writer", "--writer", ("lowriter", "word", "word processor", "document", "swriter"), tools="writer:WriterTools"
    ),
    _libreoffice(
        "impress",
        "--impress",
        ("loimpress", "powerpoint", "presentation", "slides", "simpress"),
        tools="impress:ImpressTools",
    ),
    AppSpec(key="os", launch="none", always_offered=True, opens_files=False, tools="os_tools:OSTools"),
    AppSpec(
        key="terminal",
        launch="command",
        command=("xterm",),
        window_class="xterm",
        aliases=("xterm", "shell", "console", "gnome-terminal", "gnome terminal", "bash"),
        opens_files=False,
        ready_marker=True,
    ),
    AppSpec(
        key="editor",
        launch="command",
        command=("mousepad",),
        window_class="mousepad",
        aliases=("text editor", "texteditor", "gedit", "mousepad", "notepad", "text-editor"),
        tools="editor:EditorTools",
    ),
):
    register_app(_spec)
