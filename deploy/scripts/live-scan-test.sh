#!/usr/bin/env bash
# The live-scan test's machine: beacon-edge against a real Linux Bluetooth stack, in a virtual
# machine. Boots Debian's kernel under qemu (TCG: no KVM needed), with this machine's root shared
# read-only over virtio-9p for the system's programs, and the package, the built programs and the
# test data shared on their own, wherever they are (the guest's /tmp is a fresh tmpfs, which would
# hide a checkout under the host's /tmp). Inside: hci_vhci, the project's virtual controller
# (beacon-vhci) replaying the shared captures' advertising reports with their recorded RSSI, a
# private mosquitto on loopback, beacon-edge scanning the controller's adapter through its raw HCI
# socket, and mosquitto_sub recording what it publishes — once per controller profile (legacy, extended).
# Then SIGTERM to the edge, and the controller says whether scanning was left off.
#
# The verdict is LiveScanTests' (Tests/BeaconEdgeTests/LiveScanTests.swift): it runs this script
# and compares the recorded sightings with `beacon-edge decode` of the same captures. Run alone,
# the script leaves everything in OUT (default .build/live-scan): console.log (the guest's
# console), results/<profile>.{controller,edge,mqtt,...}.log, results/guest.log.
#
#   deploy/scripts/live-scan-test.sh [--bin DIR] [--out DIR] [--profiles "legacy extended"]
#   deploy/scripts/live-scan-test.sh --check     # can it run here? exit 0, or 2 with the reason
#
# Needs qemu-system-x86, linux-image-amd64 (any kernel in /boot with hci_vhci and 9p modules) and
# busybox-static (deploy/scripts/install-deps.sh installs them), mosquitto and mosquitto-clients,
# and ../shared/testdata. Exit: 0 the guest ran every profile; 1 it did not, or never started (the
# console log is printed); 2 it cannot run here (the reason is printed); 64 bad arguments.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"

bin=""
out="$root/.build/live-scan"
profiles="legacy extended"
check=0
while (($#)); do
    case "$1" in
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --profiles) profiles=$2; shift 2 ;;
    --check) check=1; shift ;;
    *) echo "live-scan: unknown argument $1" >&2; exit 64 ;;
    esac
done

# The bound on the whole virtual machine run, in seconds: a run takes 30-75 s on 2 busy cores, and
# several times that while every other test runs beside it (plain `swift test`).
vm_timeout=${LIVE_SCAN_TIMEOUT:-600}

cannot() {
    echo "live-scan: cannot run here: $*" >&2
    exit 2
}

testdata="$root/../shared/testdata"
# The captures the controller replays, in its order, by their path under the test data.
capture_names=(
    captures/csacca_horizon74_android_legacy/btsnoop_hci.log
    captures/mauricelam_btsnoop_rs_testdata/btsnoop_hci_android.log
)
captures=()
for name in "${capture_names[@]}"; do captures+=("$testdata/$name"); done
# Where the guest mounts the package, the programs, the test data and the results (on a tmpfs).
shares=/run/live-scan

source "$root/deploy/scripts/vm-host.sh"
vm_find_host
[[ $(uname -m) == x86_64 ]] || cannot "the guest is x86_64 and this machine is $(uname -m)"
[[ -n $qemu ]] || cannot "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
[[ -n $kernel ]] || cannot "no kernel in /boot with hci_vhci and 9p modules (apt-get install linux-image-amd64)"
[[ -n $busybox ]] || cannot "no static busybox (apt-get install busybox-static)"
for tool in mosquitto mosquitto_sub mosquitto_pub; do
    command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] || cannot "no $tool (apt-get install mosquitto mosquitto-clients)"
done
for capture in "${captures[@]}"; do
    [[ -r $capture ]] || cannot "no $capture (the shared test data)"
done
if ((check)); then
    echo "live-scan: can run: $kernel under $qemu (TCG), $busybox"
    exit 0
fi

if [[ -z $bin ]]; then
    echo "live-scan: building" >&2
    (cd "$root" && swift build >&2)
    bin=$(cd "$root" && swift build --show-bin-path)
fi
for program in beacon-edge beacon-vhci; do
    [[ -x $bin/$program ]] || { echo "live-scan: $bin/$program not built (swift build)" >&2; exit 1; }
done
# Physical paths: each is shared into the guest on its own, and a symbolic link pointing out of
# a shared folder would lead nowhere there.
bin=$(cd "$bin" && pwd -P)
package=$(cd "$root" && pwd -P)
testdata=$(cd "$testdata" && pwd -P)

# Only what an earlier run left: OUT may be any folder.
rm -rf "$out/results" "$out/initramfs" "$out/initramfs.cpio" "$out/console.log"
mkdir -p "$out/results" "$out/initramfs"/{bin,sbin,proc,sys,dev,host,modules}
out=$(cd "$out" && pwd)
results="$out/results"

# What a complete run publishes, for the guest to know when to stop waiting: every report of the
# captures that has an identity and an RSSI (decode's lines with "dev" and "rssi", not malformed).
expected=0
for capture in "${captures[@]}"; do
    n=$("$bin/beacon-edge" decode "$capture" 2>/dev/null | grep '"dev"' | grep '"rssi"' | grep -vc '"malformed"' || true)
    expected=$((expected + n))
done

# The initramfs: a static busybox, the modules that reach the host's root (virtio PCI and 9p, with
# their dependencies in load order, from modules.dep), and an init that mounts that root and the
# four shares, gives the kernel a modprobe (the Bluetooth stack and its crypto autoload through
# it) and runs the guest script inside the host's root.
vm_initramfs_base "$out/initramfs"
cat >"$out/initramfs/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in \$(cat /modules/order); do insmod /modules/\$m || echo "init: insmod \$m failed"; done
opts=trans=virtio,version=9p2000.L,msize=512000
if ! mount -t 9p -o \$opts,ro,cache=loose hostroot /host; then
    echo "init: cannot mount the host's root"
    poweroff -f
fi
mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -t devtmpfs devtmpfs /host/dev
mount -t tmpfs tmpfs /host/tmp
mount -t tmpfs tmpfs /host/run
# The package, the programs and the test data (read-only) and the results, each shared on its
# own: the tmpfs on /tmp above hides whatever of them lives under the host's /tmp.
for share in package bin testdata results; do
    mkdir -p /host$shares/\$share
    ro=,ro
    [ \$share = results ] && ro=
    mount -t 9p -o \$opts\$ro \$share /host$shares/\$share || echo "init: cannot mount the \$share share"
done
if [ ! -r /host$shares/package/deploy/scripts/live-scan-guest.sh ]; then
    echo "init: no deploy/scripts/live-scan-guest.sh in the package share"
    poweroff -f
fi
printf '#!/bin/sh\nexec chroot /host /sbin/modprobe "\$@"\n' >/sbin/modprobe
chmod +x /sbin/modprobe
echo /sbin/modprobe >/proc/sys/kernel/modprobe
ip link set lo up
echo "init: running the guest script"
chroot /host /bin/bash $shares/package/deploy/scripts/live-scan-guest.sh </dev/null 2>&1 | tee /host$shares/results/guest.log
sync
poweroff -f
EOF
chmod +x "$out/initramfs/init"
(cd "$out/initramfs" && find . | "$busybox" cpio -o -H newc >"$out/initramfs.cpio" 2>/dev/null)

# What the guest script reads, with the paths it sees: the captures under the test data's share.
guest_captures=()
for name in "${capture_names[@]}"; do guest_captures+=("$shares/testdata/$name"); done
{
    printf 'BIN=%q\nPROFILES=%q\nEXPECTED=%q\n' "$shares/bin" "$profiles" "$expected"
    printf 'CAPTURES=(%s)\n' "$(printf '%q ' "${guest_captures[@]}")"
} >"$results/env"

qemu_pid=""
cleanup() {
    [[ -n $qemu_pid ]] && kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
    qemu_pid=""
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

echo "live-scan: booting $kernel under qemu (TCG), profiles: $profiles; expecting $expected sightings each" >&2
started=$(date +%s%N)
# KVM is left alone on purpose: on these machines it hangs a stock kernel; TCG is slower but sure.
timeout --kill-after=10 "$vm_timeout" "$qemu" \
    -nodefaults -no-user-config -machine pc -accel tcg,thread=multi -smp 2 -m 1536 \
    -display none -monitor none -serial "file:$out/console.log" -no-reboot -nic none \
    -kernel "$kernel" -initrd "$out/initramfs.cpio" -append "console=ttyS0 quiet panic=-1" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs "local,path=$package,mount_tag=package,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$bin,mount_tag=bin,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$testdata,mount_tag=testdata,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$results,mount_tag=results,security_model=none,multidevs=remap" &
qemu_pid=$!
status=0
wait "$qemu_pid" || status=$?
qemu_pid=""
elapsed=$((($(date +%s%N) - started) / 1000000))
echo "live-scan: the virtual machine ran $((elapsed / 1000)).$(printf %03d $((elapsed % 1000))) s (exit $status)" >&2

if [[ ! -f $results/done ]]; then
    if ((status == 124 || status == 137)); then
        echo "live-scan: the virtual machine did not finish within $vm_timeout s" >&2
    fi
    if [[ -f $results/started ]]; then
        echo "live-scan: the guest did not finish; its console ($out/console.log) ends:" >&2
    else
        echo "live-scan: the guest script never started; the console ($out/console.log) ends:" >&2
    fi
    tail -n 60 "$out/console.log" >&2 || true
    exit 1
fi
echo "live-scan: done; results in $results" >&2
