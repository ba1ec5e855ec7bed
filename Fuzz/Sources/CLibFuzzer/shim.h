#ifndef BEACONNET_CLIBFUZZER_SHIM_H
#define BEACONNET_CLIBFUZZER_SHIM_H
// libFuzzer's driver, from the compiler runtime that `-sanitize=fuzzer` links (libclang_rt.fuzzer).
// SwiftPM links every executable's own entry point as `main`, so libFuzzer's `main` is never used:
// each target's `main` hands its callback to this function instead (LLVM's documented way to run
// libFuzzer from a program that has a main of its own).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
#endif
