#!/usr/bin/env bash
# Runs every BeaconNet test: unit tests, tests over ../shared/testdata, and integration tests against
# real mosquitto brokers that the tests start on free loopback ports and stop again, and, on its
# own, the live-scan test (beacon-edge against Linux's Bluetooth stack in a qemu virtual machine).
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

"$root/deploy/scripts/install-deps.sh"

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
# The live-scan test first and on its own: its virtual machine takes both cores for about a minute
# and would slow the timed integration tests down. Both run whatever the other's outcome.
status=0
echo "test: running the live-scan test (beacon-edge under Linux in qemu; docs/LIVE-SCAN.md)" >&2
timeout --signal=INT --kill-after=30 900 swift test --skip-build --filter LiveScanTests || status=$?
echo "test: running all the other tests" >&2
timeout --signal=INT --kill-after=30 2400 swift test --skip-build --skip LiveScanTests || status=$?

# After the tests, so that a finding never hides a test failure and CI's time goes to the tests first.
if [[ ${BEACONNET_SKIP_FUZZ:-0} == 1 ]]; then
    echo "test: fuzzing skipped (BEACONNET_SKIP_FUZZ=1)" >&2
else
    "$root/deploy/scripts/fuzz.sh" "${BEACONNET_FUZZ_SECONDS:-60}" || status=$?
fi
exit "$status"
