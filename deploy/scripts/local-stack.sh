# Sourced by demo.sh and soak.sh: a temporary directory with one log file, the release binaries,
# and a private mosquitto on a free loopback port. On any exit — the end, an error, Ctrl-C — it
# stops every process the script started within a few seconds (SIGTERM, then SIGKILL for what is
# still there) and removes the directory's other files: the log stays where the script said.
#
#   source "$root/deploy/scripts/local-stack.sh"
#   stack_init demo                   # name; sets $work and $log, installs the traps
#   stack_build                       # installs what is missing, builds every program (release)
#                                     # into $log, so install.sh --no-build works after; sets $bin
#   stack_broker 100000               # broker queue depth; sets $port
#   stack_spawn some-program args…    # in the background, its own session; its pid in $!
#   stack_wait_exit "$!"              # waits for one to end, with its status
#
# Every program is started in a session of its own, so a Ctrl-C at the terminal reaches only the
# script, which then stops them in order: the broker last, so that the others can still say
# goodbye to it. Their standard error goes to $log, never to the terminal.
# BEACONNET_BIN=DIR uses the binaries already built in DIR (e.g. .build/debug) instead of building.

stack_pids=()
stack_broker_pid=""

stack_init() {
    stack_name=$1
    work=$(mktemp -d -t "beaconnet-$stack_name.XXXXXX")
    log="$work/$stack_name.log"
    : > "$log"
    trap stack_cleanup EXIT
    trap 'printf "\n%s\n" "$stack_name: interrupted; stopping" >&2; exit 130' INT TERM
}

stack_build() {
    if [[ -n ${BEACONNET_BIN:-} ]]; then
        bin=$(cd "$BEACONNET_BIN" && pwd)
        return
    fi
    "$root/deploy/scripts/install-deps.sh"
    # One line here; the compiler's progress and the dependencies' warnings go to the log. Every
    # program, not only those the script runs: the shared modules are built once either way, and
    # deploy/scripts/install.sh --no-build then finds all five.
    echo "$stack_name: building… (release; the first build takes a few minutes)" >&2
    local product
    for product in beacon-edge beacon-aggregator beacon-dashboard beacon-sim beacon-history; do
        if ! swift build -c release --product "$product" >> "$log" 2>&1; then
            echo "$stack_name: building $product failed" >&2
            exit 1
        fi
    done
    bin=$(swift build -c release --show-bin-path 2>> "$log")
}

# Runs "$@" in the background in a session of its own (no terminal signals), standard error to
# $log, and stops it on exit.
stack_spawn() {
    setsid "$@" 2>> "$log" &
    stack_pids+=("$!")
}

# Waits for `pid`, started with stack_spawn, to end; returns its status. It is no longer stopped
# on exit (its pid may be another process's by then).
stack_wait_exit() {
    local pid=$1 status=0 kept=() other
    wait "$pid" || status=$?
    for other in "${stack_pids[@]}"; do [[ $other != "$pid" ]] && kept+=("$other"); done
    stack_pids=("${kept[@]}")
    return "$status"
}

# Sends SIGTERM to `pids`, then waits up to `seconds` for them to end, then SIGKILL.
stack_stop() {
    local seconds=$1 pid deadline
    shift
    (($#)) || return 0
    kill -TERM "$@" 2>/dev/null || true
    deadline=$((SECONDS + seconds))
    for pid in "$@"; do
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.05; done
    done
    kill -KILL "$@" 2>/dev/null || true
    for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
}

stack_cleanup() {
    local status=$?
    trap - EXIT INT TERM
    # A failure (not Ctrl-C) shows the end of the log; the whole of it stays.
    if ((status != 0 && status != 130)) && [[ -s ${log:-} ]]; then
        echo "$stack_name: failed (exit $status); the end of its log ($log):" >&2
        tail -n 30 "$log" >&2
    fi
    # What the shell itself would say from here on (a child it had to kill) is not for the terminal.
    exec 2>> "${log:-/dev/null}"
    local others=() pid
    for pid in "${stack_pids[@]}"; do [[ $pid != "$stack_broker_pid" ]] && others+=("$pid"); done
    stack_stop 5 "${others[@]}"
    [[ -n $stack_broker_pid ]] && stack_stop 2 "$stack_broker_pid"
    # Everything but the log: the recordings, the broker's config, the dashboard's passwords.
    [[ -n ${work:-} ]] && find "$work" -mindepth 1 -maxdepth 1 ! -path "$log" -exec rm -rf {} +
    exit "$status"
}

stack_broker() {
    local queue=${1:-100000}
    # A free loopback port: one nobody answers on.
    port=""
    for _ in $(seq 1 50); do
        local candidate=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
    done
    [[ -n $port ]] || { echo "$stack_name: no free port found" >&2; exit 1; }

    printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages %s\n' \
        "$port" "$queue" > "$work/mosquitto.conf"
    stack_spawn mosquitto -c "$work/mosquitto.conf"
    stack_broker_pid=$!
    stack_wait_for "mosquitto on port $port" 5 eval "(exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null"
}

# Polls `command…` every 50 ms until it succeeds; after `seconds`, says what did not come and exits.
stack_wait_for() {
    local what=$1 seconds=$2 deadline
    shift 2
    deadline=$((SECONDS + seconds))
    until "$@"; do
        if ((SECONDS >= deadline)); then
            echo "$stack_name: $what did not come within $seconds s" >&2
            exit 1
        fi
        sleep 0.05
    done
}
