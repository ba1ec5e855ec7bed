#ifndef BEACONNET_CMOSQUITTO_SHIM_H
#define BEACONNET_CMOSQUITTO_SHIM_H
// libmosquitto (apt: libmosquitto-dev). Only the public client header.
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <errno.h>

/// errno as seen right after a failing libmosquitto call (MOSQ_ERR_ERRNO); Swift cannot read
/// the thread-local macro directly.
static inline int bn_mosq_errno(void) { return errno; }
#endif
