#!/usr/bin/env bash
# Installs what BeaconNet needs to build, test and run on Debian/Ubuntu — only what is missing,
# non-interactively. Safe to run again and again; does nothing when everything is there.
#
#   deploy/scripts/install-deps.sh
#
# Needs root (or sudo) only when a package is actually missing.
set -euo pipefail

packages=(mosquitto mosquitto-clients libmosquitto-dev libbluetooth-dev libjson-c-dev libsqlite3-dev pkg-config openssl)
# The live-scan test's virtual machine (deploy/scripts/live-scan-test.sh): qemu, a kernel with the
# Bluetooth and 9p modules, and a static busybox for its initramfs. Debian ships that kernel for
# amd64 only; elsewhere the test skips, saying so.
if [[ $(dpkg --print-architecture 2>/dev/null) == amd64 ]]; then
    packages+=(qemu-system-x86 linux-image-amd64 busybox-static)
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    echo "install-deps: installing ${missing[*]}" >&2
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# For the dashboard's browser test (headless Chromium) and the metrics test (promtool, from
# Debian's prometheus package). Optional: where they cannot be installed those tests skip, saying
# so, and everything else still runs.
optional=()
for p in chromium prometheus; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        optional+=("$p")
    fi
done
if ((${#optional[@]})); then
    echo "install-deps: installing ${optional[*]} (optional: the browser and promtool tests)" >&2
    sudo=""
    [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${optional[@]}" >/dev/null; }; then
        echo "install-deps: could not install ${optional[*]}: the tests that need them will be skipped" >&2
    fi
fi

# Debian starts the packaged broker as a service on 1883; BeaconNet's tests and demo never use it
# (they start private brokers on free loopback ports), so it is left as the system has it.

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
