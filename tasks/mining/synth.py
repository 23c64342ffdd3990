"""``desktop-gym tasks synth``: mine proven tasks from programs of API calls run on a real desktop.

For each drawn group (a seed document, a program, its siblings; see ``programs``) every sibling's
API oracle is played on the desktop (``dry_run``). A sibling is kept only when all of these hold:

- its oracle episode succeeds: the app's saved state is exactly what the program's model says, so
  the instruction written from the model describes what the app did;
- the perturbed run fails its verifier: another sibling's saved document, i.e. the same program
  with the one free argument changed, run for real (on an env server, where the documents stay,
  the perturbed oracle is played as an episode of its own);
- the null agent fails (the verifier on the untouched document) and every file-level reward
  hacking attack fails (``reward_attacks``);
- its target state is new (no kept task has the same seed and end state) and its instruction is
  unambiguous (no other task has the same seed and instruction but another end state: the
  instruction would not fix the result, so both are dropped, a kept one at the end of the run).

Several runners (desktops, local or on an env server) mine at once, a group each; drawing, judging
and writing are serialised. Kept tasks are appended to ``<out>/<app>.jsonl`` (one definition a
line) as they are proven, with their proof in ``<out>/<app>.proofs.jsonl``; ``report`` writes what
was generated, kept and dropped.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...reward_attacks import run_file_attacks
from ...verifiers import get_verifier
from ..json_task import JsonTask
from .apps import MINED_APPS, MinedApp
from .dry_run import DryRun, DryRunner
from .paraphrase import apply_paraphrase
from .programs import Dropped, Group, sample_group, task_definition

MAX_GROUPS_PER_TASK = 4  # groups drawn at most per task asked for, so a run whose filters drop everything ends
EXAMPLES_PER_REASON = 5


def seed_key(definition: dict[str, Any]) -> str:
    """The seed document and the instruction: two tasks with the same key must have one end state."""
    blob = json.dumps([definition["setup"][0], definition["instruction"]], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def state_key(definition: dict[str, Any]) -> str:
    """Seed document and target state: two tasks with the same key are duplicates."""
    seed = definition["setup"][0]
    blob = json.dumps([seed.get("rows"), definition["verifier"]["args"]["expected"]], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass
class SynthResult:
    """What a run generated, kept and dropped, and how long it took."""

    app: str
    asked: int
    kept: list[dict[str, Any]] = field(default_factory=list)
    proofs: list[dict[str, Any]] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    groups: int = 0
    candidates: int = 0
    paraphrased: int = 0
    episodes: int = 0
    episode_seconds: float = 0.0
    seconds: float = 0.0

    def drop(self, reason: str, detail: str, count: int = 1) -> None:
        self.dropped[reason] += count
        shown = self.examples.setdefault(reason, [])
        if len(shown) < EXAMPLES_PER_REASON:
            shown.append(detail[:400])

    @property
    def per_minute(self) -> float:
        """Tasks kept (proven) per minute of wall time on this one desktop."""
        return 60.0 * len(self.kept) / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "app": self.app,
            "asked": self.asked,
            "kept": len(self.kept),
            "candidates": self.candidates,
            "groups": self.groups,
            "paraphrased": self.paraphrased,
            "dropped": dict(self.dropped),
            "examples": self.examples,
            "episodes": self.episodes,
            "episode_seconds": round(self.episode_seconds, 1),
            "seconds": round(self.seconds, 1),
            "kept_per_minute": round(self.per_minute, 2),
            "calls": dict(sorted(Counter(_tag(d, "calls:") for d in self.kept).items())),
            "call_kinds": dict(Counter(t for d in self.kept for t in d["tags"] if t.startswith("call:")).most_common()),
        }


def _tag(definition: dict[str, Any], prefix: str) -> str:
    return next((t[len(prefix) :] for t in definition["tags"] if t.startswith(prefix)), "?")


def prove_offline(
    definition: dict[str, Any], app: MinedApp, perturbed: bytes | None = None
) -> tuple[dict[str, Any], str | None]:
    """The checks that need no desktop: the perturbed run's document (when given), the null agent, the file attacks.

    Returns:
        the proof's entries and, when a check went wrong, the reason the task is dropped.
    """
    expected = definition["verifier"]["args"]["expected"]
    verify = get_verifier(app.verifier)
    proof: dict[str, Any] = {}
    if perturbed is not None:
        if verify(perturbed, expected).success:
            return proof, "perturbed passed"
        proof["perturbed"] = "fails"
    if verify(app.seed_bytes(definition["setup"][0]), expected).success:
        return proof, "null passed"
    proof["null"] = "fails"
    outcomes = run_file_attacks(JsonTask(definition), seed=0)
    judged = [o for o in outcomes if o.applicable]
    beaten = [o.attack for o in judged if o.passed]
    if beaten:
        return proof, f"attack passed: {beaten[0]}"
    if not judged:
        return proof, "attacks not applicable"
    proof["file_attacks"] = len(judged)
    return proof, None


@dataclass
class _Candidate:
    """One sibling after its desktop runs: its oracle run, and the perturbed run (a sibling's, or its own episode)."""

    definition: dict[str, Any]
    run: DryRun
    perturbed: DryRun | None = None


class Miner:
    """Draws groups, runs them, applies the filters and writes what it keeps (see the module docstring).

    Args:
        out: the suite folder (``<app>.jsonl`` is appended to; tasks already there count for dedup).
        runners: the desktops the oracles run on (one runner, or several: a group each at once).
        rng: the draws' generator.
        progress: called with the result after each group.
        paraphraser: rewrites a kept task's instruction (``paraphrase``); a rewrite that loses a
            fact is refused and the template instruction stays.
    """

    def __init__(
        self,
        out: Path,
        runners: DryRunner | Sequence[DryRunner],
        rng: np.random.Generator,
        app: str | MinedApp = "calc",
        progress: Callable[[SynthResult], None] | None = None,
        paraphraser: Callable[[str], str | None] | None = None,
    ) -> None:
        self.out = Path(out)
        self.runners = [runners] if isinstance(runners, DryRunner) else list(runners)
        self.rng = rng
        self.app = MINED_APPS[app] if isinstance(app, str) else app
        self.progress = progress
        self.paraphraser = paraphraser
        self.shard = self.out / f"{self.app.name}.jsonl"
        self.proof_shard = self.out / f"{self.app.name}.proofs.jsonl"  # one proof a line, in the shard's order
        self.keys: set[str] = set()
        self.instructions: dict[str, str] = {}  # seed_key (seed and instruction) -> state key
        self.ambiguous: set[str] = set()
        self._lock = threading.Lock()  # draws, judging and writing; the desktop runs go on outside it
        for definition in read_shard(self.shard):
            self._remember(definition)

    def _remember(self, definition: dict[str, Any]) -> None:
        key = state_key(definition)
        self.keys.add(key)
        self.instructions.setdefault(seed_key(definition), key)

    def mine(self, count: int) -> SynthResult:
        """Keep ``count`` more proven tasks (fewer when the draws run out), with every runner at work."""
        result = SynthResult(self.app.name, count)
        started = time.monotonic()
        self.out.mkdir(parents=True, exist_ok=True)

        def work(runner: DryRunner) -> None:
            while True:
                with self._lock:
                    if len(result.kept) >= count or result.groups >= MAX_GROUPS_PER_TASK * count:
                        return
                    result.groups += 1
                    try:
                        group = sample_group(self.rng, self.app)
                    except Dropped as dropped:
                        result.drop(dropped.reason, dropped.detail)
                        continue
                candidates = self._run_group(group, runner, result)
                with self._lock:
                    for candidate in candidates:
                        if len(result.kept) < count:
                            self._judge(candidate, result)
                        else:  # not kept, but it may still show that a kept sibling's instruction is ambiguous
                            self._note_ambiguity(candidate)
                    result.seconds = time.monotonic() - started
                    if self.progress is not None:
                        self.progress(result)

        if len(self.runners) == 1:
            work(self.runners[0])
        else:
            with ThreadPoolExecutor(len(self.runners), thread_name_prefix="synth") as pool:
                for future in [pool.submit(work, runner) for runner in self.runners]:
                    future.result()
        self._drop_ambiguous(result)
        result.seconds = time.monotonic() - started
        return result

    def _drop_ambiguous(self, result: SynthResult) -> None:
        """Take out of the shard (and its proofs) the kept tasks an ambiguous later candidate shares its key with."""
        kept = read_shard(self.shard)
        gone = {d["id"] for d in kept if seed_key(d) in self.ambiguous}
        if not gone:
            return
        proofs = [p for p in read_shard(self.proof_shard) if p["id"] not in gone]
        self.shard.write_text("".join(json.dumps(d, sort_keys=True) + "\n" for d in kept if d["id"] not in gone))
        self.proof_shard.write_text("".join(json.dumps(p, sort_keys=True) + "\n" for p in proofs))
        result.kept = [d for d in result.kept if d["id"] not in gone]
        result.proofs = [p for p in result.proofs if p["id"] not in gone]
        for task_id in sorted(gone):
            result.drop("ambiguous", f"{task_id}: kept earlier, then another program gave the same instruction")

    def _run_group(self, group: Group, runner: DryRunner, result: SynthResult) -> list[_Candidate]:
        """Every sibling's oracle run, and its perturbed run: a sibling's saved document, else an episode."""
        definitions = [task_definition(group, i) for i in range(len(group.siblings))]
        candidates = [_Candidate(d, runner.run(d)) for d in definitions]
        for index, candidate in enumerate(candidates):
            others = [c.run for i, c in enumerate(candidates) if i != index and c.run.saved is not None]
            if others:
                candidate.perturbed = others[0]
            elif runner.remote and candidate.run.success:  # the documents stay on the server: play it
                value = candidate.definition["perturb"]["value"]
                candidate.perturbed = runner.run(candidate.definition, params={"v": value})
        with self._lock:
            runs = [c.run for c in candidates] + [
                c.perturbed for c in candidates if c.perturbed and c.perturbed.saved is None
            ]
            result.episodes += len(runs)
            result.episode_seconds += sum(run.seconds for run in runs)
            result.candidates += len(candidates)
        return candidates

    def _note_ambiguity(self, candidate: _Candidate) -> None:
        if candidate.run.success:
            seen = self.instructions.get(seed_key(candidate.definition))
            if seen is not None and seen != state_key(candidate.definition):
                self.ambiguous.add(seed_key(candidate.definition))

    def _judge(self, candidate: _Candidate, result: SynthResult) -> None:
        definition, run, perturbed = candidate.definition, candidate.run, candidate.perturbed
        task_id, instruction = definition["id"], definition["instruction"]
        said = seed_key(definition)
        if run.success is None:
            result.drop("api error", f"{task_id}: {run.reason}")
            return
        if not run.success:
            result.drop("oracle failed", f"{task_id}: {run.reason}")
            return
        if perturbed is None or perturbed.success is None and perturbed.saved is None:
            result.drop("no perturbed run", f"{task_id}: no sibling's run, nor its own perturbed episode, finished")
            return
        if perturbed.saved is None and perturbed.success:  # the perturbed episode (on a server) passed
            result.drop("perturbed passed", f"{task_id}: {perturbed.reason}")
            return
        proof, problem = prove_offline(definition, self.app, perturbed.saved)
        if problem is not None:
            result.drop(problem.split(":")[0], f"{task_id}: {problem}")
            return
        proof.setdefault("perturbed", "fails")
        key = state_key(definition)
        if key in self.keys:
            result.drop("duplicate", f"{task_id}: the same seed and end state as a kept task")
            return
        seen = self.instructions.get(said)
        if said in self.ambiguous or (seen is not None and seen != key):
            # One seed and instruction, two end states: neither is kept (a kept one goes at the end).
            self.ambiguous.add(said)
            result.drop("ambiguous", f"{task_id}: {instruction[:200]}")
            return
        self._remember(definition)
        if apply_paraphrase(definition, self.paraphraser):
            result.paraphrased += 1
        by = perturbed.task_id if perturbed.saved is not None else "its own perturbed episode"
        proof = {"id": task_id, "oracle": "passes", **proof, "perturbed_by": by, "seconds": round(run.seconds, 2)}
        with self.shard.open("a") as handle:
            handle.write(json.dumps(definition, sort_keys=True) + "\n")
        with self.proof_shard.open("a") as handle:
            handle.write(json.dumps(proof, sort_keys=True) + "\n")
        result.kept.append(definition)
        result.proofs.append(proof)


def read_shard(path: Path) -> list[dict[str, Any]]:
    """The definitions of a ``.jsonl`` shard (none when it does not exist)."""
    if not Path(path).is_file():
        return []
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
