#!/usr/bin/env bash
# Writes what the aggregator decides on every shared real dataset and on simulator seeds, under
# every section rule and a few variants, into one folder: run it with the programs built before a
# change and after it, then `diff -r` the two folders. An empty diff shows that the change kept
# the engine's behaviour (docs/TESTING.md, "Behaviour kept across a refactor").
#
#   deploy/scripts/replay-outputs.sh OUT [BIN]
#
# BIN holds beacon-aggregator and beacon-sim (default: .build/release, built when missing).
# Needs ../shared/testdata for the real datasets; without it only the simulator runs.
# Each output file is `beacon-aggregator replay` standard output; `*.calibration.json` is what
# `calibrate` wrote, and `scores.txt` the `beacon-sim evaluate --wide` row of each run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
(($# >= 1)) || { echo "usage: $0 OUT [BIN]" >&2; exit 64; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
bin=${2:-$root/.build/release}
[[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"
if [[ ! -x $bin/beacon-aggregator || ! -x $bin/beacon-sim ]]; then
    [[ -z ${2:-} ]] || { echo "replay-outputs: no beacon-aggregator and beacon-sim in $bin" >&2; exit 69; }
    (cd "$root" && swift build -c release --product beacon-aggregator && swift build -c release --product beacon-sim) >&2
fi
aggregator=$bin/beacon-aggregator
sim=$bin/beacon-sim
data=$root/../shared/testdata/datasets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$out/scores.txt"

# replay NAME CHAIN TRACE TRUTH [replay flags…]: one run, its output and its score.
replay() {
    local name=$1 chain=$2 trace=$3 truth=$4
    shift 4
    "$aggregator" replay --config "$chain" "$@" "$trace" > "$out/$name.txt" 2> "$work/stderr"
    { printf '%-40s ' "$name"
      "$sim" evaluate --truth "$truth" --events "$out/$name.txt" --wide --no-header 2>/dev/null | tail -1 || echo "(no score)"
    } >> "$out/scores.txt"
}

# rules NAME CHAIN TRACE TRUTH: every uncalibrated rule, then the calibrated one (calibrated on
# the same recording, on the truth's first device: the point is the same decisions before and
# after, not a fair score).
rules() {
    local name=$1 chain=$2 trace=$3 truth=$4 rule device
    for rule in hysteresis hmm nearest strongest position; do
        replay "$name.$rule" "$chain" "$trace" "$truth" --tuning "{\"rule\":\"$rule\"}"
    done
    device=$(python3 -c 'import json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if line and not line.startswith("#") and "dev" in json.loads(line):
        print(json.loads(line)["dev"]); break' "$truth")
    if "$aggregator" calibrate --config "$chain" --truth "$truth" --device "$device" --output "$work/$name.calibration.json" "$trace" \
        > "$work/calibrate.txt" 2>&1; then
        sed "s|$work|WORK|g" "$work/calibrate.txt" > "$out/$name.calibrate.txt"
        sed "s|$work|WORK|g" "$work/$name.calibration.json" > "$out/$name.calibration.json"
        python3 - "$chain" "$work/$name.calibration.json" "$work/$name.chain.json" <<'EOF'
import json, sys
chain = json.load(open(sys.argv[1]))
chain["calibration"] = sys.argv[2]
json.dump(chain, open(sys.argv[3], "w"))
EOF
        replay "$name.fingerprint" "$work/$name.chain.json" "$trace" "$truth" --tuning '{"rule":"fingerprint"}'
    else
        sed "s|$work|WORK|g" "$work/calibrate.txt" > "$out/$name.calibrate.txt"
    fi
}

# The simulator: the default chain, two seeds, and variants of the default rule.
"$sim" chain > "$work/sim.chain.json"
for seed in 1 5; do
    "$sim" run --trace "$work/sim$seed.trace" --truth "$work/sim$seed.truth" --seed "$seed" --duration 900 > /dev/null
    rules "sim$seed" "$work/sim.chain.json" "$work/sim$seed.trace" "$work/sim$seed.truth"
done
replay sim1.timeout "$work/sim.chain.json" "$work/sim1.trace" "$work/sim1.truth" --tuning '{"exit_rule":"timeout"}'
replay sim1.dwell2 "$work/sim.chain.json" "$work/sim1.trace" "$work/sim1.truth" --tuning '{"dwell_s":2}'
replay sim1.hmm-dwell2 "$work/sim.chain.json" "$work/sim1.trace" "$work/sim1.truth" --tuning '{"rule":"hmm","dwell_s":2}'
replay sim1.nostreet "$work/sim.chain.json" "$work/sim1.trace" "$work/sim1.truth" --tuning '{"street_exit":false}'
replay sim1.reorder "$work/sim.chain.json" "$work/sim1.trace" "$work/sim1.truth" --reorder 5
replay sim1.stores "$work/sim.chain.json" "$work/sim1.trace" "$work/sim1.truth" --stores 101,103
replay sim1.drain "$work/sim.chain.json" "$work/sim1.trace" "$work/sim1.truth" --drain 120

# The shared real recordings, all runs end to end.
if [[ -d $data ]]; then
    for zones in anchors rooms; do
        "$sim" import --dataset kolakowski "$data/kolakowski_ble_flat_calib2021" --zones "$zones" --output "$work/kol-$zones" > /dev/null
        rules "kol-$zones" "$work/kol-$zones/all/chain.json" "$work/kol-$zones/all/trace.txt" "$work/kol-$zones/all/truth.jsonl"
    done
    replay kol-rooms.drain "$work/kol-rooms/all/chain.json" "$work/kol-rooms/all/trace.txt" "$work/kol-rooms/all/truth.jsonl" --drain 60
    for outside in store none; do
        "$sim" import --dataset salrb "$data/sal_rb_vehicle_zones" --outside "$outside" --output "$work/salrb-$outside" > /dev/null
        rules "salrb-$outside" "$work/salrb-$outside/all/chain.json" "$work/salrb-$outside/all/trace.txt" "$work/salrb-$outside/all/truth.jsonl"
    done
else
    echo "replay-outputs: no $data: the real datasets are left out" >&2
fi
echo "replay-outputs: $(ls "$out" | wc -l) files in $out" >&2
