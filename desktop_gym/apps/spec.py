"""The app contract: one :class:`AppSpec` per app, in one table every layer reads.

Each app is a folder ``desktop_gym/apps/<key>/`` whose ``__init__`` defines its ``SPEC``, listed in
the entry-point group ``desktop_gym.apps`` (:mod:`.plugins` loads the group into :data:`APP_SPECS`
on first use; a package of your own adds an app the same way, the guest reads the same group).
The launcher (how to start it, which window is its, when it is ready), the action executor (the
names agents call it by), the env (whether verification waits for a save), the API registry (its
tool class, which APIs are always offered), the task schema's ``app`` enum, ``desktop-gym doctor``,
the install script's and the images' package lists all read the table; a test checks they agree.
Imported by the guest: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: How an app is started: a LibreOffice module (UNO pipe, fresh profile), or a plain command.
LAUNCH_KINDS = ("libreoffice", "command", "none")
#: When a launched app counts as ready: its document answers UNO, its own marker file appears
#: (the terminal's shell reads input), or its window is mapped and drawn.
READINESS_KINDS = ("uno", "marker", "window", "none")


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
        tools: Its API's tool class: ``"package.module:Class"`` (``"desktop_gym.apps.calc.tools:CalcTools"``),
            imported on first use; or the class itself; None when it has no API.
        packages: The Debian packages the desktop needs for it (the install script and the images
            install them).
        doctor: Programs that must be on ``PATH`` for it (``desktop-gym doctor`` checks them).
        domain: The task domain its tasks belong to (OSWorld's names where they exist).
        file_types: File suffixes it opens (``(".xlsx", ".ods")``).
        save_keys: The hotkey that saves its document, for GUI oracles and prompts; () when none.
        readiness: When a launch counts as ready: one of :data:`READINESS_KINDS` (default: by ``launch``).
        launch_hook: For ``"command"`` apps, ``"package.module:function"`` building the argv instead of
            ``command`` + file: called in the guest as ``function(home, launch_dir, file) -> list[str]``
            (Chromium's profile, proxy and DevTools flags); "" for none.
        ready_hook: ``"package.module:function"`` the launcher calls once the window is up, as
            ``function(home, launch_dir, deadline)``; it returns when the app is usable or raises
            ``TimeoutError`` (the browser's DevTools answers and its page finished loading); "" for none.
        present_hook: ``"package.module:function"`` the guest calls in each settle after an action, as
            ``function(home, launch_dir, timeout) -> bool``: it returns once the app has handled the input
            it had queued and drawn the result (True), or at ``timeout`` (False). For apps whose input is
            handled out of the X client's sight (Chromium hands it to a renderer process); "" for none.
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
    packages: tuple[str, ...] = ()
    doctor: tuple[str, ...] = ()
    domain: str = ""
    file_types: tuple[str, ...] = ()
    save_keys: tuple[str, ...] = ()
    readiness: str = ""
    launch_hook: str = ""
    ready_hook: str = ""
    present_hook: str = ""

    def __post_init__(self) -> None:
        if not self.key.isidentifier() or self.key != self.key.lower():
            raise ValueError(f"AppSpec.key must be a lowercase identifier, got {self.key!r}")
        if self.launch not in LAUNCH_KINDS:
            raise ValueError(f"AppSpec.launch of {self.key!r} must be one of {LAUNCH_KINDS}, got {self.launch!r}")
        if self.launch != "none" and not (self.command and self.window_class):
            raise ValueError(f"AppSpec {self.key!r}: a launched app needs a command and a window_class")
        if isinstance(self.tools, str) and not _is_entry_point(self.tools):
            raise ValueError(f"AppSpec.tools of {self.key!r} must be 'package.module:Class', got {self.tools!r}")
        for name in ("launch_hook", "ready_hook"):
            hook = getattr(self, name)
            if hook and not _is_entry_point(hook):
                raise ValueError(f"AppSpec.{name} of {self.key!r} must be 'package.module:function', got {hook!r}")
        if not self.readiness:
            default = {"libreoffice": "uno", "command": "marker" if self.ready_marker else "window", "none": "none"}
            object.__setattr__(self, "readiness", default[self.launch])
        if self.readiness not in READINESS_KINDS:
            raise ValueError(
                f"AppSpec.readiness of {self.key!r} must be one of {READINESS_KINDS}, got {self.readiness!r}"
            )
        if not self.domain:
            object.__setattr__(self, "domain", self.key)

    @property
    def launchable(self) -> bool:
        """Whether the launcher can start it (tasks may list it in ``apps``)."""
        return self.launch != "none"


def tools_entry_point(key: str, tools: str) -> str:
    """``tools`` as ``"package.module:Class"``: a bare class name is one in ``desktop_gym.apps.<key>.tools``."""
    return tools if ":" in tools else f"desktop_gym.apps.{key}.tools:{tools}"


def command_app(
    key: str,
    *,
    command: str = "",
    tools: str = "",
    hooks: str = "",
    doctor: tuple[str, ...] = (),
    **fields: Any,
) -> AppSpec:
    """The spec of an app started as a program of its own, by the layout of ``desktop_gym/apps/<key>/``.

    Args:
        key: The app's key.
        command: The program (default: ``key``); also the default window class and ``doctor`` check.
        tools: Its API: ``"package.module:Class"``, or a class name in ``desktop_gym.apps.<key>.tools``;
            "" for none.
        hooks: ``name`` when ``desktop_gym.apps.<key>.launch`` has the hooks ``name_argv`` and
            ``wait_name_ready``; "" for none.
        doctor: Programs ``desktop-gym doctor`` checks (default: the command).
        **fields: The other :class:`AppSpec` fields (``window_class`` among them).
    """
    command = command or key
    fields.setdefault("window_class", command)
    if tools:
        fields["tools"] = tools_entry_point(key, tools)
    if hooks:
        fields["launch_hook"] = f"desktop_gym.apps.{key}.launch:{hooks}_argv"
        fields["ready_hook"] = f"desktop_gym.apps.{key}.launch:wait_{hooks}_ready"
    return AppSpec(key=key, launch="command", command=(command,), doctor=doctor or (command,), **fields)


class _AppTable(dict):  # type: ignore[type-arg]
    """App key -> spec, filled from the ``desktop_gym.apps`` entry points on first read."""

    loaded = False

    def _load(self) -> None:
        if not _AppTable.loaded:
            _AppTable.loaded = True
            from .plugins import load_apps

            load_apps(register_app)

    def __getitem__(self, key: str) -> AppSpec:
        self._load()
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._load()
        return super().__contains__(key)

    def __iter__(self):  # type: ignore[no-untyped-def]
        self._load()
        return super().__iter__()

    def __len__(self) -> int:
        self._load()
        return super().__len__()

    def get(self, key: str, default: Any = None) -> Any:
        self._load()
        return super().get(key, default)

    def items(self):  # type: ignore[no-untyped-def]
        self._load()
        return super().items()

    def keys(self):  # type: ignore[no-untyped-def]
        self._load()
        return super().keys()

    def values(self):  # type: ignore[no-untyped-def]
        self._load()
        return super().values()


APP_SPECS: dict[str, AppSpec] = _AppTable()
"""Every registered app, in registration order: the built-in apps' entry points first."""


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


def reload_apps() -> None:
    """Read the ``desktop_gym.apps`` entry points again (after installing a plugin in this process);
    apps added with :func:`register_app` since are dropped."""
    dict.clear(APP_SPECS)
    _AppTable.loaded = False


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
