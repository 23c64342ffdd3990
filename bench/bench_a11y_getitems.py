"""Could one ``Cache.GetItems`` call per app, or pipelined calls, replace the tree walk? Lower bounds.

Run: ``.venv/bin/python bench/bench_a11y_getitems.py [--app calc|writer] [--rounds 21] [--json OUT]``.
Starts its own Xvfb, session bus, openbox and office (as ``bench_a11y.py`` does), then, in paired
rounds, times:

- ``walk``: the observation's tree read (``a11y.linearize_tree``, visible nodes, at most 300);
- ``GetItems reply``: ``org.a11y.atspi.Cache.GetItems`` on the office's accessibility bus name,
  until the last byte of the reply has arrived on a raw socket (nothing decoded);
- ``per-node reads``: what a GetItems reader would still ask per shown node (box, text, the grid
  summary), i.e. what the bulk reply does not carry;
- ``pipelined reader``: a reader that sends every D-Bus call of a tree level before awaiting a
  reply (:class:`PipelinedReader`; children, states, roles, boxes and names, through Gio).

A reader built on GetItems costs at least ``reply + per-node reads`` (decoding not counted); the
table gives its paired ratio to the walk, and the pipelined reader's. It also counts the objects
the reply lists and the walk's visible nodes missing from it (the bridge builds its object set
from events).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_a11y import MAX_NODES  # noqa: E402

from desktop_gym.guest import a11y  # noqa: E402
from desktop_gym.guest.a11y_grid import uno_grid_contents  # noqa: E402
from desktop_gym.guest.apps import uno_bridge  # noqa: E402
from desktop_gym.polling import poll_until  # noqa: E402
from tests.support.soffice import start_a11y_session, start_soffice, stop_all  # noqa: E402

CACHE = ("/org/a11y/atspi/cache", "org.a11y.atspi.Cache", "GetItems")
READY_MARKER = {"calc": 'table "Sheet ', "writer": "document text"}


class RawBus:
    """A bare D-Bus connection: sends a method call, returns the reply's bytes undecoded."""

    def __init__(self, address: str) -> None:
        from gi.repository import Gio

        self._gio = Gio
        keys = dict(part.split("=", 1) for part in address.split(":", 1)[1].split(","))
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.connect(keys["path"] if "path" in keys else "\0" + keys["abstract"])
        self._sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        if not self._sock.recv(4096).startswith(b"OK"):
            raise RuntimeError(f"the accessibility bus {address} refused EXTERNAL authentication")
        self._sock.sendall(b"BEGIN\r\n")
        self._buffer, self._serial = b"", 0
        self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")

    def call(self, destination: str, path: str, interface: str, method: str) -> bytes:
        message = self._gio.DBusMessage.new_method_call(destination, path, interface, method)
        self._serial += 1
        message.set_serial(self._serial)
        self._sock.sendall(message.to_blob(self._gio.DBusCapabilityFlags.NONE))
        while True:  # signals may come first: skip small messages that do not answer this call
            blob = self._message()
            if len(blob) >= 4096:
                return blob
            reply = self._gio.DBusMessage.new_from_blob(blob, self._gio.DBusCapabilityFlags.NONE)
            if reply.get_reply_serial() == self._serial:
                return blob

    def _message(self) -> bytes:
        while len(self._buffer) < 16:
            self._buffer += self._sock.recv(1 << 20)
        needed = self._gio.DBusMessage.bytes_needed(self._buffer[:16])
        while len(self._buffer) < needed:
            self._buffer += self._sock.recv(1 << 20)
        blob, self._buffer = self._buffer[:needed], self._buffer[needed:]
        return blob


SHOWN_STATES = (1 << 25) | (1 << 30)  # ATSPI_STATE_SHOWING | ATSPI_STATE_VISIBLE, in the first word
MANAGES_DESCENDANTS = 1 << 31
ACCESSIBLE = "org.a11y.atspi.Accessible"


class PipelinedReader:
    """Reads the shown tree level by level, every call of a level sent before the first reply is awaited.

    Per level: the children of each shown node (one ``GetChildren`` each), the states of every child,
    then the role, box and name of each shown child. Text, grid summaries and the menu-bar offset
    are not read, so it does less than the walk: a lower bound for a pipelined D-Bus reader.
    """

    def __init__(self, bus: object, office: str) -> None:
        from gi.repository import GLib

        self._bus, self._office, self._glib = bus, office, GLib
        self._context = GLib.MainContext.default()

    def _batch(self, calls: list[tuple[str, str, str, object]]) -> list[object]:
        replies: list[object] = [None] * len(calls)
        pending = [len(calls)]

        def done(bus: object, result: object, index: int) -> None:
            try:
                replies[index] = bus.call_finish(result).unpack()  # type: ignore[attr-defined]
            except Exception as error:  # noqa: BLE001 - a node gone meanwhile: its reply is the error
                replies[index] = error
            pending[0] -= 1

        for index, (path, interface, method, args) in enumerate(calls):
            self._bus.call(self._office, path, interface, method, args, None, 0, 5000, None, done, index)  # type: ignore[attr-defined]
        while pending[0]:
            self._context.iteration(True)
        return replies

    def read(self) -> int:
        """Read the shown tree; how many shown nodes."""
        screen = self._glib.Variant("(u)", (0,))
        name = self._glib.Variant("(ss)", (ACCESSIBLE, "Name"))
        frontier, shown = ["/org/a11y/atspi/accessible/root"], 0
        while frontier:
            listed = self._batch([(path, ACCESSIBLE, "GetChildren", None) for path in frontier])
            children = [child for reply in listed if isinstance(reply, tuple) for _bus, child in reply[0]]
            states = self._batch([(child, ACCESSIBLE, "GetState", None) for child in children])
            visible = [
                (child, state[0][0])
                for child, state in zip(children, states, strict=True)
                if isinstance(state, tuple) and state[0][0] & SHOWN_STATES == SHOWN_STATES
            ]
            calls = []
            for child, _word in visible:
                calls += [
                    (child, ACCESSIBLE, "GetRole", None),
                    (child, "org.a11y.atspi.Component", "GetExtents", screen),
                    (child, "org.freedesktop.DBus.Properties", "Get", name),
                ]
            self._batch(calls)
            shown += len(visible)
            frontier = [child for child, word in visible if not word & MANAGES_DESCENDANTS]
        return shown


def _document(work: Path, app: str) -> Path:
    if app == "calc":
        import openpyxl

        workbook = openpyxl.Workbook()
        for row in range(1, 6):
            workbook.active.append([f"item {row}", row * 10, row * 2.5])
        workbook.save(work / "budget.xlsx")
        return work / "budget.xlsx"
    import docx

    document = docx.Document()
    document.add_heading("Report", 1)
    for index in range(6):
        document.add_paragraph(f"Paragraph {index} with some text in it.")
    document.save(work / "report.docx")
    return work / "report.docx"


def _accessibility_bus() -> tuple[str, object]:
    """The accessibility bus address and a Gio connection to it."""
    from gi.repository import Gio, GLib

    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    session = Gio.DBusConnection.new_for_address_sync(os.environ["DBUS_SESSION_BUS_ADDRESS"], flags, None, None)
    bus = ("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress")
    address = session.call_sync(*bus, None, GLib.VariantType("(s)"), 0, 5000, None).unpack()[0]
    return address, Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def measure(app: str, rounds: int, run: Callable[[object, int], dict[str, object]] | None = None) -> dict[str, object]:
    """Start a desktop and ``app`` on its document, then ``run(grid contents, rounds)`` (default: this bench's)."""
    procs: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="bench-getitems-") as work_dir:
        work = Path(work_dir)
        try:
            env = start_a11y_session(work, procs)
            for key in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"):
                os.environ[key] = env[key]
            soffice, pipe = start_soffice(work, _document(work, app), env, work / "cache", module=f"--{app}")
            procs.append(soffice)
            connection = uno_bridge.wait_for_uno(pipe, timeout=60)
            grid = uno_grid_contents(lambda: [connection])
            ready = READY_MARKER[app]
            poll_until(lambda: ready in a11y.linearize_tree(), 60, f"the {app} document", retry_on=(a11y.A11yError,))
            return (run or _rounds)(grid, rounds)
        finally:
            stop_all(procs)


def _rounds(grid: object, rounds: int) -> dict[str, object]:
    address, gio_bus = _accessibility_bus()
    with a11y.locked_bus() as atspi:
        desktop = atspi.get_desktop(0)
        apps = [desktop.get_child_at_index(i) for i in range(desktop.get_child_count())]
        office = next(app.app.bus_name for app in apps if app.get_name() == "soffice")
        a11y._begin(5.0)
        shown = [
            (visit.node, role, box)
            for visit, role, _states, box in a11y._walk(True, time.monotonic() + 10, atspi, peer=False)
            if role != "application"
        ]
    items = gio_bus.call_sync(office, *CACHE, None, None, 0, 10000, None).unpack()[0]  # type: ignore[attr-defined]
    listed = {item[0][1] for item in items}
    missing = sum(1 for node, _role, _box in shown if node.path not in listed)
    raw = RawBus(address)
    pipelined = PipelinedReader(gio_bus, office)

    def per_node() -> None:
        with a11y.locked_bus() as atspi:
            for node, role, box in shown:
                a11y._extents(node, atspi)
                a11y._text_of(node, role)
                if role == "table":
                    a11y._table_summary(node, box, atspi, time.monotonic() + 5, grid)  # type: ignore[arg-type]

    paths: dict[str, Callable[[], object]] = {
        "walk": lambda: a11y.linearize_tree(True, MAX_NODES, grid_contents=grid),  # type: ignore[arg-type]
        "GetItems reply": lambda: raw.call(office, *CACHE),
        "per-node reads": per_node,
        "pipelined reader, at least": pipelined.read,
    }
    seconds: dict[str, list[float]] = {name: [] for name in paths}
    names = list(paths)
    for round_ in range(rounds):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:  # rotate the order
            started = time.perf_counter()
            paths[name]()
            seconds[name].append(time.perf_counter() - started)
    bound = [a + b for a, b in zip(seconds["GetItems reply"], seconds["per-node reads"], strict=True)]
    ratio = statistics.median(x / y for x, y in zip(bound, seconds["walk"], strict=True))
    pipelined_ratio = statistics.median(
        x / y for x, y in zip(seconds["pipelined reader, at least"], seconds["walk"], strict=True)
    )
    return {
        "seconds": {**seconds, "GetItems reader, at least": bound},
        "ratio": ratio,
        "pipelined_ratio": pipelined_ratio,
        "objects": len(items),
        "shown": len(shown),
        "missing": missing,
    }


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"


def arguments(description: str) -> argparse.Namespace:
    """``--app``, ``--rounds`` and ``--json``, as the tree benchmarks take them."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--app", choices=sorted(READY_MARKER), default="calc")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--json", type=Path, help="also write a result file (bench/results/log format)")
    return parser.parse_args()


def main() -> None:
    args = arguments(__doc__.splitlines()[0])
    load_before = os.getloadavg()[0]
    result = measure(args.app, args.rounds)
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    print(
        f"{args.app}: {result['objects']} objects in GetItems, {result['shown']} shown nodes walked, "
        f"{result['missing']} of them missing from GetItems ({os.cpu_count()} cores, {load})"
    )
    rows = [[name, _ms(values)] for name, values in result["seconds"].items()]  # type: ignore[union-attr]
    for name, cell in rows:
        print(f"  {name:<26} p50 {cell}")
    print(f"  GetItems reader / walk, paired p50: x{result['ratio']:.2f}")
    print(f"  pipelined reader / walk, paired p50: x{result['pipelined_ratio']:.2f}")
    if args.json:
        table = {
            "columns": ["path", f"{args.app} p50 (min-max)"],
            "rows": [
                *rows,
                ["reader / walk", f"x{result['ratio']:.2f}"],
                ["pipelined reader / walk", f"x{result['pipelined_ratio']:.2f}"],
            ],
        }
        record = {
            "title": f"Cache.GetItems against the tree walk ({args.app})",
            "benchmark": "bench/bench_a11y_getitems.py",
            "command": f".venv/bin/python bench/bench_a11y_getitems.py --app {args.app} --rounds {args.rounds}",
            "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{os.cpu_count()} cores",
            "load": load,
            "notes": [f"{result['objects']} objects listed; {result['missing']} of {result['shown']} shown missing"],
            "tables": [table],
        }
        args.json.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
