// calloc for BeaconNet's processes: small blocks go through malloc, and so through glibc's
// per-thread cache.
//
// Why: json-c builds a tree of small heap blocks for every payload and frees it after the walk;
// each JSON object's hash table is two calloc() calls. glibc's calloc never uses the per-thread
// cache (tcache) that malloc and free use: every call runs the general allocator, whose small-bin
// path then walks the bin to refill the cache — blocks that calloc itself will never take. With
// the aggregator's device state around, those walks miss the CPU cache; measured, _int_malloc was
// ~28 % of the aggregator benchmark's CPU samples, ~2 % with this file (docs/MEASUREMENTS.md).
//
// Mechanism: a calloc defined in the executable interposes the C library's for the whole process
// (the dynamic linker looks in the executable first); blocks still come from glibc's malloc, so
// free() and realloc() need no change. Large requests (beyond the cache's largest block) keep
// glibc's calloc, which skips the memset for fresh pages. BEACONNET_NO_ALLOCATOR_TUNING (set to
// anything) switches this off at start-up, as it does the tcache tunable.
//
// Only BeaconNet's executables link this (the BeaconAllocator target), never a library product.
// It assumes glibc's malloc is the process's allocator: it is compiled out under the address and
// thread sanitizers, and does not mix with an allocator loaded by LD_PRELOAD (jemalloc, tcmalloc,
// heaptrack): their free() would receive glibc's blocks.
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bn_allocator.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BN_SANITIZED 1
#endif
#endif

#if defined(__GLIBC__) && defined(__linux__) && !defined(BN_SANITIZED)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);

// glibc's tcache holds blocks up to 1032 bytes; above that malloc takes its general path anyway.
#define BN_CACHED_LIMIT 1024

// -1: not decided yet; 0: glibc's calloc; 1: through malloc. Decided on the first call once the
// environment is in place; threads that race only store the same decision (relaxed atomics).
static int bn_mode = -1;

extern char **environ;

static int bn_decide(void) {
    // A call before the C library has set up the environment (the dynamic linker's own early
    // allocations) takes glibc's calloc and decides nothing, so the switch is never missed.
    if (environ == NULL) return 0;
    int mode = getenv("BEACONNET_NO_ALLOCATOR_TUNING") != NULL ? 0 : 1;
    __atomic_store_n(&bn_mode, mode, __ATOMIC_RELAXED);
    return mode;
}

void *calloc(size_t count, size_t size) {
    size_t total;
    if (__builtin_mul_overflow(count, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    int mode = __atomic_load_n(&bn_mode, __ATOMIC_RELAXED);
    if (mode < 0) mode = bn_decide();
    if (mode == 0 || total > BN_CACHED_LIMIT) return __libc_calloc(count, size);
    void *block = __libc_malloc(total);
    if (block != NULL) memset(block, 0, total);
    return block;
}

int bn_calloc_through_cache(void) {
    int mode = __atomic_load_n(&bn_mode, __ATOMIC_RELAXED);
    if (mode < 0) mode = bn_decide();
    return mode;
}
#else
int bn_calloc_through_cache(void) { return 0; }
#endif
