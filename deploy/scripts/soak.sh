#!/usr/bin/env bash
# A soak under load: a private mosquitto, beacon-aggregator, and beacon-sim load publishing a
# 100-store chain at RATE sightings/s for MINUTES. Every 10 s it prints the aggregator's resident
# memory and what its status topic reports (sightings processed, devices, lag), then a verdict on
# memory growth and lag. A measurement, not a pass/fail test.
#
#   deploy/scripts/soak.sh [MINUTES=3] [RATE=40000]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
[[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"
minutes=${1:-3}
rate=${2:-40000}
[[ $minutes =~ ^[0-9]+$ && $minutes -ge 1 && $rate =~ ^[0-9]+$ && $rate -ge 1 ]] || { echo "soak: MINUTES and RATE are whole numbers ≥ 1" >&2; exit 2; }

source "$root/deploy/scripts/local-stack.sh"
stack_init soak
stack_build
stack_broker 200000

"$bin/beacon-sim" chain --stores 100 > "$work/chain.json" 2>> "$log"
stack_spawn "$bin/beacon-aggregator" run --config "$work/chain.json" --port "$port" --id soak --status-interval 5 \
    --log-level warning >> "$log"
agg=$!
stack_spawn mosquitto_sub -h 127.0.0.1 -p "$port" -t 'beaconnet/aggregators/soak/status' > "$work/status.txt"
# The load starts once the aggregator is online (its first status), so that all of it is measured.
stack_wait_for "the aggregator" 60 grep -q '"state":"online"' "$work/status.txt"
stack_spawn "$bin/beacon-sim" load --stores 100 --devices 10000 --rate "$rate" --duration $((minutes * 60)) --port "$port" > "$work/load.log"
load=$!

echo "soak: ${minutes} min at ${rate} sightings/s, 100 stores, 10 000 devices ($(date -u +%FT%TZ), $(uname -m), $(nproc) cores)"
printf '%6s %12s %14s %9s %8s\n' "t (s)" "RSS (MiB)" "sightings" "devices" "lag ms"
t=0 first="" last="" maxlag=0
while kill -0 "$load" 2>/dev/null; do
    sleep 10
    t=$((t + 10))
    rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$agg/status" 2>/dev/null || echo 0)
    status=$(tail -1 "$work/status.txt" 2>/dev/null || true)
    sightings=$(grep -o '"sightings":[0-9]*' <<< "$status" | cut -d: -f2)
    devices=$(grep -o '"devices":[0-9]*' <<< "$status" | cut -d: -f2)
    lag=$(grep -o '"lag_ms":[0-9]*' <<< "$status" | cut -d: -f2)
    printf '%6s %12s %14s %9s %8s\n' "$t" "$rss" "${sightings:--}" "${devices:--}" "${lag:--}"
    [[ $t -ge 60 && -z $first ]] && first=$rss
    last=$rss
    [[ -n $lag && $lag -gt $maxlag ]] && maxlag=$lag
done
echo "soak: resident memory ${first:-?} MiB after the first minute, ${last} MiB at the end; largest lag ${maxlag} ms"
tail -1 "$work/load.log"
