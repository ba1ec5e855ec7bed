#!/usr/bin/env bash
# Lays out the systemd test's guest (systemd-vm-test.sh) in a fresh copy of its root file system:
# the programs and the Swift runtime they link, the shipped units of deploy/systemd with the test's
# drop-ins (the virtual controller before the edge; nothing else changed), their configs and
# credential files, a unit for the virtual controller, and the guest's check as a oneshot unit.
#
#   deploy/scripts/systemd-vm-setup.sh ROOT BIN CAPTURE KERNEL_VERSION
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
guest=$1 bin=$2 capture=$3 kversion=$4
gateway=gw-vm
# The sightings the replay yields: decode's whole adverts with a device id and an RSSI, what an
# edge with allow_all publishes.
expected=$("$bin/beacon-edge" decode "$capture" 2>/dev/null | grep '"dev"' | grep '"rssi"' | grep -vc '"malformed"' || true)

install -m 755 "$bin/beacon-edge" "$bin/beacon-aggregator" "$bin/beacon-vhci" "$guest/usr/local/bin/"
# The debug programs find the Swift runtime by their RUNPATH, at the toolchain's path.
runtime=$(readelf -d "$bin/beacon-edge" | sed -n 's/.*RUNPATH.*\[\([^:]*\).*/\1/p')
if [[ -n $runtime && -d $runtime ]]; then
    mkdir -p "$guest$runtime"
    cp "$runtime"/*.so "$guest$runtime/"
fi
mkdir -p "$guest/etc/systemd/system/multi-user.target.wants" "$guest/opt/beaconnet-test" "$guest/root/results" "$guest/etc/beaconnet" "$guest/lib/modules/$kversion"
cp "$capture" "$guest/opt/beaconnet-test/capture.log"
cp "$root/deploy/scripts/systemd-vm-guest.sh" "$guest/opt/beaconnet-test/guest.sh"
printf 'GATEWAY=%q\nEXPECTED=%q\n' "$gateway" "$expected" >"$guest/opt/beaconnet-test/env"

# The host's modules of the guest's kernel, shared read-only (hci_vhci and the Bluetooth stack).
cat >>"$guest/etc/fstab" <<EOF
modules /lib/modules/$kversion 9p trans=virtio,version=9p2000.L,ro 0 0
EOF
echo beaconnet-vm >"$guest/etc/hostname"
# A machine id of its own, made at first boot without asking.
: >"$guest/etc/machine-id"
# What a headless test machine does not need: login prompts, and file system upkeep.
for unit in getty.target getty-static.service serial-getty@ttyS0.service e2scrub_reap.service \
    apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer; do
    ln -sf /dev/null "$guest/etc/systemd/system/$unit"
done
# The journal in memory: writing it to the 9p root is slow under an emulated CPU. The check saves
# it to its results before powering off.
mkdir -p "$guest/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' >"$guest/etc/systemd/journald.conf.d/test.conf"

# The broker: Debian's unit and config, plus a loopback listener open to any login (the units'
# logins and password files are kept as shipped; this broker does not check them).
cat >"$guest/etc/mosquitto/conf.d/beaconnet-test.conf" <<EOF
listener 1883 127.0.0.1
allow_anonymous true
EOF

# The shipped units, unchanged.
for unit in beacon-edge.service beacon-aggregator.service; do
    cp "$root/deploy/systemd/$unit" "$guest/etc/systemd/system/"
    ln -sf "/etc/systemd/system/$unit" "$guest/etc/systemd/system/multi-user.target.wants/$unit"
done
cat >"$guest/etc/beaconnet/edge.json" <<EOF
{ "gateway": "$gateway", "store": 1, "section": 1, "broker": { "host": "127.0.0.1", "port": 1883, "username": "$gateway" },
  "scan": { "adapter": "hci0" }, "allow_all": true, "batch_window_ms": 100, "status_interval_s": 5 }
EOF
cat >"$guest/etc/beaconnet/chain.json" <<EOF
{ "site_uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
  "stores": [ { "major": 1, "name": "Test", "sections": [ { "minor": 1, "name": "Entrance" } ] } ],
  "gateways": [ { "id": "$gateway", "store": 1, "section": 1 } ] }
EOF
for login in edge agg-1 agg-1-out; do
    echo "not-checked-$login" >"$guest/etc/beaconnet/$login.password"
    chmod 600 "$guest/etc/beaconnet/$login.password"
done

# The test's settings, as drop-ins: the edge scans the virtual controller's adapter, so it starts
# after it; and it starts once the broker is up, which the unit leaves to its Restart=.
mkdir -p "$guest/etc/systemd/system/beacon-edge.service.d"
cat >"$guest/etc/systemd/system/beacon-edge.service.d/test.conf" <<EOF
[Unit]
Wants=beacon-vhci.service mosquitto.service
After=beacon-vhci.service mosquitto.service
EOF

# The virtual controller: creates hci0 through /dev/vhci and replays the capture on SIGUSR1.
cat >"$guest/etc/systemd/system/beacon-vhci.service" <<EOF
[Unit]
Description=BeaconNet test: the virtual HCI controller
[Service]
ExecStartPre=/sbin/modprobe hci_vhci
ExecStart=/usr/local/bin/beacon-vhci --profile legacy --capture /opt/beaconnet-test/capture.log --wait-for-go
StandardOutput=file:/run/beacon-vhci.log
StandardError=journal
# Started once its adapter exists.
ExecStartPost=/bin/sh -c 'until grep -q "^ready hci" /run/beacon-vhci.log; do sleep 0.1; done'
TimeoutStartSec=180
EOF

cat >"$guest/etc/systemd/system/beaconnet-test.service" <<EOF
[Unit]
Description=BeaconNet test: the guest's check
After=beacon-edge.service beacon-aggregator.service mosquitto.service
[Service]
Type=oneshot
ExecStart=/bin/bash /opt/beaconnet-test/guest.sh
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity
EOF
ln -sf /etc/systemd/system/beaconnet-test.service "$guest/etc/systemd/system/multi-user.target.wants/beaconnet-test.service"
