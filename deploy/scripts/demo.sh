#!/usr/bin/env bash
# The main job: a private mosquitto on a free loopback port, the simulator publishing as every
# gateway of the default chain (3 stores × 6 sections × 2–3 gateways), and the aggregator deciding;
# enter/exit events are shown as they happen, the live dashboard serves on a loopback port (its
# URL is printed), and at the end the evaluation table compares BeaconNet with a nearest-gateway
# rule on the same sightings.
#
#   deploy/scripts/demo.sh [SECONDS]      # default 60 s of wall time
#   DEMO_RATE=5 deploy/scripts/demo.sh    # simulated seconds per wall second (default 5)
#   DEMO_DASHBOARD_PORT=8080 deploy/scripts/demo.sh   # the dashboard's port (default: a free one)
#
# Installs what is missing, builds in release mode, and on exit — normal or Ctrl-C — stops every
# process it started and removes its temporary directory.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
[[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"

seconds=${1:-${DEMO_SECONDS:-60}}
rate=${DEMO_RATE:-5}
[[ $seconds =~ ^[0-9]+$ && $seconds -ge 10 ]] || { echo "demo: SECONDS must be a whole number ≥ 10" >&2; exit 2; }
[[ $rate =~ ^[0-9]+$ && $rate -ge 1 && $rate -le 50 ]] || { echo "demo: DEMO_RATE must be a whole number 1…50" >&2; exit 2; }

source "$root/deploy/scripts/local-stack.sh"
stack_name=demo
stack_build
swift build -c release --product beacon-dashboard >&2
stack_start demo 100000

"$bin/beacon-sim" chain > "$work/chain.json"
# The baseline as hobby presence systems do it: strongest gateway, a fixed 30 s exit timeout.
"$bin/beacon-sim" chain --rule nearest --exit-rule timeout --no-street-exit > "$work/chain-nearest.json"

"$bin/beacon-aggregator" run --config "$work/chain.json" --port "$port" --id demo --event-time \
    --log-level warning > "$work/aggregator.log" 2>&1 &
stack_track $!
mosquitto_sub -h 127.0.0.1 -p "$port" -v -t 'beaconnet/sightings/#' > "$work/sightings.txt" &
stack_track $!
"$bin/beacon-sim" watch --port "$port" --record "$work/events.txt" &
stack_track $!
# The live dashboard on a free loopback port (DEMO_DASHBOARD_PORT to choose one).
dashboard_port=${DEMO_DASHBOARD_PORT:-}
if [[ -z $dashboard_port ]]; then
    for _ in $(seq 1 50); do
        candidate=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then dashboard_port=$candidate; break; fi
    done
fi
"$bin/beacon-dashboard" --port "$port" --listen "127.0.0.1:$dashboard_port" --log-level warning > "$work/dashboard.log" 2>&1 &
stack_track $!
sleep 1

cat <<TEXT
BeaconNet demo: 3 stores × 6 sections, shoppers walking, ${rate}× real time for ${seconds} s.
Private broker on 127.0.0.1:$port. In another terminal, watch the raw topics with:
    mosquitto_sub -h 127.0.0.1 -p $port -v -t 'beaconnet/#'
Live dashboard (floor plans, occupancy, events, health): http://127.0.0.1:$dashboard_port/
Live events (time · kind · store › section · device):
TEXT

"$bin/beacon-sim" run --host 127.0.0.1 --port "$port" --duration $((seconds * rate)) --rate "$rate" \
    --truth "$work/truth.txt" > "$work/sim.log"
sleep 2

echo
echo "Evaluation against the simulator's ground truth ($((seconds * rate)) simulated seconds):"
"$bin/beacon-aggregator" replay --config "$work/chain-nearest.json" "$work/sightings.txt" > "$work/nearest.txt" 2>/dev/null
"$bin/beacon-sim" evaluate --truth "$work/truth.txt" --events "$work/events.txt" --label "beaconnet"
"$bin/beacon-sim" evaluate --truth "$work/truth.txt" --events "$work/nearest.txt" --label "nearest gateway" --no-header
echo "(section%: time-weighted share of in-store time in the right section; settled%: the same over the time more than 3 s"
echo " after a true change; settling%: the share of in-store time within 3 s of one; latencies: true crossing → event)"
