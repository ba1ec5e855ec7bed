#!/usr/bin/env bash
# The systemd test's machine: beacon-edge and beacon-aggregator started by systemd from the shipped
# units, in a virtual machine. Boots Debian's kernel under qemu into a Debian root file system built
# from packages by mmdebstrap (systemd, mosquitto and the programs' libraries; cached as
# .build/systemd-vm-rootfs-<hash>.tar), shared read-write over virtio-9p from a fresh copy per run, with the built
# programs, the Swift runtime, the units of deploy/systemd and the test's drop-ins copied in. In
# there systemd starts mosquitto, the project's virtual controller (beacon-vhci) replaying a
# shared capture, beacon-edge scanning it and beacon-aggregator; the guest's check
# (systemd-vm-guest.sh, a oneshot unit) sees sightings and events published, kills the edge with
# SIGKILL and sees systemd restart it, stops it with systemctl and reads its exit status and
# journal, then powers the machine off.
#
#   deploy/scripts/systemd-vm-test.sh [--bin DIR] [--out DIR]
#   deploy/scripts/systemd-vm-test.sh --check     # can it run here? exit 0, or 2 with the reason
#
# Needs root (the root file system's owners), qemu-system-x86, linux-image-amd64 (a kernel in /boot
# with hci_vhci and 9p modules), busybox-static, mmdebstrap and Debian's mirror the first time (the
# root file system is cached), ../shared/testdata. Exit: 0 every check passed (results/checks.log);
# 1 one failed or the guest did not finish (the console's end is printed); 2 it cannot run here;
# 64 bad arguments.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"

bin=""
out="$root/.build/systemd-vm"
check=0
while (($#)); do
    case "$1" in
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --check) check=1; shift ;;
    *) echo "systemd-vm: unknown argument $1" >&2; exit 64 ;;
    esac
done
# The bound on the whole virtual machine run, in seconds: generous, since TCG slows down
# several times on busy cores (LIVE-SCAN.md gives the measured times).
vm_timeout=${SYSTEMD_VM_TIMEOUT:-900}
cannot() {
    echo "systemd-vm: cannot run here: $*" >&2
    exit 2
}

capture_name=captures/csacca_horizon74_android_legacy/btsnoop_hci.log
capture="$root/../shared/testdata/$capture_name"
# What the root file system holds besides the essential packages; its cache is named by this list.
packages=systemd,systemd-sysv,kmod,mosquitto,mosquitto-clients,libmosquitto1,libjson-c5,libbluetooth3
cache="$root/.build/systemd-vm-rootfs-$(echo "$packages" | md5sum | cut -c1-8).tar"

source "$root/deploy/scripts/vm-host.sh"
vm_find_host
[[ $(uname -m) == x86_64 ]] || cannot "the guest is x86_64 and this machine is $(uname -m)"
[[ $(id -u) == 0 ]] || cannot "not root (the root file system's files belong to its own users)"
[[ -n $qemu ]] || cannot "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
[[ -n $kernel ]] || cannot "no kernel in /boot with hci_vhci and 9p modules (apt-get install linux-image-amd64)"
[[ -n $busybox ]] || cannot "no static busybox (apt-get install busybox-static)"
[[ -f $cache ]] || command -v mmdebstrap >/dev/null || cannot "no mmdebstrap to build the root file system (apt-get install mmdebstrap)"
[[ -r $capture ]] || cannot "no $capture (the shared test data)"
if ((check)); then
    echo "systemd-vm: can run: $kernel under $qemu, $busybox, root file system $cache$([[ -f $cache ]] || echo ' (to build)')"
    exit 0
fi

if [[ -z $bin ]]; then
    echo "systemd-vm: building" >&2
    (cd "$root" && swift build >&2)
    bin=$(cd "$root" && swift build --show-bin-path)
fi
for program in beacon-edge beacon-aggregator beacon-vhci; do
    [[ -x $bin/$program ]] || { echo "systemd-vm: $bin/$program not built (swift build)" >&2; exit 1; }
done

if [[ ! -f $cache ]]; then
    echo "systemd-vm: building the root file system with mmdebstrap into $cache" >&2
    mkdir -p "$(dirname "$cache")"
    mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
    # An interrupted build leaves no half-written archive behind.
    trap 'rm -f "$cache.partial"; exit 1' INT TERM
    mmdebstrap --variant=minbase --format=tar --include="$packages" bookworm "$cache.partial" \
        "${mirror:-http://deb.debian.org/debian}" </dev/null >&2 ||
        { rm -f "$cache.partial"; echo "systemd-vm: mmdebstrap failed" >&2; exit 1; }
    mv "$cache.partial" "$cache"
    trap - INT TERM
fi

rm -rf "$out/root" "$out/initramfs" "$out/initramfs.cpio" "$out/console.log" "$out/results"
mkdir -p "$out/root" "$out/initramfs"/{bin,sbin,proc,sys,dev,newroot,modules} "$out/results"
out=$(cd "$out" && pwd -P)
guest="$out/root"
started=$(date +%s%N)
tar -xf "$cache" -C "$guest"
"$root/deploy/scripts/systemd-vm-setup.sh" "$guest" "$bin" "$capture" "$kversion"
echo "systemd-vm: root file system laid out in $((($(date +%s%N) - started) / 1000000)) ms" >&2

# The initramfs: a static busybox and the modules that reach the root over 9p; its init mounts the
# root and hands over to systemd.
vm_initramfs_base "$out/initramfs"
cat >"$out/initramfs/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules/order); do insmod /modules/$m || echo "init: insmod $m failed"; done
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=mmap root /newroot; then
    echo "init: cannot mount the root"
    poweroff -f
fi
umount /proc /sys
mount --move /dev /newroot/dev
echo "init: handing over to systemd"
exec switch_root /newroot /lib/systemd/systemd
EOF
chmod +x "$out/initramfs/init"
(cd "$out/initramfs" && find . | "$busybox" cpio -o -H newc >"$out/initramfs.cpio" 2>/dev/null)

qemu_pid=""
cleanup() {
    [[ -n $qemu_pid ]] && kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
    qemu_pid=""
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM

accel=${SYSTEMD_VM_ACCEL:-tcg,thread=multi}
echo "systemd-vm: booting $kernel under qemu ($accel) into systemd" >&2
started=$(date +%s%N)
timeout --kill-after=10 "$vm_timeout" "$qemu" \
    -nodefaults -no-user-config -machine pc -accel "$accel" -smp 2 -m 1536 \
    -display none -monitor none -serial "file:$out/console.log" -no-reboot -nic none \
    -kernel "$kernel" -initrd "$out/initramfs.cpio" \
    -append "console=ttyS0 quiet panic=-1 rw systemd.show_status=1 systemd.log_color=0" \
    -virtfs "local,path=$guest,mount_tag=root,security_model=passthrough,multidevs=remap" \
    -virtfs "local,path=/lib/modules/$kversion,mount_tag=modules,security_model=none,readonly=on,multidevs=remap" &
qemu_pid=$!
status=0
wait "$qemu_pid" || status=$?
qemu_pid=""
elapsed=$((($(date +%s%N) - started) / 1000000))
echo "systemd-vm: the virtual machine ran $((elapsed / 1000)).$(printf %03d $((elapsed % 1000))) s (exit $status)" >&2

cp -r "$guest/root/results/." "$out/results/" 2>/dev/null || true
if [[ ! -f $out/results/done ]]; then
    ((status == 124 || status == 137)) && echo "systemd-vm: the virtual machine did not finish within $vm_timeout s" >&2
    echo "systemd-vm: the guest's check did not finish; the console ($out/console.log) ends:" >&2
    tail -n 60 "$out/console.log" >&2 || true
    exit 1
fi
cat "$out/results/checks.log" >&2
if grep -q '^FAIL' "$out/results/checks.log" || ! grep -q '^ok' "$out/results/checks.log"; then
    echo "systemd-vm: a check failed; results in $out/results (journal.log: the guest's journal)" >&2
    exit 1
fi
echo "systemd-vm: every check passed; results in $out/results" >&2
