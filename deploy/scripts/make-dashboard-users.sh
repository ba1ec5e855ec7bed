#!/usr/bin/env bash
# Makes the live dashboard's users file, for beacon-dashboard --users FILE (docs/DASHBOARD.md,
# "The login"): one line per user, NAME:STORES:HASH, the hash bcrypt's.
#
#   deploy/scripts/make-dashboard-users.sh FILE NAME[:STORES] … [--passwords DIR]
#
# STORES is `all` (the default: the whole chain) or a list such as 101,103-110 (those stores only;
# the API and the page show nothing of the others). Every user only reads: the dashboard changes
# nothing. Each user's password is the first line of DIR/NAME when that file exists, else a random
# one is made and written there (mode 600); DIR is FILE's directory's dashboard-passwords/ unless
# --passwords says otherwise. Running it again rewrites FILE and keeps the passwords.
#
# The hashes come from beacon-dashboard --hash-password (the password on its standard input, never
# on a command line): the program is looked for in $BEACONNET_BIN, then on PATH, then in
# .build/release and .build/debug.
set -euo pipefail
usage="usage: make-dashboard-users.sh FILE NAME[:STORES] … [--passwords DIR]"
file=${1:?$usage}
shift
passwords=$(dirname "$file")/dashboard-passwords
entries=()
while (($#)); do
    case $1 in
        --passwords) passwords=${2:?$usage}; shift 2 ;;
        -*) echo "make-dashboard-users: unknown option $1 ($usage)" >&2; exit 64 ;;
        *) entries+=("$1"); shift ;;
    esac
done
((${#entries[@]})) || { echo "make-dashboard-users: no user given ($usage)" >&2; exit 64; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dashboard=
for candidate in ${BEACONNET_BIN:+"$BEACONNET_BIN/beacon-dashboard"} "$(command -v beacon-dashboard || true)" \
    "$root/.build/release/beacon-dashboard" "$root/.build/debug/beacon-dashboard"; do
    [[ -n $candidate && -x $candidate ]] && { dashboard=$candidate; break; }
done
[[ -n $dashboard ]] || { echo "make-dashboard-users: beacon-dashboard not found: build it, or set BEACONNET_BIN to its directory" >&2; exit 69; }

# Checked before anything is written; the dashboard checks the store numbers again when it loads.
declare -A seen=()
for entry in "${entries[@]}"; do
    name=${entry%%:*}
    stores=all
    [[ $entry == *:* ]] && stores=${entry#*:}
    [[ $name =~ ^[A-Za-z0-9._-]{1,64}$ ]] || { echo "make-dashboard-users: $name: a name is 1–64 letters, digits, '.', '_' or '-'" >&2; exit 64; }
    [[ $stores =~ ^(all|[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*)$ ]] \
        || { echo "make-dashboard-users: $name: stores \"$stores\" are not 'all' or a list like 101,103-110" >&2; exit 64; }
    [[ -z ${seen[$name]:-} ]] || { echo "make-dashboard-users: $name is given twice" >&2; exit 64; }
    seen[$name]=1
done

mkdir -p "$passwords"
chmod 700 "$passwords"
lines=("# beacon-dashboard users: NAME:STORES:HASH (made by make-dashboard-users.sh)")
summary=()
for entry in "${entries[@]}"; do
    name=${entry%%:*}
    stores=all
    [[ $entry == *:* ]] && stores=${entry#*:}
    [[ -s $passwords/$name ]] || (umask 077 && openssl rand -hex 12 > "$passwords/$name")
    hash=$(head -n 1 "$passwords/$name" | "$dashboard" --hash-password)
    lines+=("$name:$stores:$hash")
    summary+=("$name ($stores)")
done
(umask 077 && printf '%s\n' "${lines[@]}" > "$file.tmp" && mv "$file.tmp" "$file")
echo "make-dashboard-users: ${summary[*]} in $file; passwords in $passwords/"
