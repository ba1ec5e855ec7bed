#!/usr/bin/env bash
# Writes a mosquitto dynamic-security configuration (dynamic-security.json, for
# mosquitto_dynamic_security.so) for a BeaconNet broker on standard output: one login per user,
# each with exactly the rights make-acl.sh gives it, and its MQTT client id fixed (below)
# so that no login can take over another component's session or fire its Last Will.
#
#   deploy/scripts/make-dynsec.sh PASSWORDS [--admin NAME] [make-acl.sh arguments…] > dynamic-security.json
#
# PASSWORDS is a directory with one file per user, named after it, whose first line is its
# password (make-credentials.sh writes one); passwords are stored hashed (PBKDF2-SHA512, as
# mosquitto_ctrl does). --admin NAME adds a login that may only use the plugin's control topics,
# for changing users and roles at run time with mosquitto_ctrl (its password in PASSWORDS too).
#
# Every login connects with one client id: its user name — a gateway's is its gateway id, the
# beacon-edge default; beacon-sim, beacon-dashboard and beacon-history take the user name by
# default — except an aggregator's two logins (make-acl.sh's ID and ID-out), bound to
# the ids beacon-aggregator gives its two connections: beacon-aggregator-ID (sightings) and
# beacon-aggregator-ID-out (events, states, status, Last Will).
#
# The rights are make-acl.sh's, rule for rule: "topic read" becomes publishClientReceive,
# "write" publishClientSend, "readwrite" both. Like mosquitto's acl_file, which accepts any
# subscription and filters each message by the read rules, any subscription is accepted here
# and nothing is delivered or accepted that no rule allows.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage="usage: make-dynsec.sh PASSWORDS [--admin NAME] [make-acl.sh arguments…] (see the header of $0)"
(($#)) && [[ $1 != -* ]] || { echo "make-dynsec: $usage" >&2; exit 2; }
passwords=$1
shift
admin=""
acl_args=()
declare -A kind=()
while (($#)); do
    case $1 in --admin|--root|--broker|--gateway|--aggregator|--dashboard|--bridge|--recorder|--monitor|--simulator|--history)
        (($# >= 2)) || { echo "make-dynsec: $1 needs a value ($usage)" >&2; exit 2; } ;;
    esac
    case $1 in
        --admin) admin=$2; shift 2; continue ;;
        # make-acl.sh checks the values; an empty one only must not reach the array.
        --gateway|--bridge) [[ -n ${2%%:*} ]] && kind[${2%%:*}]=${1#--} ;;
        --aggregator) [[ -n $2 ]] && kind[$2]=aggregator && kind[$2-out]=aggregator-out ;;
        --dashboard|--recorder|--monitor|--simulator|--history) [[ -n $2 ]] && kind[$2]=${1#--} ;;
    esac
    acl_args+=("$1")
    shift
done
[[ -d $passwords ]] || { echo "make-dynsec: $passwords is not a directory of passwords ($usage)" >&2; exit 2; }
# make-acl.sh checks every argument and states the rights; nothing is written unless it succeeds.
acl=$("$here/make-acl.sh" "${acl_args[@]}")
users=$(awk '/^user /{print $2}' <<< "$acl")
if [[ -n $admin ]]; then
    [[ $admin =~ ^[a-z0-9][a-z0-9-]*$ ]] || { echo "make-dynsec: --admin $admin must be a-z, 0-9, -" >&2; exit 2; }
    users+=$'\n'$admin
fi
duplicate=$(sort <<< "$users" | uniq -d | head -n 1)
[[ -z $duplicate ]] || { echo "make-dynsec: $duplicate is given twice: one login per user name" >&2; exit 2; }

# A password as the plugin stores it: base64 of PBKDF2-HMAC-SHA512 (64 bytes) over a 12-byte salt,
# 101 iterations — the plugin's own parameters.
hash() {
    local file=$passwords/$1 password="" salt
    [[ -f $file ]] && { IFS= read -r password < "$file" || true; }
    [[ -n $password ]] || { echo "make-dynsec: no password for $1: $file is missing or its first line empty" >&2; exit 2; }
    salt=$(openssl rand -base64 12)
    printf '"password": "%s", "salt": "%s", "iterations": 101' "$(openssl kdf -keylen 64 -kdfopt digest:SHA512 \
        -kdfopt hexpass:"$(printf %s "$password" | od -An -v -tx1 | tr -d ' \n')" \
        -kdfopt hexsalt:"$(base64 -d <<< "$salt" | od -An -v -tx1 | tr -d ' \n')" -kdfopt iter:101 -binary PBKDF2 | base64 -w0)" "$salt"
}

clients=() roles=()
role_acls() {  # role name, then the ACL entries for it as JSON, comma separated
    roles+=("$(printf '    { "rolename": "%s", "acls": [\n%s\n    ] }' "$1" "$2")")
}
acl_entry() { printf '        { "acltype": "%s", "topic": "%s", "allow": true }' "$1" "$2"; }
client() {  # user, its client id, what it is
    local id password
    id=$(printf '"clientid": "%s", ' "$2")
    password=$(hash "$1")
    clients+=("$(printf '    { "username": "%s", %s"textname": "%s",\n      %s,\n      "roles": [ { "rolename": "%s" } ] }' \
        "$1" "$id" "$3" "$password" "$1")")
}

user="" entries=""
flush() {
    [[ -n $user ]] || return 0
    role_acls "$user" "$entries"
    case ${kind[$user]:-} in
        aggregator) client "$user" "beacon-aggregator-$user" "aggregator, sightings: connects only as beacon-aggregator-$user" ;;
        aggregator-out) client "$user" "beacon-aggregator-$user" "aggregator, publishing: connects only as beacon-aggregator-$user" ;;
        "") echo "make-dynsec: make-acl.sh wrote a user $user this script does not know" >&2; exit 1 ;;
        *) client "$user" "$user" "${kind[$user]}: connects only with client id $user" ;;
    esac
    user="" entries=""
}
while read -r word access topic rest; do
    case $word in
        ""|"#"*) continue ;;
        user) flush; user=$access ;;
        topic)
            [[ -n $user && -n $topic && -z $rest ]] || { echo "make-dynsec: cannot translate ACL line: $word $access $topic $rest" >&2; exit 1; }
            case $access in
                read) types=(publishClientReceive) ;;
                write) types=(publishClientSend) ;;
                readwrite) types=(publishClientSend publishClientReceive) ;;
                *) echo "make-dynsec: cannot translate ACL access $access" >&2; exit 1 ;;
            esac
            for t in "${types[@]}"; do entries+=${entries:+$',\n'}$(acl_entry "$t" "$topic"); done ;;
        *) echo "make-dynsec: cannot translate ACL line: $word $access $topic $rest" >&2; exit 1 ;;
    esac
done <<< "$acl"
flush
if [[ -n $admin ]]; then
    control='$CONTROL/dynamic-security/#'
    role_acls "$admin" "$(acl_entry publishClientSend "$control"),
$(acl_entry publishClientReceive "$control"),
$(printf '        { "acltype": "subscribePattern", "topic": "%s", "allow": true }' "$control")"
    client "$admin" "$admin" "administrator: mosquitto_ctrl dynsec, nothing else"
fi

join() { local first=1 item; for item in "$@"; do ((first)) || printf ',\n'; printf '%s' "$item"; first=0; done; }
printf '{\n  "defaultACLAccess": { "publishClientSend": false, "publishClientReceive": false, "subscribe": true, "unsubscribe": true },\n'
printf '  "clients": [\n%s\n  ],\n' "$(join "${clients[@]}")"
printf '  "groups": [],\n'
printf '  "roles": [\n%s\n  ]\n}\n' "$(join "${roles[@]}")"
