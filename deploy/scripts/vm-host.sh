# Sourced by live-scan-test.sh and systemd-vm-test.sh: what both virtual machines need of the host.

# Sets kernel and kversion to the newest kernel in /boot with the modules the guests need
# (hci_vhci, 9p over virtio), qemu to qemu-system-x86_64, and busybox to a static busybox; each
# empty where there is none (the caller says which is missing).
vm_find_host() {
    local image version modules candidate
    kernel=""
    kversion=""
    for image in $(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V -r); do
        version=${image#/boot/vmlinuz-}
        modules="/lib/modules/$version/modules.dep"
        if [[ -r "$image" && -f "$modules" ]] && grep -q '/hci_vhci\.ko' "$modules" &&
            grep -q '/9pnet_virtio\.ko' "$modules" && grep -q '^kernel/fs/9p/9p\.ko' "$modules"; then
            kernel=$image
            kversion=$version
            break
        fi
    done
    qemu=$(command -v qemu-system-x86_64 || true)
    busybox=""
    for candidate in /bin/busybox /usr/bin/busybox; do
        # The initramfs has no C library: only a static busybox runs there.
        if [[ -x $candidate ]] && ! ldd "$candidate" >/dev/null 2>&1; then busybox=$candidate; break; fi
    done
}

# Puts into the initramfs folder $1 the static busybox and the modules that reach a 9p root over
# virtio (virtio PCI and 9p, with their dependencies in load order, from modules.dep), listed in
# $1/modules/order for its init to insmod.
vm_initramfs_base() {
    local dir=$1 module line dep m known
    local modlist=()
    cp "$busybox" "$dir/bin/busybox"
    for module in virtio_pci 9pnet_virtio 9p; do
        line=$(grep "^kernel/.*/$module\.ko:" "/lib/modules/$kversion/modules.dep" || true)
        [[ -n $line ]] || continue  # built in
        for dep in $(echo ${line#*:} | tr ' ' '\n' | tac) "${line%%:*}"; do
            known=0
            for m in "${modlist[@]}"; do [[ $m == "$dep" ]] && known=1; done
            ((known)) || modlist+=("$dep")
        done
    done
    : >"$dir/modules/order"
    for module in "${modlist[@]}"; do
        cp "/lib/modules/$kversion/$module" "$dir/modules/"
        basename "$module" >>"$dir/modules/order"
    done
}
