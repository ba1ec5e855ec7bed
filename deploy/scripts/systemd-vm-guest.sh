#!/bin/bash
# The systemd test's check inside its virtual machine (systemd-vm-test.sh), run by systemd as the
# oneshot unit beaconnet-test.service once the shipped units have been started: records what the
# broker carries, lets the virtual controller replay its capture, and checks that the edge
# publishes the sightings and the aggregator its events; that systemd restarts the edge after a
# SIGKILL; and that `systemctl stop` stops it cleanly. Writes one line per check to
# /root/results/checks.log ("ok …" or "FAIL …"), the journal beside it, then powers off.
# Every wait polls and is bounded, generously: the emulated CPUs are slow.
set -u
results=/root/results
# shellcheck source=/dev/null
. /opt/beaconnet-test/env
mqtt=$results/mqtt.log
checks=$results/checks.log
: >"$checks"

say() { echo "guest: [$(cut -d" " -f1 /proc/uptime) s] $*"; }
ms() { echo $(($(date +%s%N) / 1000000)); }
ok() { echo "ok $*" >>"$checks"; say "ok $*"; }
fail() { echo "FAIL $*" >>"$checks"; say "FAIL $*"; }
# wait_for SECONDS WHAT COMMAND...: polls COMMAND every 100 ms until it succeeds; 1 on timeout.
wait_for() {
    local limit=$(($(ms) + $1 * 1000)) what=$2
    shift 2
    until "$@" 2>/dev/null; do
        if (($(ms) > limit)); then
            say "timed out waiting for $what"
            return 1
        fi
        sleep 0.1
    done
}
# check SECONDS WHAT COMMAND...: ok WHAT once COMMAND succeeds, FAIL WHAT if it does not in time.
check() {
    local seconds=$1 what=$2
    shift 2
    if wait_for "$seconds" "$what" "$@"; then ok "$what"; else fail "$what"; fi
}
active() { [[ $(systemctl is-active "$1") == active ]]; }
property() { systemctl show -p "$2" --value "$1"; }
sightings() { grep "^beaconnet/sightings/1/$GATEWAY " "$mqtt" | grep -o '"dev":' | wc -l; }
batches() { grep -c "^beaconnet/sightings/1/$GATEWAY " "$mqtt"; }
finish() {
    journalctl -b --no-pager -o short-monotonic >"$results/journal.log" 2>&1
    cp /run/beacon-vhci.log "$results/controller.log" 2>/dev/null
    systemctl status --no-pager mosquitto beacon-vhci beacon-edge beacon-aggregator >"$results/status.log" 2>&1
    say "done"
    touch "$results/done"
    sync
    systemctl --no-block poweroff
    exit 0
}

say "systemd $(systemctl --version | head -n 1 | cut -d" " -f2), kernel $(uname -r); $(systemctl is-system-running)"
for unit in mosquitto beacon-vhci beacon-edge beacon-aggregator; do
    check 180 "$unit is started by systemd" active "$unit"
done
mosquitto_sub -h 127.0.0.1 -p 1883 -q 1 -v -t 'beaconnet/#' >"$mqtt" 2>"$results/mosquitto_sub.log" &
subscriber=$!

# The edge's batches come even when empty: the first says it reads the adapter, so the replay may
# start (reports sent before that would only fill the socket's buffer).
check 120 "the edge publishes batches" eval '(( $(batches) > 0 ))'
systemctl kill --kill-whom=main -s SIGUSR1 beacon-vhci
check 120 "the controller replays its capture" grep -q '^replayed' /run/beacon-vhci.log
check 90 "the edge publishes the $EXPECTED sightings of the replay" eval '(( $(sightings) >= EXPECTED ))'
check 90 "the aggregator publishes enter events" grep -q '^beaconnet/events/1/\(1/\)\?enter ' "$mqtt"
check 60 "the aggregator publishes its status" grep -q '^beaconnet/aggregators/agg-1/status .*"online"' "$mqtt"

# SIGKILL: no clean stop, so Restart=on-failure restarts it after RestartSec (5 s).
first=$(property beacon-edge MainPID)
restarts=$(property beacon-edge NRestarts)
kill -KILL "$first"
check 60 "systemd restarts the edge after SIGKILL" eval \
    '(( $(property beacon-edge NRestarts) > restarts )) && active beacon-edge && [[ $(property beacon-edge MainPID) != "$first" ]]'
before=$(batches)
check 120 "the restarted edge publishes again" eval '(( $(batches) > before + 2 ))'

offline() { grep -c "^beaconnet/gateways/$GATEWAY/status .*\"offline\"" "$mqtt"; }
# The SIGKILL left an offline status too: the broker's Last Will.
wills=$(offline)
stopped=$(ms)
if systemctl stop beacon-edge; then ok "systemctl stop beacon-edge returns"; else fail "systemctl stop beacon-edge returns"; fi
say "the edge stopped in $(($(ms) - stopped)) ms"
result="$(property beacon-edge Result) $(property beacon-edge ExecMainCode) $(property beacon-edge ExecMainStatus)"
# Result success, exited (code 1: CLD_EXITED, not killed by a signal), status 0.
if [[ $result == "success 1 0" ]]; then ok "the edge exits 0 on stop"; else fail "the edge exits 0 on stop (Result, code, status: $result)"; fi
journal=$(journalctl -b -u beacon-edge --no-pager -o cat)
if grep -q "scan stopped, adapter restored" <<<"$journal"; then
    ok "the edge's journal says the scan stopped and the adapter was restored"
else
    fail "the edge's journal says the scan stopped and the adapter was restored"
fi
check 30 "the edge publishes its final status, offline" eval '(( $(offline) > wills ))'
if active beacon-edge; then fail "the edge stays stopped"; else ok "the edge stays stopped"; fi

kill "$subscriber" 2>/dev/null
finish
