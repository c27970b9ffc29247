#!/usr/bin/env bash
# Runs the whole test suite (`npm test`) in two fresh clones of this repository
# AT ONCE, while busy processes load the CPU and the disk, and reports both
# results. It proves that the suite shares nothing with another run of itself
# (ports, folders, files, caches) and that its waits hold on a loaded machine.
# See docs/reliability.md ("Two copies of the suite under load").
#
#   scripts/suite-under-load.sh [options]
#
#   --link-node-modules   link this checkout's node_modules into both clones
#                         instead of running `npm ci` in each (saves minutes;
#                         node_modules is only read by the suite)
#   --spinners N          CPU spinners (default: nproc)
#   --writers N           disk writers that write 8 MiB and fsync, in a loop (default: 2)
#   --keep                keep the clones (the temporary folder) for inspection
#   --out DIR             where the logs and Jest's JSON results are kept
#                         (default: a new folder suite-under-load-<time> in $TMPDIR or /tmp)
#   -h, --help            this text
#   -- ARGS...            passed on to Jest in both clones (e.g. test paths, to
#                         run part of the suite under the same load)
#
# The clones are of HEAD (commit it first: uncommitted changes are not in
# them). The environment is passed on to both suites, with on top a few of
# the service's settings that a developer may have exported (PORT=3000, an
# API_KEYS, one AGENT_LEDGER_DATA_DIR for both): the suite must not read them.
# Exits 0 when both suites passed, 1 when either failed, 2 on a usage or
# set-up error, 130 when interrupted. Every process it started is stopped and
# the temporary folder removed on exit, also on Ctrl-C or SIGTERM.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }

link_node_modules=false
spinners=$(nproc)
writers=2
keep=false
out=''
while [ $# -gt 0 ]; do
  case "$1" in
    --link-node-modules) link_node_modules=true ;;
    --spinners) spinners="${2:?--spinners needs a number}"; shift ;;
    --writers) writers="${2:?--writers needs a number}"; shift ;;
    --keep) keep=true ;;
    --out) out="${2:?--out needs a folder}"; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "suite-under-load: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$spinners$writers" in *[!0-9]*) echo 'suite-under-load: --spinners and --writers take a whole number' >&2; exit 2 ;; esac

repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
commit=$(git -C "$repo" rev-parse HEAD)
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  echo "suite-under-load: note: $repo has uncommitted changes; the clones hold HEAD ($commit) only" >&2
fi
if $link_node_modules && [ ! -d "$repo/node_modules" ]; then
  echo "suite-under-load: --link-node-modules: $repo/node_modules does not exist (run npm ci there first)" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/suite-under-load-work-XXXXXX")
if [ -z "$out" ]; then out=$(mktemp -d "${TMPDIR:-/tmp}/suite-under-load-$(date -u +%Y%m%dT%H%M%SZ)-XXXX"); fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Every background process we start leads a session of its own (setsid), so
# that stopping it stops everything it started too (npm -> jest -> workers ->
# services, including a service that detached into a process group of its own):
# the processes of those sessions, found by session id, and nothing else.
sessions=()
in_session() { ps -e -o pid=,sid=,stat= | awk -v s="$1" '$2 == s && $3 !~ /^Z/ { print $1 }'; }
signal_sessions() {
  local sid pid
  for sid in "${sessions[@]}"; do
    for pid in $(in_session "$sid"); do kill "-$1" "$pid" 2>/dev/null || true; done
  done
}
cleaned=false
cleanup() {
  $cleaned && return
  cleaned=true
  signal_sessions TERM
  # Give the suites' processes a moment to stop, then make sure.
  local _ sid left
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    left=''
    for sid in "${sessions[@]}"; do left+=$(in_session "$sid"); done
    [ -z "$left" ] && break
    sleep 1
  done
  signal_sessions KILL
  if $keep; then echo "suite-under-load: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'echo "suite-under-load: interrupted" >&2; cleanup; exit 130' INT TERM HUP

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$out/summary.txt"; }

log "commit $commit; clones in $work; logs and results in $out"
for copy in a b; do
  git clone --quiet --no-hardlinks "$repo" "$work/$copy"
  git -C "$work/$copy" checkout --quiet --detach "$commit"
done

prepare_started=$(date +%s)
if $link_node_modules; then
  modules=$(readlink -f "$repo/node_modules")
  for copy in a b; do ln -s "$modules" "$work/$copy/node_modules"; done
  log "node_modules linked from $modules"
else
  for copy in a b; do
    log "npm ci in $copy"
    (cd "$work/$copy" && npm ci --no-audit --no-fund >"$out/npm-ci-$copy.log" 2>&1) || {
      log "npm ci failed in $copy: see $out/npm-ci-$copy.log"
      exit 2
    }
  done
  log "npm ci done in $(($(date +%s) - prepare_started)) s"
fi

# The load: CPU spinners, and writers that write and fsync in a loop (each on a file of its own).
mkdir -p "$work/load"
for i in $(seq 1 "$spinners"); do
  setsid sh -c 'while :; do :; done' &
  sessions+=("$!")
done
for i in $(seq 1 "$writers"); do
  setsid sh -c 'while :; do dd if=/dev/zero of="$1" bs=1M count=8 conv=fsync status=none; done' writer "$work/load/writer-$i" &
  sessions+=("$!")
done
log "load: $spinners CPU spinners, $writers writers (8 MiB + fsync, in a loop) on $(nproc) cores"

# Settings that must not leak into the suite (test/support/clean-environment.ts removes them).
shared_data_dir="$work/exported-data-dir"
mkdir -p "$shared_data_dir"
started=$(date +%s)
declare -A suite_pid
for copy in a b; do
  (
    cd "$work/$copy"
    exec setsid env PORT=3000 API_KEYS='leaked-from-the-shell' AGENT_LEDGER_DATA_DIR="$shared_data_dir" \
      npm test -- --json --outputFile="$out/jest-$copy.json" "$@" >"$out/npm-test-$copy.log" 2>&1
  ) &
  suite_pid[$copy]=$!
  sessions+=("$!")
done
log "npm test started in a and b at once"

declare -A code seconds
for copy in a b; do
  set +e
  wait "${suite_pid[$copy]}"
  code[$copy]=$?
  set -e
  seconds[$copy]=$(($(date +%s) - started))
  log "suite $copy ended (exit ${code[$copy]}) after ${seconds[$copy]} s"
done

# Stop the load before reading the results.
signal_sessions TERM

failed=false
for copy in a b; do
  json="$out/jest-$copy.json"
  if [ ! -s "$json" ]; then
    log "suite $copy: no Jest result (exit ${code[$copy]}); see $out/npm-test-$copy.log"
    failed=true
    continue
  fi
  summary=$(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const failedTests = [];
    for (const file of r.testResults) {
      for (const t of file.assertionResults) if (t.status === "failed") failedTests.push(`  FAILED ${file.name.replace(process.argv[2] + "/", "")}: ${t.fullName}`);
      if (file.status === "failed" && file.assertionResults.every((t) => t.status !== "failed")) failedTests.push(`  FAILED ${file.name.replace(process.argv[2] + "/", "")}: ${(file.message || "").split("\n").find((l) => l.trim() !== "") || "the file failed"}`);
    }
    console.log(`passed ${r.numPassedTests}, failed ${r.numFailedTests}, pending ${r.numPendingTests + r.numTodoTests}, total ${r.numTotalTests}; suites ${r.numPassedTestSuites}/${r.numTotalTestSuites} passed; success ${r.success}`);
    for (const line of failedTests) console.log(line);
    process.exitCode = r.success ? 0 : 1;
  ' "$json" "$work/$copy") && ok=true || ok=false
  log "suite $copy (wall ${seconds[$copy]} s): $summary"
  if ! $ok || [ "${code[$copy]}" -ne 0 ]; then failed=true; fi
done

if $failed; then
  log "RESULT: FAILED"
  exit 1
fi
log "RESULT: both suites passed"
