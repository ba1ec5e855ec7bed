#!/usr/bin/env bash
# Runs every BeaconNet test: unit tests, tests over ../shared/testdata, and integration tests against
# real mosquitto brokers that the tests start on free loopback ports and stop again.
#
#   deploy/scripts/test.sh            # what .ci/run calls
#
# Fails on any compiler warning in the project's own code (Swift 6, strict concurrency, no warnings).
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

echo "test: running all tests" >&2
# A bound so that a hung integration test fails the run instead of eating CI's 90 minutes.
timeout --signal=INT --kill-after=30 2400 swift test --skip-build "$@"
