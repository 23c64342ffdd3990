#!/usr/bin/env bash
# The test command: the core test suite, then the heavy stages (each with its own time budget),
# the docs build, then the proof of new and changed tasks and a rotating sample of the rest on a real desktop,
# then a rotating sample of the mined suite. Prints a stage table at the end.
# Usage: bash scripts/test.sh [STAGE ...]   (default: every stage, in order)
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
# Heavy stages: "name|budget seconds|pytest marker|test folders". Their tests carry the marker and
# are left out of the core run; a stage collects only its folders (collecting everything imports
# torch, ray, openrlhf and verl: ~15 s a run; tests/test_stage_folders.py keeps the folders true).
# A stage whose marker selects no test yet passes (pytest exit 5).
HEAVY_STAGES=(
  "serve|600|stage_serve|tests/serve tests/evaluation"
  "train|420|stage_train|tests/train"
  "adapters|1200|stage_adapters|tests/adapters"
  "browser|300|stage_browser|tests/web"
  "apigen|240|stage_apigen|tests/api_generators"
  "load|720|stage_load|tests/env tests/serve"
)
status=0
summary=()
selected=("$@")
wanted() { [ ${#selected[@]} -eq 0 ] && return 0; local s; for s in "${selected[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
record() {  # name budget started rc
  local seconds=$(( $(date +%s) - $3 )) verdict=ok
  [ "$4" -ne 0 ] && verdict=FAILED && status=1
  [ "$seconds" -gt "$2" ] && verdict="$verdict, OVER BUDGET"
  summary+=("$(printf '%-10s %5ss of %5ss  %s' "$1" "$seconds" "$2" "$verdict")")
}
not_heavy="not proofs"
for entry in "${HEAVY_STAGES[@]}"; do IFS='|' read -r _ _ marker _ <<<"$entry"; not_heavy="$not_heavy and not $marker"; done

if wanted core; then
  started=$(date +%s)
  # Any skip not on tests/skip_allowlist.txt fails the core run (tests/support/skip_policy.py).
  DESKTOP_GYM_SKIP_ALLOWLIST=tests/skip_allowlist.txt "$PY" -m pytest -q -ra --durations=15 -m "$not_heavy"
  rc=$?
  [ "$rc" -eq 5 ] && echo "pytest collected no tests"
  record core 1800 "$started" "$rc"
fi
for entry in "${HEAVY_STAGES[@]}"; do
  IFS='|' read -r name budget marker folders <<<"$entry"
  wanted "$name" || continue
  started=$(date +%s)
  # shellcheck disable=SC2086  # the folders are words
  "$PY" -m pytest -q -ra --durations=5 -m "$marker" -p no:cacheprovider $folders
  rc=$?
  [ "$rc" -eq 5 ] && rc=0
  record "$name" "$budget" "$started" "$rc"
done
if wanted docs; then
  started=$(date +%s)
  # The docs site, offline and strict: a broken link, a page missing from the nav or a benchmark
  # result file no page shows fails it (docs/hooks/bench_results.py). Output in site/ (ignored).
  # Not --quiet: it hides the warnings that --strict counts, and the build would pass.
  NO_MKDOCS_2_WARNING=1 "$PY" -m mkdocs build --strict --site-dir site
  record docs 60 "$started" "$?"
fi
if wanted proofs; then
  started=$(date +%s)
  # Every task new or changed since the committed proof record (tasks/proven.json, by the hash of the
  # files defining it), plus a rotating sample of the rest (the seed is the date, or
  # $DESKTOP_GYM_PROOF_SEED). The full proof: desktop-gym tasks check --jobs 2 --record.
  .venv/bin/desktop-gym tasks check --jobs 2 --changed --sample "${DESKTOP_GYM_PROOF_SAMPLE:-20}"
  record proofs 900 "$started" "$?"
fi
if wanted mined; then
  started=$(date +%s)
  # The mined suite (tasks/suites/mined, every task proven by tasks synth when it was mined; left
  # out of the proofs stage above): a rotating sample proven again in full on a real desktop, with
  # the episode-level attacks on some of it (the seed is the date, or $DESKTOP_GYM_PROOF_SEED).
  .venv/bin/desktop-gym tasks check --suite mined --jobs 2 --sample "${DESKTOP_GYM_MINED_SAMPLE:-10}" --attack-sample 4
  record mined 600 "$started" "$?"
fi
echo
echo "== stages (seconds used of budget)"
printf '%s\n' "${summary[@]}"
exit "$status"
