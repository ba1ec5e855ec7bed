#!/usr/bin/env bash
# Makes what a BeaconNet broker needs to try users, ACLs and TLS locally, in DIR:
#   passwd          a mosquitto password file with one random password per user (passwords/USER)
#   acl             from make-acl.sh
#   ca.crt ca.key   a test CA; server.crt server.key for HOST; client.crt client.key
#
#   deploy/scripts/make-credentials.sh DIR [--host broker.example] [make-acl.sh arguments…]
#
# FOR TRYING THINGS ONLY: the keys are unencrypted and made on this machine. Production keys come
# from your PKI and your secret store, never from this script.
set -euo pipefail
dir=${1:?usage: make-credentials.sh DIR [--host HOST] [--gateway ID:STORE …] [--aggregator ID …] [--dashboard ID …]}
shift
host=localhost
args=()
while (($#)); do
    case $1 in
        --host) host=$2; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$dir/passwords"
chmod 700 "$dir"
"$here/make-acl.sh" "${args[@]}" > "$dir/acl"
: > "$dir/passwd"
for user in $(awk '/^user /{print $2}' "$dir/acl"); do
    password=$(openssl rand -hex 16)
    printf '%s\n' "$password" > "$dir/passwords/$user"
    mosquitto_passwd -b "$dir/passwd" "$user" "$password"
done
chmod 600 "$dir/passwd" "$dir/passwords/"*

openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=BeaconNet test CA" \
    -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
for name in server client; do
    cn=$([[ $name == server ]] && echo "$host" || echo "beaconnet-client")
    openssl req -newkey rsa:2048 -nodes -subj "/CN=$cn" -keyout "$dir/$name.key" -out "$dir/$name.csr" 2>/dev/null
    printf 'subjectAltName=DNS:%s,IP:127.0.0.1\n' "$host" > "$dir/$name.ext"
    openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 30 \
        -extfile "$dir/$name.ext" -out "$dir/$name.crt" 2>/dev/null
    rm -f "$dir/$name.csr" "$dir/$name.ext"
done
chmod 600 "$dir"/*.key
echo "make-credentials: users $(awk '/^user /{printf "%s ", $2}' "$dir/acl")— passwords in $dir/passwords/, test CA in $dir (not for production)"
