#!/usr/bin/env bash
# demo.sh's day of history: beacon-sim day simulates DAY (YYYY-MM-DD) faster than real time and
# beacon-history import keeps its visits in DATABASE (device ids pseudonymised with SECRET), their
# output appended to LOG; then one line on standard output says where the charts are. Stopped with
# SIGTERM (the demo ending), it stops its step too.
#
#   deploy/scripts/demo-history.sh BIN DAY WORK DATABASE SECRET URL LOG
set -euo pipefail
bin=$1 day=$2 work=$3 database=$4 secret=$5 url=$6 log=$7
child=
trap '[[ -n $child ]] && kill "$child" 2>/dev/null; exit 143' TERM INT
step() { "$@" & child=$!; wait "$child"; child=; }

step "$bin/beacon-sim" day --date "$day" --events "$work/day.txt" >> "$log"
step "$bin/beacon-history" import --database "$database" --pseudonym-secret "$secret" "$work/day.txt" >> "$log"
rm -f "$work/day.txt"
echo "History: $day, a simulated shop day, is ready: $url"
