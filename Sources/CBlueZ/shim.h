#ifndef BEACONNET_CBLUEZ_SHIM_H
#define BEACONNET_CBLUEZ_SHIM_H
// BlueZ libbluetooth (apt: libbluetooth-dev): raw HCI sockets and the HCI command helpers.
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <unistd.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

// BlueZ spells several things as macros that Swift cannot import; these are their function forms.

/// Host-to-Bluetooth (little-endian) 16-bit order, the `htobs` macro.
static inline uint16_t bn_htobs(uint16_t v) { return htobs(v); }
/// Bluetooth-to-host 16-bit order, the `btohs` macro.
static inline uint16_t bn_btohs(uint16_t v) { return btohs(v); }
/// errno right after a failing call, read before anything else can change it.
static inline int bn_errno(void) { return errno; }

/// Clear an HCI socket filter (`hci_filter_clear`).
static inline void bn_hci_filter_clear(struct hci_filter *f) { hci_filter_clear(f); }
/// Accept one HCI packet type (`hci_filter_set_ptype`).
static inline void bn_hci_filter_set_ptype(int t, struct hci_filter *f) { hci_filter_set_ptype(t, f); }
/// Accept one HCI event code (`hci_filter_set_event`).
static inline void bn_hci_filter_set_event(int e, struct hci_filter *f) { hci_filter_set_event(e, f); }

/// Read the socket's current filter so it can be restored on exit.
static inline int bn_hci_get_filter(int dd, struct hci_filter *f) {
    socklen_t len = sizeof(*f);
    return getsockopt(dd, SOL_HCI, HCI_FILTER, f, &len);
}
/// Install a filter on an HCI socket.
static inline int bn_hci_set_filter(int dd, const struct hci_filter *f) {
    return setsockopt(dd, SOL_HCI, HCI_FILTER, f, sizeof(*f));
}

/// Whether an adapter is up (`hci_test_bit(HCI_UP, &di->flags)`).
static inline int bn_hci_dev_is_up(const struct hci_dev_info *di) {
    return hci_test_bit(HCI_UP, (void *)&di->flags);
}
/// Bring an adapter up (`ioctl(HCIDEVUP)`, the macro does not import); needs CAP_NET_ADMIN.
/// Fails with ERFKILL when the radio is blocked, EALREADY when it is up.
static inline int bn_hci_dev_up(int dd, int dev_id) { return ioctl(dd, HCIDEVUP, dev_id); }
/// Wait for `fd` to be readable for at most `timeout_ms`: 1 readable, 0 timeout, -1 error
/// (errno set), -2 the socket reported an error or hang-up (the adapter went away).
static inline int bn_poll_readable(int fd, int timeout_ms) {
    struct pollfd pfd = { .fd = fd, .events = POLLIN, .revents = 0 };
    int rc = poll(&pfd, 1, timeout_ms);
    if (rc <= 0) return rc;
    if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) return -2;
    return 1;
}
#endif
