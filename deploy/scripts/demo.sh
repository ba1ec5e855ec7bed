#!/usr/bin/env bash
# The main job: a private mosquitto on a free loopback port, the simulator publishing as every
# gateway of the default chain (3 stores × 6 sections × 2–3 gateways), and the aggregator deciding;
# enter/exit events are shown as they happen, and at the end the evaluation table compares
# BeaconNet with a nearest-gateway rule on the same sightings.
#
#   deploy/scripts/demo.sh [SECONDS]      # default 60 s of wall time
#   DEMO_RATE=5 deploy/scripts/demo.sh    # simulated seconds per wall second (default 5)
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

"$root/deploy/scripts/install-deps.sh"
echo "demo: building (release; the first build takes a few minutes)…" >&2
swift build -c release --product beacon-aggregator >&2
swift build -c release --product beacon-sim >&2
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d -t beaconnet-demo.XXXXXX)
pids=()
cleanup() {
    trap - EXIT INT TERM
    # Newest first: the aggregator says offline while the broker is still there.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[i]}" 2>/dev/null || true
        wait "${pids[i]}" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted, cleaning up" >&2; exit 130' INT TERM

# A free loopback port: one nobody answers on.
port=""
for _ in $(seq 1 50); do
    candidate=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
done
[[ -n $port ]] || { echo "demo: no free port found" >&2; exit 1; }

cat > "$work/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous true
persistence false
max_queued_messages 100000
CONF
mosquitto -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.05
done

"$bin/beacon-sim" chain > "$work/chain.json"
"$bin/beacon-sim" chain --rule nearest > "$work/chain-nearest.json"

"$bin/beacon-aggregator" run --config "$work/chain.json" --port "$port" --id demo --event-time \
    --log-level warning > "$work/aggregator.log" 2>&1 &
pids+=($!)
mosquitto_sub -h 127.0.0.1 -p "$port" -v -t 'beaconnet/sightings/#' > "$work/sightings.txt" &
pids+=($!)
"$bin/beacon-sim" watch --port "$port" --record "$work/events.txt" &
pids+=($!)
sleep 1

cat <<TEXT
BeaconNet demo: 3 stores × 6 sections, shoppers walking, ${rate}× real time for ${seconds} s.
Private broker on 127.0.0.1:$port. In another terminal, watch the raw topics with:
    mosquitto_sub -h 127.0.0.1 -p $port -v -t 'beaconnet/#'
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
echo "(section%: time-weighted share of in-store time in the right section; latencies: true crossing → event)"
