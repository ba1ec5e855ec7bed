#!/usr/bin/env bash
# Installs what BeaconNet needs on Debian/Ubuntu — only what is missing, non-interactively. Safe
# to run again and again; does nothing when everything is there.
#
#   deploy/scripts/install-deps.sh          # what the programs and the demo need to build and run
#   deploy/scripts/install-deps.sh --test   # that, and the test suite's extras (test.sh runs this)
#
# Without --test: mosquitto, mosquitto-clients, libmosquitto-dev, libbluetooth-dev, libjson-c-dev,
# libsqlite3-dev (beacon-history's database), pkg-config, openssl. With --test also, each only where missing and with one line saying why:
# qemu-system-x86, linux-image-amd64 and busybox-static (the live-scan test's virtual machine, amd64
# only), mmdebstrap (the systemd test's Debian root file system, same machine), chromium,
# prometheus, systemd and postgresql (the browser, promtool, unit-file and beacon-history's
# PostgreSQL tests; where these four cannot be installed, their tests skip, saying so).
#
# Needs root (or sudo) only when a package is actually missing. Another apt or dpkg running (an
# unattended upgrade, another install) is waited for, saying so, up to BEACONNET_APT_LOCK_WAIT
# seconds (default 600), rather than failing at once on its lock.
#
# Exit status: 0 everything is there; 1 a package could not be installed, the lock stayed taken,
# or there is no Swift toolchain; 64 bad arguments.
set -euo pipefail

test_extras=false
case ${1:-} in
    "") ;;
    --test) test_extras=true ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "install-deps: unknown argument $1 (usage: install-deps.sh [--test])" >&2; exit 64 ;;
esac
lock_wait=${BEACONNET_APT_LOCK_WAIT:-600}
[[ $lock_wait =~ ^[0-9]+$ ]] || { echo "install-deps: BEACONNET_APT_LOCK_WAIT=$lock_wait is not a number of seconds" >&2; exit 64; }

updated=false
sudo=""
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# Runs apt-get with "$@"; while another apt or dpkg holds its lock, waits (one message, then a
# try every 5 s) until BEACONNET_APT_LOCK_WAIT has passed. apt's own output is shown on failure.
apt_get() {
    local output deadline=$((SECONDS + lock_wait)) said=false holder
    output=$(mktemp)
    while true; do
        if $sudo apt-get "$@" > "$output" 2>&1; then rm -f "$output"; return 0; fi
        if ! grep -qiE 'could not get lock|unable to acquire the dpkg frontend lock|unable to lock' "$output"; then
            cat "$output" >&2
            rm -f "$output"
            return 1
        fi
        holder=$(pgrep -a -x 'apt|apt-get|aptitude|dpkg|unattended-upgr' 2>/dev/null | head -n 1 || true)
        if ((SECONDS >= deadline)); then
            echo "install-deps: another apt or dpkg still holds the package lock after $lock_wait s${holder:+ ($holder)}: let it finish, then run this again" >&2
            rm -f "$output"
            return 1
        fi
        if ! $said; then
            echo "install-deps: another apt or dpkg is running${holder:+ ($holder)}; waiting for it (up to $lock_wait s)" >&2
            said=true
        fi
        sleep 5
    done
}

# Installs the packages of "$@" that are missing; returns non-zero if that failed.
install_missing() {
    local missing=() package
    for package in "$@"; do installed "$package" || missing+=("$package"); done
    ((${#missing[@]})) || return 0
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; return 1; }
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    if ! $updated; then apt_get update -qq || return 1; updated=true; fi
    apt_get install -y -qq --no-install-recommends "${missing[@]}"
}

# Says why a test extra is wanted, once, if it is missing.
explain() {
    local package=$1 why=$2
    installed "$package" || echo "install-deps: installing $package for the tests: $why" >&2
}

packages=(mosquitto mosquitto-clients libmosquitto-dev libbluetooth-dev libjson-c-dev libsqlite3-dev pkg-config openssl)
missing=()
for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
if ((${#missing[@]})); then
    echo "install-deps: installing ${missing[*]}" >&2
    install_missing "${missing[@]}" || { echo "install-deps: could not install ${missing[*]}" >&2; exit 1; }
fi

if $test_extras; then
    # The live-scan test's virtual machine (deploy/scripts/live-scan-test.sh). Debian ships that
    # kernel for amd64 only; elsewhere the test skips, saying so.
    if [[ $(dpkg --print-architecture 2>/dev/null) == amd64 ]]; then
        vm=(qemu-system-x86 linux-image-amd64 busybox-static mmdebstrap)
        explain qemu-system-x86 "the live-scan test's virtual machine (qemu)"
        explain linux-image-amd64 "the live-scan test's guest kernel, with hci_vhci and 9p (not booted on this host)"
        explain busybox-static "the live-scan test's initramfs"
        explain mmdebstrap "the systemd test's Debian root file system (built once, cached in .build/)"
        install_missing "${vm[@]}" || { echo "install-deps: could not install ${vm[*]}" >&2; exit 1; }
    fi
    # Optional: where they cannot be installed, the tests that need them skip, saying so.
    explain chromium "the dashboard's browser test (headless)"
    explain prometheus "the metrics test's promtool check"
    explain systemd "systemd-analyze verify of deploy/systemd's units (installed, not booted)"
    explain postgresql "beacon-history's PostgreSQL tests (each run starts a private server on a free loopback port)"
    for p in chromium prometheus systemd postgresql; do
        install_missing "$p" || echo "install-deps: could not install $p: the tests that need it will be skipped" >&2
    done
fi

# Debian starts the packaged broker as a service on 1883, and PostgreSQL's on 5432; BeaconNet's
# tests and demo never use them (they start private servers on free loopback ports), so they are
# left as the system has them.

# The Swift toolchain is not a Debian package (bookworm has none); it is expected on PATH or in
# /opt/swift. Say exactly what is missing instead of failing later with "command not found".
if ! command -v swift >/dev/null; then
    if [[ -x /opt/swift/usr/bin/swift ]]; then
        echo "install-deps: swift is in /opt/swift/usr/bin but not on PATH; add it: export PATH=/opt/swift/usr/bin:\$PATH" >&2
    else
        echo "install-deps: no Swift toolchain found; install Swift 6.1 or newer (https://www.swift.org/install/linux/) and put it on PATH" >&2
    fi
    exit 1
fi
