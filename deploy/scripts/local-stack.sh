# Sourced by demo.sh and soak.sh: builds the release binaries and starts a private mosquitto on a
# free loopback port, with a temporary directory and a trap that, on any exit (Ctrl-C included),
# stops every process the script started — newest first, so the aggregator can still say offline
# while the broker is up — and removes the directory.
#
#   source "$root/deploy/scripts/local-stack.sh"
#   stack_build                     # sets $bin
#   stack_start demo 100000         # name, broker queue depth; sets $work and $port
#   some-program & stack_track $!   # stopped on exit

stack_build() {
    "$root/deploy/scripts/install-deps.sh"
    echo "${stack_name:-stack}: building (release; the first build takes a few minutes)…" >&2
    swift build -c release --product beacon-aggregator >&2
    swift build -c release --product beacon-sim >&2
    bin=$(swift build -c release --show-bin-path)
}

stack_pids=()

stack_track() { stack_pids+=("$@"); }

stack_cleanup() {
    trap - EXIT INT TERM
    for ((i = ${#stack_pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${stack_pids[i]}" 2>/dev/null || true
        wait "${stack_pids[i]}" 2>/dev/null || true
    done
    [[ -n ${work:-} ]] && rm -rf "$work"
}

stack_start() {
    stack_name=$1
    local queue=${2:-100000}
    work=$(mktemp -d -t "beaconnet-$stack_name.XXXXXX")
    trap stack_cleanup EXIT
    trap 'echo; echo "$stack_name: interrupted, cleaning up" >&2; exit 130' INT TERM

    # A free loopback port: one nobody answers on.
    port=""
    for _ in $(seq 1 50); do
        local candidate=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
    done
    [[ -n $port ]] || { echo "$stack_name: no free port found" >&2; exit 1; }

    printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages %s\n' \
        "$port" "$queue" > "$work/mosquitto.conf"
    mosquitto -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
    stack_track $!
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "$stack_name: mosquitto did not start on port $port:" >&2
    cat "$work/mosquitto.log" >&2
    exit 1
}
