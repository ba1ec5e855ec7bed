#ifndef BN_ALLOCATOR_H
#define BN_ALLOCATOR_H

/// 1 when this process's calloc is BeaconNet's (small blocks through malloc's per-thread cache),
/// 0 when glibc's own runs (BEACONNET_NO_ALLOCATOR_TUNING set, or not glibc). Calling it also
/// keeps the object that defines calloc in every executable that links BeaconWire.
int bn_calloc_through_cache(void);

#endif
