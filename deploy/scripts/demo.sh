#!/usr/bin/env bash
# The main job: a private mosquitto on a free loopback port, the simulator publishing as every
# gateway of the default chain (3 stores × 6 sections × 2–3 gateways), and the aggregator deciding;
# enter/exit events are shown as they happen, and the live dashboard serves on a loopback port (its
# URL and a login are printed, with yesterday simulated for its history charts) until Ctrl-C. Given
# SECONDS, it ends by itself after that long and prints the evaluation table: BeaconNet beside a
# nearest-gateway rule on the same sightings.
#
#   deploy/scripts/demo.sh                # until Ctrl-C
#   deploy/scripts/demo.sh SECONDS        # SECONDS of wall time (≥ 10), then the evaluation table
#   DEMO_RATE=5 deploy/scripts/demo.sh    # simulated seconds per wall second (default 5)
#   DEMO_DASHBOARD_PORT=8080 deploy/scripts/demo.sh   # the dashboard's port (default: a free one)
#   BEACONNET_BIN=.build/debug deploy/scripts/demo.sh # binaries already built: no install, no build
#
# Installs what is missing (deploy/scripts/install-deps.sh: what the demo runs, nothing the tests
# alone need) and builds every program in release mode, so deploy/scripts/install.sh --no-build
# works after it. On exit — the end, an error or Ctrl-C — it stops every process it started within
# seconds and removes its temporary directory's files but the log: the programs' logs and the
# build's output, in one file whose path is printed, never on the terminal.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
[[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"

seconds=${1:-${DEMO_SECONDS:-}}
rate=${DEMO_RATE:-5}
[[ -z $seconds || ($seconds =~ ^[0-9]+$ && $seconds -ge 10) ]] || { echo "demo: SECONDS must be a whole number ≥ 10" >&2; exit 2; }
[[ $rate =~ ^[0-9]+$ && $rate -ge 1 && $rate -le 50 ]] || { echo "demo: DEMO_RATE must be a whole number 1…50" >&2; exit 2; }

source "$root/deploy/scripts/local-stack.sh"
stack_init demo
stack_build
stack_broker 100000

"$bin/beacon-sim" chain > "$work/chain.json" 2>> "$log"
# The baseline as hobby presence systems do it: strongest gateway, a fixed 30 s exit timeout.
"$bin/beacon-sim" chain --rule nearest --exit-rule timeout --no-street-exit > "$work/chain-nearest.json" 2>> "$log"

stack_spawn "$bin/beacon-aggregator" run --config "$work/chain.json" --port "$port" --id demo --event-time \
    --log-level warning >> "$log"
# The sightings, for the nearest-gateway rule at the end of a bounded run (an endless one would
# fill the disk with them).
[[ -n $seconds ]] && stack_spawn mosquitto_sub -h 127.0.0.1 -p "$port" -v -t 'beaconnet/sightings/#' > "$work/sightings.txt"
stack_spawn "$bin/beacon-sim" watch --port "$port" --record "$work/events.txt"
# The live dashboard on a free loopback port (DEMO_DASHBOARD_PORT to choose one).
dashboard_port=${DEMO_DASHBOARD_PORT:-}
if [[ -z $dashboard_port ]]; then
    for _ in $(seq 1 50); do
        candidate=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then dashboard_port=$candidate; break; fi
    done
fi
# Its login: a user `demo` that sees every store, with a password made here and printed below.
BEACONNET_BIN="$bin" "$root/deploy/scripts/make-dashboard-users.sh" "$work/dashboard-users" demo >> "$log"
demo_password=$(head -n 1 "$work/dashboard-passwords/demo")
stack_spawn "$bin/beacon-dashboard" --port "$port" --listen "127.0.0.1:$dashboard_port" --users "$work/dashboard-users" \
    --history-database "$work/history.sqlite" --log-level warning >> "$log"
# A day of history for the dashboard's charts: yesterday simulated and decided faster than real time,
# its visits kept by beacon-history (device ids pseudonymised), at low priority beside the live demo.
history_day=$(date -d yesterday +%F)
openssl rand -hex 32 > "$work/history-secret"
stack_spawn nice -n 10 "$root/deploy/scripts/demo-history.sh" "$bin" "$history_day" "$work" "$work/history.sqlite" \
    "$work/history-secret" "http://127.0.0.1:$dashboard_port/stores/101/history?date=$history_day" "$log"

# Ready when the aggregator says it is online (after restoring states), the watch has its
# connection and the dashboard answers: events from the first simulated second are then seen.
aggregator_online() {
    mosquitto_sub -h 127.0.0.1 -p "$port" -t 'beaconnet/aggregators/demo/status' -C 1 -W 1 2>/dev/null | grep -q '"state":"online"'
}
stack_wait_for "the aggregator" 60 aggregator_online
stack_wait_for "the event watch" 10 grep -q 'beaconnet.watch: .*connected' "$log"
stack_wait_for "the dashboard" 30 eval "(exec 3<>/dev/tcp/127.0.0.1/$dashboard_port) 2>/dev/null"

if [[ -n $seconds ]]; then
    running="for $seconds s, then the evaluation table"
else
    running="until Ctrl-C (demo.sh SECONDS for a bounded run with the evaluation table)"
fi
cat <<TEXT
BeaconNet demo: 3 stores × 6 sections, shoppers walking, ${rate}× real time, $running.
Private broker on 127.0.0.1:$port. In another terminal, watch the raw topics with:
    mosquitto_sub -h 127.0.0.1 -p $port -v -t 'beaconnet/#'
Live dashboard (floor plans, occupancy, events, health): http://127.0.0.1:$dashboard_port/
    log in as demo, password $demo_password
History charts of $history_day (footfall, occupancy, dwell, flows), simulated in the background in about
    two minutes: http://127.0.0.1:$dashboard_port/stores/101/history?date=$history_day
The programs' logs: $log (kept when the demo ends)
Live events (time · kind · store › section · device):
TEXT

# In the background and waited for, so that a Ctrl-C is handled at once, not when it ends. Without
# SECONDS, a year of simulated time: Ctrl-C ends it first.
simulated=$((${seconds:-$((31536000 / rate))} * rate))
stack_spawn "$bin/beacon-sim" run --host 127.0.0.1 --port "$port" --duration "$simulated" --rate "$rate" \
    --truth "$work/truth.txt" >> "$log"
stack_wait_exit $!
[[ -n $seconds ]] || exit 0

# The last windows' events are in once the recording has not grown for a second (at most 10 s).
events_size=-1
for _ in $(seq 1 10); do
    size=$(stat -c %s "$work/events.txt" 2>/dev/null || echo 0)
    [[ $size == "$events_size" ]] && break
    events_size=$size
    sleep 1
done

echo
echo "Evaluation against the simulator's ground truth ($simulated simulated seconds):"
"$bin/beacon-aggregator" replay --config "$work/chain-nearest.json" "$work/sightings.txt" > "$work/nearest.txt" 2>> "$log"
"$bin/beacon-sim" evaluate --truth "$work/truth.txt" --events "$work/events.txt" --label "beaconnet" 2>> "$log"
"$bin/beacon-sim" evaluate --truth "$work/truth.txt" --events "$work/nearest.txt" --label "nearest gateway" --no-header 2>> "$log"
echo "(section%: time-weighted share of in-store time in the right section; settled%: the same over the time more than 3 s"
echo " after a true change; settling%: the share of in-store time within 3 s of one; latencies: true crossing → event)"
