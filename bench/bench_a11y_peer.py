"""The tree walk over each application's own socket (``a11y_peer``) against the walk through libatspi.

Run: ``.venv/bin/python bench/bench_a11y_peer.py [--app calc|writer] [--rounds 21] [--json OUT]``.
Starts its own Xvfb, session bus, openbox and office (as ``bench_a11y.py`` does), then, in paired
rounds with the order rotated, times the observation's tree read (``a11y.linearize_tree``, visible
nodes, at most 300, the grid's cells named by UNO) two ways:

- ``libatspi``: ``peer=False``, the baseline: a node's children cost one ``ChildCount`` read, one
  ``GetChildAtIndex`` call each and one ``GetState`` each, hidden ones included;
- ``peer``: ``peer=True`` with ``a11y_peer.read_ahead`` off: the office's own socket, one
  ``Collection.GetMatches`` call per node listing its shown children;
- ``peer, read ahead``: the default: as ``peer``, and the shown children's states, name, box and
  child count asked for in one write (a leaf is not asked for its children).

Then, in paired rounds, the first walk of a window (the static cache emptied, as after a reset)
with the roles and interfaces of objects not yet known read ahead too (the default) or asked for
one at a time.

Every round also checks that both give the same text, and the D-Bus calls of one peer walk are counted.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_a11y_getitems  # noqa: E402
from bench_a11y import MAX_NODES  # noqa: E402
from bench_document_swap import write_result  # noqa: E402

from desktop_gym.guest import a11y, a11y_peer  # noqa: E402


def measure(app: str, rounds: int) -> dict[str, object]:
    return bench_a11y_getitems.measure(app, rounds, run=_rounds)


def _rounds(grid: object, rounds: int) -> dict[str, object]:
    def walk(peer: bool, ahead: bool = True) -> str:
        a11y_peer.read_ahead = ahead
        try:
            return a11y.linearize_tree(True, MAX_NODES, grid_contents=grid, peer=peer)  # type: ignore[arg-type]
        finally:
            a11y_peer.read_ahead = True

    counts = {"calls": 0, "writes": 0}
    call_many = a11y_peer.PeerConnection.call_many

    def counted(self: a11y_peer.PeerConnection, calls: list) -> object:
        counts["calls"] += len(calls)
        counts["writes"] += 1
        return call_many(self, calls)

    a11y_peer.PeerConnection.call_many = counted  # type: ignore[method-assign]
    walk(True)
    a11y_peer.PeerConnection.call_many = call_many  # type: ignore[method-assign]
    paths: dict[str, Callable[[], str]] = {
        "libatspi": lambda: walk(False),
        "peer": lambda: walk(True, ahead=False),
        "peer, read ahead": lambda: walk(True),
    }
    seconds: dict[str, list[float]] = {name: [] for name in paths}
    names, differing = list(paths), 0
    for round_ in range(rounds):
        texts = {}
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            started = time.perf_counter()
            texts[name] = paths[name]()
            seconds[name].append(time.perf_counter() - started)
        differing += len(set(texts.values())) > 1
    first = _first_sight(walk, rounds)
    base = seconds["libatspi"]
    ratios = {
        name: statistics.median(p / w for p, w in zip(values, base, strict=True))
        for name, values in seconds.items()
        if name != "libatspi"
    }
    return {"seconds": seconds, "ratios": ratios, "differing": differing, "first": first, **counts}


def _first_sight(walk: Callable[[bool], str], rounds: int) -> dict[str, list[float]]:
    """A walk of objects the static cache does not know yet (every reset's first walk), read ahead
    with and without the roles and interfaces of such objects (``a11y_peer._FIRST_SEEN``)."""
    seconds: dict[str, list[float]] = {"roles read ahead": [], "roles one at a time": []}
    kept = a11y_peer._FIRST_SEEN
    for round_ in range(rounds):
        for name in list(seconds)[round_ % 2 :] + list(seconds)[: round_ % 2]:
            a11y._KEPT_PROPERTIES._known.clear()
            a11y_peer._FIRST_SEEN = kept if name == "roles read ahead" else ()
            started = time.perf_counter()
            walk(True)
            seconds[name].append(time.perf_counter() - started)
    a11y_peer._FIRST_SEEN = kept
    return seconds


def main() -> None:
    args = bench_a11y_getitems.arguments(__doc__.splitlines()[0])
    load_before = os.getloadavg()[0]
    result = measure(args.app, args.rounds)
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    note = (
        f"{result['differing']} of {args.rounds} rounds gave different texts; "
        f"one walk read ahead: {result['calls']} D-Bus calls on the office's socket in {result['writes']} writes"
    )
    print(f"{args.app}: {note} ({os.cpu_count()} cores, {load})")
    rows = [[name, bench_a11y_getitems._ms(values)] for name, values in result["seconds"].items()]  # type: ignore[union-attr]
    for name, cell in rows:
        print(f"  {name:<9} p50 {cell}")
    for name, ratio in result["ratios"].items():  # type: ignore[union-attr]
        rows.append([f"{name} / libatspi", f"x{ratio:.2f}"])
        print(f"  {name} / libatspi, paired p50: x{ratio:.2f}")
    for name, values in result["first"].items():  # type: ignore[union-attr]
        rows.append([f"first walk of a window, {name}", bench_a11y_getitems._ms(values)])
        print(f"  first walk of a window, {name}: p50 {rows[-1][1]}")
    table = {"columns": ["path", f"{args.app} p50 (min-max)"], "rows": rows}
    title = f"The tree walk over the office's own socket against libatspi ({args.app})"
    write_result(args, load, __file__, title, [note], [table])


if __name__ == "__main__":
    main()
