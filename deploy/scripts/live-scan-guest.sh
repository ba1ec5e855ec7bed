#!/bin/bash
# The live-scan test inside its virtual machine (started by live-scan-test.sh's init, in a chroot
# of the host's root, read-only, with /tmp and /run tmpfs, and under /run/live-scan the shares:
# package/ (this script's checkout), bin/ (the built programs), testdata/, and results/, the
# host's results folder, writable).
# A private mosquitto on loopback and mosquitto_sub recording everything it gets (results/mqtt.log);
# then for each controller profile: beacon-vhci creates an adapter, beacon-edge scans it and
# publishes, SIGTERM to the edge, and the controller's own log says whether scanning was left off.
# Every wait polls and is bounded, generously: the emulated CPUs are slow, the more so while the
# host runs every other test beside this one. Whatever fails, the script goes on to the end and
# writes results/done, so the host always gets the logs.
set -u
results=/run/live-scan/results
# What the host looks for to tell a guest that never ran from one that did not finish.
touch "$results/started"
# shellcheck source=/dev/null
. "$results/env"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

say() { echo "guest: [$(cut -d" " -f1 /proc/uptime) s] $*"; }
ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_for SECONDS WHAT COMMAND...: polls COMMAND every 50 ms until it succeeds; 1 on timeout.
wait_for() {
    local limit=$(($(ms) + $1 * 1000)) what=$2
    shift 2
    until "$@"; do
        if (($(ms) > limit)); then
            say "timed out waiting for $what"
            return 1
        fi
        sleep 0.05
    done
}
alive() { kill -0 "$1" 2>/dev/null; }
# stop PID SECONDS: SIGTERM, then SIGKILL after SECONDS; prints the exit status.
stop() {
    kill -TERM "$1" 2>/dev/null
    if ! wait_for "$2" "process $1 to exit" eval "! alive $1"; then kill -KILL "$1" 2>/dev/null; fi
    wait "$1" 2>/dev/null
    echo $?
}
# sightings GATEWAY: how many sightings the subscriber has received from GATEWAY.
sightings() { grep "^beaconnet/sightings/1/$1 " "$mqtt" 2>/dev/null | grep -o '"dev":' | wc -l; }

say "kernel $(uname -r), $(nproc) cpus"
modprobe hci_vhci || say "modprobe hci_vhci failed"
[[ -c /dev/vhci ]] || say "no /dev/vhci"
say "hci_vhci loaded"

cat >/tmp/mosquitto.conf <<EOF
listener 1883 127.0.0.1
allow_anonymous true
persistence false
user root
log_dest stderr
EOF
mosquitto -c /tmp/mosquitto.conf >"$results/mosquitto.log" 2>&1 &
broker=$!
wait_for 60 "mosquitto" mosquitto_pub -h 127.0.0.1 -p 1883 -t beaconnet/probe -m up -q 1 2>/dev/null
say "mosquitto up"
# One subscriber records everything, every profile (each has its own gateway id).
mqtt=$results/mqtt.log
mosquitto_sub -h 127.0.0.1 -p 1883 -q 1 -v -t 'beaconnet/#' >"$mqtt" 2>"$results/mosquitto_sub.log" &
subscriber=$!
# Subscribed once it receives a probe of its own.
wait_for 60 "the subscriber" eval "mosquitto_pub -h 127.0.0.1 -p 1883 -t beaconnet/probe -m ready 2>/dev/null;
    grep -q '^beaconnet/probe ready' '$mqtt'"
say "subscriber up"

for profile in $PROFILES; do
    log=$results/$profile
    started=$(ms)
    say "$profile: starting the controller"
    args=()
    for capture in "${CAPTURES[@]}"; do args+=(--capture "$capture"); done
    "$BIN/beacon-vhci" --profile "$profile" "${args[@]}" --wait-for-go >"$log.controller.log" 2>&1 &
    controller=$!
    wait_for 90 "the $profile controller to be ready" grep -q '^ready hci' "$log.controller.log"
    adapter=$(sed -n 's/^ready \(hci[0-9]*\).*/\1/p' "$log.controller.log" | head -n 1)
    say "$profile: adapter ${adapter:-none} ready after $(($(ms) - started)) ms"

    # One gateway per profile: the broker keeps each edge's status retained.
    gateway=gw-live-$profile
    edge_started=$(ms)
    "$BIN/beacon-edge" --gateway "$gateway" --store 1 --section 1 --allow-all --adapter "${adapter:-hci0}" \
        --broker-host 127.0.0.1 --broker-port 1883 --batch-window-ms 100 --log-level info >"$log.edge.log" 2>&1 &
    edge=$!
    # Its first batch (empty: a heartbeat) says the edge reads the adapter: the replay may start.
    wait_for 120 "the edge's first batch" eval "grep -q '^beaconnet/sightings/1/$gateway ' '$mqtt' || ! alive $edge"
    say "$profile: the edge publishes $(($(ms) - edge_started)) ms after it started"
    kill -USR1 "$controller"
    wait_for 120 "the $profile replay" eval "grep -q '^replayed' '$log.controller.log' || ! alive $edge"
    say "$profile: replay over $(($(ms) - edge_started)) ms after the edge started"
    wait_for 90 "$EXPECTED sightings" eval "(( \$(sightings $gateway) >= EXPECTED )) || ! alive $edge"
    say "$profile: $(sightings "$gateway") sightings received; stopping the edge"
    stop "$edge" 60 >"$log.edge.exit"
    say "$profile: edge exited $(cat "$log.edge.exit")"
    # The edge's own last word: its retained status, offline, with its counters.
    wait_for 30 "the final status" grep -q "^beaconnet/gateways/$gateway/status .*\"offline\".*\"published\"" "$mqtt"
    stop "$controller" 30 >"$log.controller.exit"
    say "$profile: controller: $(tail -n 1 "$log.controller.log")"
done

stop "$subscriber" 5 >/dev/null
stop "$broker" 10 >/dev/null
dmesg >"$results/dmesg.log" 2>&1
say "done"
touch "$results/done"
