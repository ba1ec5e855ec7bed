#!/usr/bin/env bash
# Writes a mosquitto ACL file for a BeaconNet deployment on standard output: each gateway may
# publish only its own sightings and status, an aggregator reads sightings and gateway statuses
# (user ID) and writes events, device states, occupancy, store layouts, its own status and
# rejects (user ID-out, its publishing connection: beacon-aggregator --output-username); a
# dashboard only reads what the aggregators publish; a history login (beacon-history run) only
# reads the events and the device states; a recorder (an operator recording traffic for
# beacon-aggregator replay) only reads the sightings and the gateway statuses; a monitor (an operator checking a deployment
# with mosquitto_sub, its own login so that a check never displaces a running component) reads
# everything under the root and writes nothing; a simulator (beacon-sim run and load) may publish
# as every gateway: any store's sightings and any gateway's status.
#
# With the central tier split (docs/SCALING.md), --broker says which broker the file is for: a
# shard gets only each aggregator's reading login (ID), the output hub only its publishing login
# (ID-out); without it (one central broker) both.
#
#   deploy/scripts/make-acl.sh [--root beaconnet] [--broker shard|hub] --gateway gw-12-1a:12 [--gateway …] \
#       --aggregator agg-1 [--aggregator …] --dashboard dashboard [--dashboard …] [--history history …] [--recorder ops …] \
#       [--bridge bridge-12:12:gw-12-1a,gw-12-1b …] [--monitor check …] [--simulator sim …] > acl
#
# A gateway is given as ID:STORE (its store, the iBeacon major). A bridge (a store broker's
# connection to the central one) is ID:STORE:GATEWAYS and may forward only the sightings and
# statuses of those gateways, in that store. The shipped brokers take these rights as logins from
# make-dynsec.sh, which reads them here (make-credentials.sh runs it).
#
# A simulator login is for demos and load tests only, on a broker of their own: it can forge any
# gateway's sightings and status, so never give one on a broker that real gateways publish to.
set -euo pipefail
root=beaconnet broker=central
gateways=() aggregators=() dashboards=() bridges=() recorders=() monitors=() simulators=() histories=()
while (($#)); do
    case $1 in --root|--broker|--gateway|--aggregator|--dashboard|--bridge|--recorder|--monitor|--simulator|--history)
        (($# >= 2)) || { echo "make-acl: $1 needs a value (see the header of $0)" >&2; exit 2; } ;;
    esac
    case $1 in
        --root) root=$2; shift 2 ;;
        --broker) broker=$2; shift 2 ;;
        --gateway) gateways+=("$2"); shift 2 ;;
        --aggregator) aggregators+=("$2"); shift 2 ;;
        --dashboard) dashboards+=("$2"); shift 2 ;;
        --bridge) bridges+=("$2"); shift 2 ;;
        --recorder) recorders+=("$2"); shift 2 ;;
        --monitor) monitors+=("$2"); shift 2 ;;
        --simulator) simulators+=("$2"); shift 2 ;;
        --history) histories+=("$2"); shift 2 ;;
        *) echo "make-acl: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
    esac
done
valid='^[a-z0-9][a-z0-9-]*$'
# A store number as the aggregator writes it in topics: decimal, no leading zero (012 would be
# a topic the aggregator rejects), 0–65535.
major='^(0|[1-9][0-9]{0,4})$'
[[ $root =~ ^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$ ]] ||
    { echo "make-acl: --root $root must be topic levels of A-Z, a-z, 0-9, _ . - separated by /" >&2; exit 2; }
[[ $broker == central || $broker == shard || $broker == hub ]] ||
    { echo "make-acl: --broker $broker must be shard or hub (leave it out for one central broker)" >&2; exit 2; }
# Everything is checked before anything is written, so a mistake never leaves half an ACL.
for entry in "${gateways[@]}"; do
    id=${entry%%:*} store=${entry#*:}
    [[ $entry == *:* && $id =~ ^gw-[a-z0-9-]+$ && $store =~ $major && $((10#$store)) -le 65535 ]] ||
        { echo "make-acl: --gateway $entry must be gw-…:STORE (decimal 0–65535, no leading zero)" >&2; exit 2; }
done
for id in "${aggregators[@]}"; do
    [[ $id =~ $valid ]] || { echo "make-acl: --aggregator $id must be a-z, 0-9, -" >&2; exit 2; }
done
for id in "${dashboards[@]}"; do
    [[ $id =~ $valid ]] || { echo "make-acl: --dashboard $id must be a-z, 0-9, -" >&2; exit 2; }
done
for id in "${recorders[@]}"; do
    [[ $id =~ $valid ]] || { echo "make-acl: --recorder $id must be a-z, 0-9, -" >&2; exit 2; }
done
for id in "${monitors[@]}"; do
    [[ $id =~ $valid ]] || { echo "make-acl: --monitor $id must be a-z, 0-9, -" >&2; exit 2; }
done
for id in "${simulators[@]}"; do
    [[ $id =~ $valid ]] || { echo "make-acl: --simulator $id must be a-z, 0-9, -" >&2; exit 2; }
done
for id in "${histories[@]}"; do
    [[ $id =~ $valid ]] || { echo "make-acl: --history $id must be a-z, 0-9, -" >&2; exit 2; }
done
for entry in "${bridges[@]}"; do
    IFS=: read -r id store list <<< "$entry"
    [[ $id =~ $valid && $store =~ $major && $((10#$store)) -le 65535 && -n $list ]] ||
        { echo "make-acl: --bridge $entry must be ID:STORE:GW[,GW…] (STORE decimal 0–65535, no leading zero)" >&2; exit 2; }
    IFS=, read -ra gws <<< "$list"
    for gw in "${gws[@]}"; do
        [[ $gw =~ ^gw-[a-z0-9-]+$ ]] || { echo "make-acl: --bridge $entry: $gw is not a gateway id" >&2; exit 2; }
    done
done

# One section per user name: an aggregator's publishing login (ID-out) must not be another's name.
names=()
for entry in "${gateways[@]}" "${bridges[@]}"; do names+=("${entry%%:*}"); done
for id in "${aggregators[@]}"; do names+=("$id" "$id-out"); done
names+=("${dashboards[@]}" "${recorders[@]}" "${monitors[@]}" "${simulators[@]}" "${histories[@]}")
repeated=$(printf '%s\n' "${names[@]}" | sort | uniq -d | head -n 1)
[[ -z $repeated ]] || { echo "make-acl: the name $repeated is given twice (an aggregator ID also takes ID-out for its publishing login)" >&2; exit 2; }

echo "# BeaconNet ACL, generated by deploy/scripts/make-acl.sh. Anything not granted here is denied."
for entry in "${gateways[@]}"; do
    id=${entry%%:*} store=${entry#*:}
    printf '\nuser %s\ntopic write %s/sightings/%s/%s\ntopic write %s/gateways/%s/status\n' \
        "$id" "$root" "$store" "$id" "$root" "$id"
done
for id in "${aggregators[@]}"; do
    # Two logins, one per connection: ID reads sightings and gateway statuses (the session the
    # broker queues for), ID-out publishes — so each login has one client id and only its rights.
    if [[ $broker != hub ]]; then
        printf '\nuser %s\n' "$id"
        printf 'topic read %s/sightings/#\ntopic read %s/gateways/+/status\n' "$root" "$root"
    fi
    [[ $broker != shard ]] || continue
    printf '\nuser %s-out\n' "$id"
    # Device states are read back at start-up (restore) and written on every change.
    printf 'topic readwrite %s/devices/#\n' "$root"
    printf 'topic write %s/events/#\ntopic write %s/occupancy/#\n' "$root" "$root"
    # The stores' layouts, for dashboards to draw them (published at start, retained).
    printf 'topic write %s/stores/+/layout\n' "$root"
    # Its own status (and Last Will), and the marker it publishes to itself while restoring.
    printf 'topic readwrite %s/aggregators/%s/#\ntopic write %s/rejects/%s\n' "$root" "$id" "$root" "$id"
    # The other instances' statuses: a standby watches its primary's, a returning primary its
    # standby's (--standby-for).
    printf 'topic read %s/aggregators/+/status\n' "$root"
done
for id in "${dashboards[@]}"; do
    printf '\nuser %s\n' "$id"
    for t in events/# devices/+/state occupancy/# stores/+/layout gateways/+/status aggregators/+/status rejects/+; do
        printf 'topic read %s/%s\n' "$root" "$t"
    done
done
for id in "${histories[@]}"; do
    # beacon-history: the events and the device states (which close visits whose exit was lost).
    printf '\nuser %s\ntopic read %s/events/#\ntopic read %s/devices/+/state\n' "$id" "$root" "$root"
done
for entry in "${bridges[@]}"; do
    IFS=: read -r id store list <<< "$entry"
    printf '\nuser %s\n' "$id"
    IFS=, read -ra gws <<< "$list"
    for gw in "${gws[@]}"; do
        printf 'topic write %s/sightings/%s/%s\ntopic write %s/gateways/%s/status\n' "$root" "$store" "$gw" "$root" "$gw"
    done
done
for id in "${recorders[@]}"; do
    printf '\nuser %s\ntopic read %s/sightings/#\ntopic read %s/gateways/+/status\n' "$id" "$root" "$root"
done
for id in "${monitors[@]}"; do
    printf '\nuser %s\ntopic read %s/#\n' "$id" "$root"
done
for id in "${simulators[@]}"; do
    # Every gateway's topics, exactly (sightings/STORE/GATEWAY): the simulator publishes as each.
    printf '\nuser %s\ntopic write %s/sightings/+/+\ntopic write %s/gateways/+/status\n' "$id" "$root" "$root"
done
