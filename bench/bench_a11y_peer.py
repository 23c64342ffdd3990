"""The tree walk over each application's own socket (``a11y_peer``) against the walk through libatspi.

Run: ``.venv/bin/python bench/bench_a11y_peer.py [--app calc|writer] [--rounds 21] [--json OUT]``.
Starts its own Xvfb, session bus, openbox and office (as ``bench_a11y.py`` does), then, in paired
rounds with the order rotated, times the observation's tree read (``a11y.linearize_tree``, visible
nodes, at most 300, the grid's cells named by UNO) two ways:

- ``libatspi``: ``peer=False``, the baseline: a node's children cost one ``ChildCount`` read, one
  ``GetChildAtIndex`` call each and one ``GetState`` each, hidden ones included;
- ``peer``: ``peer=True``, the default: the office's own socket, one ``Collection.GetMatches`` call
  per node listing its shown children.

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
    def walk(peer: bool) -> str:
        return a11y.linearize_tree(True, MAX_NODES, grid_contents=grid, peer=peer)  # type: ignore[arg-type]

    calls = [0]
    call = a11y_peer.PeerConnection.call

    def counted(self: a11y_peer.PeerConnection, *args: object) -> object:
        calls[0] += 1
        return call(self, *args)  # type: ignore[arg-type]

    a11y_peer.PeerConnection.call = counted  # type: ignore[method-assign]
    walk(True)
    a11y_peer.PeerConnection.call = call  # type: ignore[method-assign]
    paths: dict[str, Callable[[], str]] = {"libatspi": lambda: walk(False), "peer": lambda: walk(True)}
    seconds: dict[str, list[float]] = {name: [] for name in paths}
    names, differing = list(paths), 0
    for round_ in range(rounds):
        texts = {}
        for name in names[round_ % 2 :] + names[: round_ % 2]:
            started = time.perf_counter()
            texts[name] = paths[name]()
            seconds[name].append(time.perf_counter() - started)
        differing += texts["libatspi"] != texts["peer"]
    ratio = statistics.median(p / w for p, w in zip(seconds["peer"], seconds["libatspi"], strict=True))
    return {"seconds": seconds, "ratio": ratio, "differing": differing, "calls": calls[0]}


def main() -> None:
    args = bench_a11y_getitems.arguments(__doc__.splitlines()[0])
    load_before = os.getloadavg()[0]
    result = measure(args.app, args.rounds)
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    note = (
        f"{result['differing']} of {args.rounds} rounds gave different texts; "
        f"one peer walk: {result['calls']} D-Bus calls on the office's socket"
    )
    print(f"{args.app}: {note} ({os.cpu_count()} cores, {load})")
    rows = [[name, bench_a11y_getitems._ms(values)] for name, values in result["seconds"].items()]  # type: ignore[union-attr]
    for name, cell in rows:
        print(f"  {name:<9} p50 {cell}")
    ratio = f"x{result['ratio']:.2f}"
    print(f"  peer / libatspi, paired p50: {ratio}")
    table = {"columns": ["path", f"{args.app} p50 (min-max)"], "rows": [*rows, ["peer / libatspi", ratio]]}
    title = f"The tree walk over the office's own socket against libatspi ({args.app})"
    write_result(args, load, __file__, title, [note], [table])


if __name__ == "__main__":
    main()
