#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer + AddressSanitizer) of the parsers that face the outside: wire
# payloads, topics, HCI events with their AD structures, btsnoop captures, chain and edge configs,
# calibration and ground-truth files, and the dashboard's HTTP routes.
# Builds the Fuzz/ package, seeds each target from ../shared/testdata and the tests' payloads and
# configs (Fuzz/make-seeds.py), runs every target for a bounded time, one after another, and prints
# a summary. Fails on any crash, broken property, leak, timeout or out-of-memory; the input that
# did it is kept and printed with the command that replays it. docs/TESTING.md has the details.
#
#   deploy/scripts/fuzz.sh                    # every target, 60 s each (what test.sh runs)
#   deploy/scripts/fuzz.sh 20                 # 20 s each
#   deploy/scripts/fuzz.sh 300 fuzz-wire      # one target, 5 minutes
#
# The corpus each target grows is kept in Fuzz/.build/fuzz-run/corpus/ and used again by the next
# local run; CI starts from the seeds alone.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
[[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"

seconds=${1:-60}
shift || true
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "fuzz: SECONDS_PER_TARGET must be a positive number, got '$seconds'" >&2; exit 2; }
all_targets=(fuzz-wire fuzz-topics fuzz-hci fuzz-btsnoop fuzz-chain-config fuzz-edge-config fuzz-calibration fuzz-truth fuzz-dashboard)
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")

# What each target reads: its dictionaries (one file per run for libFuzzer, so they are joined) and
# the longest input worth trying (a batch of a few hundred sightings; a topic well past the 512-byte
# limit; several HCI events; the largest shared capture, 123 KB; a request past the login form's
# 16 KiB body limit).
declare -A dicts=(
    [fuzz-wire]="json wire" [fuzz-topics]="topics" [fuzz-hci]="hci" [fuzz-btsnoop]="btsnoop"
    [fuzz-chain-config]="json chain-config" [fuzz-edge-config]="json edge-config" [fuzz-calibration]="json calibration"
    [fuzz-truth]="json truth" [fuzz-dashboard]="dashboard")
declare -A max_len=(
    [fuzz-wire]=65536 [fuzz-topics]=8192 [fuzz-hci]=4096 [fuzz-btsnoop]=131072
    [fuzz-chain-config]=16384 [fuzz-edge-config]=16384 [fuzz-calibration]=16384 [fuzz-truth]=8192 [fuzz-dashboard]=20480)
for target in "${targets[@]}"; do
    [[ -n ${dicts[$target]:-} ]] || { echo "fuzz: no target $target (targets: ${all_targets[*]})" >&2; exit 2; }
done

command -v python3 >/dev/null || { echo "fuzz: python3 is needed to write the seed corpora (Fuzz/make-seeds.py)" >&2; exit 1; }
"$root/deploy/scripts/install-deps.sh"

# libFuzzer comes with the compiler runtime. The Swift toolchain ships its own (clang's, in its
# resource directory); where it does not, Debian's clang runtime provides the library, linked by
# hand with the coverage instrumentation that -sanitize=fuzzer would have added.
arch=$(uname -m)
resource=$(swiftc -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')
flags=(-Xswiftc -sanitize=fuzzer,address)
runtime="the toolchain's libFuzzer"
scratch=$root/Fuzz/.build
if [[ ${BEACONNET_FUZZ_RUNTIME:-} == debian || ! -f $resource/clang/lib/linux/libclang_rt.fuzzer-$arch.a ]]; then
    libfuzzer=$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$arch".a 2>/dev/null | sort -V | tail -1 || true)
    if [[ -z $libfuzzer ]]; then
        echo "fuzz: installing Debian's clang runtime (libclang-rt-dev) for libFuzzer" >&2
        sudo=""
        [[ $(id -u) -ne 0 ]] && sudo="sudo"
        export DEBIAN_FRONTEND=noninteractive
        $sudo apt-get update -qq
        $sudo apt-get install -y -qq --no-install-recommends libclang-rt-dev >/dev/null
        libfuzzer=$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$arch".a | sort -V | tail -1)
    fi
    runtime="Debian's libFuzzer (${libfuzzer%/lib/linux/*})"
    flags=(-Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
        -Xlinker "$libfuzzer" -Xlinker -lstdc++)
    # Built apart, so that switching runtimes never rebuilds the other's objects.
    scratch=$root/Fuzz/.build-debian-runtime
fi
# gold fails on the sanitizer runtimes' symbols (an internal error in its DWARF reader); lld links them.
flags+=(-Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld)
# fuzz-dashboard drives the dashboard's router through its internals (`@testable import`).
flags+=(-Xswiftc -enable-testing)

run=$root/Fuzz/.build/fuzz-run
mkdir -p "$run/corpus" "$run/artifacts" "$run/logs"
log=$run/logs/build.log
echo "fuzz: building Fuzz/ (release, coverage and AddressSanitizer on every module, $runtime)" >&2
started=$SECONDS
if ! swift build -c release --package-path Fuzz --scratch-path "$scratch" "${flags[@]}" >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "fuzz: build failed (log: $log)" >&2
    exit 1
fi
if grep -E "^$root/(Fuzz|Sources)/.*: warning:" "$log" | sort -u | grep .; then
    echo "fuzz: the warnings above must be fixed (the project builds warning-free)" >&2
    exit 1
fi
echo "fuzz: built in $((SECONDS - started)) s" >&2
bin=$(swift build -c release --package-path Fuzz --scratch-path "$scratch" "${flags[@]}" --show-bin-path)

rm -rf "$run/seeds"
python3 "$root/Fuzz/make-seeds.py" "$run/seeds" "$root/../shared/testdata"

# The Swift runtime's own crash handler would run inside ASan's and confuse its report.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0:handle_abort=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/Fuzz/lsan.supp:print_suppressions=0}

# CI fuzzes with a fixed seed, so that a run is repeatable and a red one points at the change that
# made it; elsewhere libFuzzer picks a seed (BEACONNET_FUZZ_SEED sets one).
seed=()
if [[ -n ${BEACONNET_FUZZ_SEED:-} ]]; then
    seed=(-seed="$BEACONNET_FUZZ_SEED")
elif [[ ${CI:-} == true ]]; then
    seed=(-seed=1)
fi
failed=()
summary=()
for target in "${targets[@]}"; do
    dict=$run/$target.dict
    : >"$dict"
    for name in ${dicts[$target]}; do cat "$root/Fuzz/dictionaries/$name.dict" >>"$dict"; done
    mkdir -p "$run/corpus/$target" "$run/seeds/$target"
    rm -f "$run/artifacts/$target"-*
    out=$run/logs/$target.log
    echo "fuzz: $target for ${seconds} s" >&2
    status=0
    # -timeout: one input slower than 10 s is a finding (a hang). The outer timeout only guards
    # against libFuzzer itself not stopping.
    timeout --signal=INT --kill-after=30 $((seconds + 300)) "$bin/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="${max_len[$target]}" "${seed[@]}" \
        -dict="$dict" -print_final_stats=1 -artifact_prefix="$run/artifacts/$target-" \
        "$run/corpus/$target" "$run/seeds/$target" >"$out" 2>&1 || status=$?
    stats=$(python3 - "$out" <<'EOF'
import re, sys
text = open(sys.argv[1], errors="replace").read()
stat = dict(re.findall(r"^stat::(\w+):\s+(\d+)", text, re.M))
last = re.findall(r"^#\d+\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)", text, re.M)
cov, ft, units, size = last[-1] if last else ("?", "?", "?", "?")
print(f"{stat.get('number_of_executed_units', '?'):>10} {stat.get('average_exec_per_sec', '?'):>7} {cov:>6} {ft:>6} {units:>6} {size:>8} {stat.get('peak_rss_mb', '?'):>6}")
EOF
)
    if ((status == 0)); then
        summary+=("$(printf '%-18s %-6s %s' "$target" ok "$stats")")
    else
        failed+=("$target")
        summary+=("$(printf '%-18s %-6s %s' "$target" FAILED "$stats")")
        echo "fuzz: $target FAILED (exit $status); the end of its log ($out):" >&2
        grep -v -E "^#[0-9]+|^INFO:|^MS:|^base unit:|^0x" "$out" | tail -40 >&2
        for artifact in "$run/artifacts/$target"-*; do
            [[ -f $artifact ]] || continue
            echo "fuzz: input: $artifact ($(stat -c %s "$artifact") bytes); replay: $bin/$target $artifact" >&2
            head -c 512 "$artifact" | od -A d -t x1 | head -20 >&2
        done
    fi
done

echo
echo "fuzz: ${seconds} s per target, AddressSanitizer, $runtime"
printf '%-18s %-6s %10s %7s %6s %6s %6s %8s %6s\n' target result execs exec/s cov ft corpus bytes rss_mb
printf '%s\n' "${summary[@]}"
if ((${#failed[@]})); then
    echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]} — fix the parser and add the input as a regression test (docs/TESTING.md)" >&2
    exit 1
fi
