#!/usr/bin/env bash
# Makes what a BeaconNet broker needs to try users, ACLs and TLS locally, in DIR:
#   dynamic-security.json   every login, its rights and its fixed client id (make-dynsec.sh), for
#                           mosquitto's dynamic-security plugin as central.conf and store.conf load it
#   passwords/USER          one random password per user, and one for dynsec-admin
#   mosquitto_ctrl          mosquitto_ctrl's options file, to administer the broker from its own
#                           host as dynsec-admin: install it as ~/.config/mosquitto_ctrl (mosquitto
#                           2.0's mosquitto_ctrl reads only that one and ignores -o)
#   ca.crt ca.key           a test CA; server.crt server.key for HOST; client.crt client.key
#
#   deploy/scripts/make-credentials.sh DIR [--host broker.example] [make-acl.sh arguments…]
#
# Running it again makes every password, the CA and the certificates anew.
# FOR TRYING THINGS ONLY: the keys are unencrypted and made on this machine. Production keys come
# from your PKI and your secret store, never from this script (make-dynsec.sh takes your own
# passwords).
set -euo pipefail
dir=${1:?usage: make-credentials.sh DIR [--host HOST] [make-acl.sh arguments…] (see the header of make-acl.sh)}
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
admin=dynsec-admin
# make-acl.sh checks the arguments before anything is made, and names the users.
users=$("$here/make-acl.sh" "${args[@]}" | awk '/^user /{print $2}')
mkdir -p "$dir/passwords"
chmod 700 "$dir"
for user in $users $admin; do
    (umask 077 && openssl rand -hex 16 > "$dir/passwords/$user")
done
(umask 077 && "$here/make-dynsec.sh" "$dir/passwords" --admin "$admin" "${args[@]}" > "$dir/dynamic-security.json")
(umask 077 && printf -- '-h 127.0.0.1\n-p 1883\n-u %s\n-i %s\n-P %s\n' "$admin" "$admin" "$(cat "$dir/passwords/$admin")" > "$dir/mosquitto_ctrl")

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
echo "make-credentials: users" $users "and $admin — passwords in $dir/passwords/, logins in $dir/dynamic-security.json, test CA in $dir (not for production)"
