#!/usr/bin/env bash
# Runs every BeaconNet test: unit tests, tests over ../shared/testdata, and integration tests against
# real mosquitto brokers that the tests start on free loopback ports and stop again, and, on its
# own, the tests in qemu virtual machines (beacon-edge against Linux's Bluetooth stack, and the
# edge's and the aggregator's units started by systemd).
#
#   deploy/scripts/test.sh            # what .ci/run calls
#   deploy/scripts/test.sh ARGS…      # swift test ARGS… only (e.g. --filter LiveScanTests)
#   BEACONNET_SKIP_FUZZ=1 deploy/scripts/test.sh      # the same without the fuzzing (quick local runs)
#   BEACONNET_FUZZ_SECONDS=20 deploy/scripts/test.sh  # 20 s per fuzz target instead of 60
#
# Fails on any compiler warning in the project's own code (Swift 6, strict concurrency, no warnings).
# After the tests, a bounded coverage-guided fuzzing run of the parsers that face the outside
# (deploy/scripts/fuzz.sh, docs/TESTING.md): about 60 s per target, six targets.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
[[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"

# What the programs need, and the tests' extras (the live-scan VM, chromium, promtool, systemd-analyze).
"$root/deploy/scripts/install-deps.sh" --test

log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "test: building (debug, with tests)" >&2
if ! swift build --build-tests 2>&1 | tee "$log"; then
    echo "test: build failed" >&2
    exit 1
fi
# Warnings in our own sources only (dependencies are not ours to fix).
if grep -E "^$root/(Sources|Tests|Benchmarks)/.*: warning:" "$log" | sort -u | grep .; then
    echo "test: the warnings above must be fixed (the project builds warning-free)" >&2
    exit 1
fi

# Bounds so that a hung test fails the run instead of eating CI's 90 minutes.
if (($#)); then
    echo "test: running swift test $*" >&2
    timeout --signal=INT --kill-after=30 2400 swift test --skip-build "$@"
    exit
fi
# Four runs, one after another, so that CPU-bound suites never starve the timed ones: the two
# virtual machines' tests (each takes both cores: the live scan about a minute, systemd several
# minutes); the pure suites (the engine, the simulator and its real-recording tables, the wire and
# the parsers: CPU-bound, no timing); then everything that runs real brokers and programs. Each
# runs whatever the others' outcome.
pure="BeaconCoreTests|BeaconWireTests|BeaconEngineTests|BeaconSimTests|BeaconCommandLineTests"
status=0
skipped=0
summary=()
# Each phase's line counts its tests passed, failed and skipped, with the reasons for the skips
# (deploy/scripts/test-summary.sh): a phase whose tests were all skipped says so, not "passed".
phase() {
    local name=$1 limit=$2; shift 2
    local out started=$SECONDS code=0 lines line
    out=$(mktemp)
    echo "test: $name" >&2
    timeout --signal=INT --kill-after=30 "$limit" swift test --skip-build "$@" 2>&1 | tee "$out" || code=$?
    mapfile -t lines < <("$root/deploy/scripts/test-summary.sh" "$out" "$code")
    rm -f "$out"
    summary+=("$(printf '%-34s %4d s  %s' "$name" $((SECONDS - started)) "${lines[0]}")")
    for line in "${lines[@]:1}"; do
        summary+=("$(printf '%-42s%s' "" "$line")")
        skipped=$((skipped + ${line%% *}))
    done
    if ((code != 0)); then
        status=$code
    elif [[ ${lines[0]} == FAILED* ]]; then
        status=1
    fi
}
phase "live scan (qemu)" 1500 --filter LiveScanTests
phase "systemd (qemu)" 1800 --filter SystemdVMTests
phase "pure suites" 2400 --filter "$pure"
phase "brokers and programs" 2400 --skip "$pure|LiveScanTests|SystemdVMTests"

# After the tests, so that a finding never hides a test failure and CI's time goes to the tests first.
if [[ ${BEACONNET_SKIP_FUZZ:-0} == 1 ]]; then
    echo "test: fuzzing skipped (BEACONNET_SKIP_FUZZ=1)" >&2
    summary+=("$(printf '%-34s %4d s  %s' "fuzzing (deploy/scripts/fuzz.sh)" 0 "skipped: BEACONNET_SKIP_FUZZ=1")")
else
    started=$SECONDS
    fuzz=0
    "$root/deploy/scripts/fuzz.sh" "${BEACONNET_FUZZ_SECONDS:-60}" || fuzz=$?
    summary+=("$(printf '%-34s %4d s  %s' "fuzzing (deploy/scripts/fuzz.sh)" $((SECONDS - started)) "$( ((fuzz == 0)) && echo "no finding" || echo "FAILED (exit $fuzz)")")")
    ((fuzz == 0)) || status=$fuzz
fi
echo >&2
echo "test: summary" >&2
printf '  %s\n' "${summary[@]}" >&2
if ((status != 0)); then
    echo "test: FAILED (exit $status)" >&2
elif ((skipped > 0)); then
    echo "test: passed, with $skipped tests skipped (the reasons above)" >&2
else
    echo "test: all passed" >&2
fi
exit "$status"
