#!/usr/bin/env bash
# One phase of deploy/scripts/test.sh, summed up from its `swift test` output: how many tests
# passed, failed and were skipped, and why they were skipped. Swift Testing's own last line counts
# a skipped test as run ("Test run with 5 tests in 1 suite passed"), so a phase whose tests were
# all skipped would read as passed.
#
#   deploy/scripts/test-summary.sh LOG [EXIT]     # EXIT: swift test's exit status (default 0)
#
# Prints a first line "VERDICT: P passed, F failed, S skipped", VERDICT being "passed" (something
# passed, nothing failed), "skipped" (nothing ran, nothing failed) or "FAILED" (a test failed, or
# swift test exited non-zero: "FAILED (exit N)"); then one line per reason for a skip, most
# frequent first: "S skipped: REASON". Exit: 0; 64 bad arguments.
set -euo pipefail
(($# == 1 || $# == 2)) || { echo "usage: test-summary.sh LOG [EXIT]" >&2; exit 64; }
log=$1
code=${2:-0}
[[ -r $log ]] || { echo "test-summary: cannot read $log" >&2; exit 64; }

# Swift Testing's lines for a finished test (a parameterized one once, with its cases):
#   ✔ Test "name" passed after…   ✔ Test "name" with 2 test cases passed after…
#   ━ Test "name" passed after 1.2 seconds with 1 known issue.
#   ✘ Test "name" failed after…   ✘ Test "name" with 2 test cases failed after…
#   ➜ Test "name" skipped: "reason"   (a skipped suite also lists each of its tests)
# The run's own last line ("✔ Test run with 5 tests in 1 suite passed after…") is no test.
tests=$(grep -vE '^[^ ]+ Test run with [0-9]+ tests? ' "$log" || true)
passed=$(grep -cE '^(✔|━) Test .* passed after' <<<"$tests" || true)
failed=$(grep -cE '^✘ Test .* failed after' <<<"$tests" || true)
skips=$(grep -E '^➜ Test .* skipped' <<<"$tests" | sed -E 's/^.* skipped: "(.*)"$/\1/; t; s/^.*$/no reason given/' || true)
skipped=0
[[ -n $skips ]] && skipped=$(printf '%s\n' "$skips" | wc -l)

if ((code != 0)); then
    verdict="FAILED (exit $code)"
elif ((failed > 0)); then
    verdict="FAILED"
elif ((passed > 0)); then
    verdict="passed"
else
    verdict="skipped"
fi
counts="$passed passed, $failed failed, $skipped skipped"
if ! grep -qE 'Test run with [0-9]+ tests?' "$log"; then
    counts+="; no Swift Testing result (the run ended early)"
fi
echo "$verdict: $counts"
if ((skipped > 0)); then
    printf '%s\n' "$skips" | sort | uniq -c | sort -k1,1nr -k2 | sed -E 's/^ *([0-9]+) (.*)$/\1 skipped: \2/'
fi
