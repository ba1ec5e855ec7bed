#!/usr/bin/env bash
# Installs BeaconNet on this host: builds the programs (release) and installs them, the systemd
# units, the example configs and the broker configs. Safe to run again: it replaces only what it
# installed itself and never a config or unit you have edited.
#
#   deploy/scripts/install.sh [--prefix /usr/local] [--destdir DIR] [--unit-dir /etc/systemd/system | --no-units]
#                             [--config-dir /etc/beaconnet] [--no-build | --bin-dir DIR]
#
#   --prefix DIR    programs in DIR/bin, reference files in DIR/share/beaconnet (default /usr/local);
#                   the units' ExecStart lines are rewritten to DIR/bin
#   --destdir DIR   stage everything under DIR instead of / (for packaging; also $DESTDIR); the
#                   installed files still name the final paths
#   --unit-dir DIR  where the units go (default /etc/systemd/system; a package: /usr/lib/systemd/system)
#   --no-units      no systemd units (a machine without systemd, or an install into your own folder)
#   --config-dir DIR  where chain.json and edge.json go (default /etc/beaconnet); the units' paths
#                   to it (configs, password files) are rewritten to DIR
#   --no-build      install the release build already in .build/release, without building
#   --bin-dir DIR   install the programs already built in DIR, without building
#
# What goes where (below DESTDIR):
#   PREFIX/bin/                         beacon-edge, beacon-aggregator, beacon-dashboard, beacon-sim, beacon-history (0755)
#   UNIT-DIR/                           the units of deploy/systemd (0644)
#   CONFIG-DIR/chain.json, edge.json    from config/*.example.json, only where there is none yet (0644)
#   PREFIX/share/beaconnet/examples/    the example configs, as shipped
#   PREFIX/share/beaconnet/mosquitto/   central.conf and store.conf, to copy into /etc/mosquitto/conf.d
#   PREFIX/share/beaconnet/systemd/     the units as last installed: how edited ones are told apart
#
# Installing into / needs root. To build as yourself and install as root:
#   swift build -c release && sudo deploy/scripts/install.sh --no-build
# Without root, into a folder of your own (docs/DEPLOYMENT.md, "Without systemd or root"):
#   deploy/scripts/install.sh --no-build --prefix ~/beaconnet --config-dir ~/beaconnet/etc --no-units
#
# Exit status: 0 done; 64 bad arguments; 1 a build failed, a program is missing or a file could
# not be written.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

programs=(beacon-edge beacon-aggregator beacon-dashboard beacon-sim beacon-history)
prefix=/usr/local
destdir=${DESTDIR:-}
unit_dir=/etc/systemd/system
units=true
config_dir=/etc/beaconnet
bin_dir=""
build=true

usage() {
    echo "usage: $0 [--prefix DIR] [--destdir DIR] [--unit-dir DIR | --no-units] [--config-dir DIR] [--no-build | --bin-dir DIR]"
    echo "  ($0 --help says what each does and what goes where)"
}
# --help prints this file's header: the one place the options are described.
help() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
fail_usage() { echo "install: $1" >&2; usage >&2; exit 64; }
fail() { echo "install: $1" >&2; exit 1; }
say() { echo "install: $1" >&2; }

while (($#)); do
    case $1 in --prefix|--destdir|--unit-dir|--config-dir|--bin-dir)
        (($# >= 2)) || fail_usage "$1 needs a value" ;;
    esac
    case $1 in
        --prefix) prefix=$2; shift 2 ;;
        --destdir) destdir=$2; shift 2 ;;
        --unit-dir) unit_dir=$2; shift 2 ;;
        --no-units) units=false; shift ;;
        --config-dir) config_dir=$2; shift 2 ;;
        --bin-dir) bin_dir=$2; build=false; shift 2 ;;
        --no-build) build=false; shift ;;
        -h|--help) help; exit 0 ;;
        *) fail_usage "unknown argument $1" ;;
    esac
done

# The prefix and unit directory are written into the units and sed's replacement, so they are
# held to plain absolute paths; the config directory too, alike.
for pair in "--prefix:$prefix" "--unit-dir:$unit_dir" "--config-dir:$config_dir"; do
    flag=${pair%%:*} path=${pair#*:}
    [[ $path =~ ^/[A-Za-z0-9_./+-]*$ && $path != *//* && $path != */../* && $path != */.. ]] ||
        fail_usage "$flag $path must be an absolute path of A-Z, a-z, 0-9 and _ . / + -"
done
prefix=${prefix%/}
unit_dir=${unit_dir%/}
config_dir=${config_dir%/}
[[ -n $unit_dir ]] || fail_usage "--unit-dir / is not a unit directory"
[[ -n $config_dir ]] || fail_usage "--config-dir / is not a config directory"

# Relative paths are the caller's: made absolute before the build changes directory.
if [[ -n $destdir && $destdir != /* ]]; then destdir=$PWD/$destdir; fi
if [[ -n $bin_dir && $bin_dir != /* ]]; then bin_dir=$PWD/$bin_dir; fi

# Before minutes of building: can this user write where it installs?
# (The nearest folder that exists of each place it writes: the rest it makes.)
nearest() { local path=$1; while [[ ! -e $path ]]; do path=$(dirname "$path"); done; echo "$path"; }
if [[ -z $destdir ]]; then
    targets=("$prefix" "$config_dir")
    $units && targets+=("$unit_dir")
    for target in "${targets[@]}"; do
        [[ -w $(nearest "$target") ]] ||
            fail "cannot write $(nearest "$target"): run it as root (build as yourself first: swift build -c release; then sudo $0 --no-build), stage with --destdir, or install into a folder of your own (--prefix ~/beaconnet --config-dir ~/beaconnet/etc --no-units)"
    done
fi

if $build; then
    [[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"
    command -v swift >/dev/null ||
        fail "no Swift toolchain on PATH or in /opt/swift (deploy/scripts/install-deps.sh says what to install); or use --bin-dir"
    cd "$root"
    for program in "${programs[@]}"; do
        say "building $program (release; the first build takes a few minutes)"
        swift build -c release --product "$program" >&2 || fail "building $program failed"
    done
    bin_dir=$(swift build -c release --show-bin-path)
elif [[ -z $bin_dir ]]; then
    bin_dir=$root/.build/release
fi
# Everything is checked before anything is installed, so a missing program never leaves half an
# installation.
missing=()
for program in "${programs[@]}"; do
    [[ -x $bin_dir/$program && -f $bin_dir/$program ]] || missing+=("$program")
done
((${#missing[@]} == 0)) ||
    fail "not built in $bin_dir: ${missing[*]} (build them first: swift build -c release; or let this script build)"
for unit in "$root"/deploy/systemd/*.service; do
    grep -q '^ExecStart=/usr/local/bin/' "$unit" ||
        fail "$unit: ExecStart does not start with /usr/local/bin/, which this script rewrites to the prefix"
done

if [[ -n $destdir ]]; then
    mkdir -p "$destdir" || fail "cannot create --destdir $destdir"
    destdir=$(cd "$destdir" && pwd)
    [[ $destdir == / ]] && destdir=""
fi
work=$(mktemp -d -t beaconnet-install.XXXXXX)
trap 'rm -rf "$work"' EXIT

share=$prefix/share/beaconnet
# Only missing directories are made: an existing one keeps its mode (Debian's /usr/local/bin is
# setgid staff, 2775).
directories=("$prefix/bin" "$config_dir" "$share/examples" "$share/mosquitto")
$units && directories+=("$unit_dir" "$share/systemd")
for directory in "${directories[@]}"; do
    [[ -d $destdir$directory ]] || install -d -m 755 "$destdir$directory" ||
        fail "cannot create $directory under ${destdir:-/} (root needed?)"
done

for program in "${programs[@]}"; do
    install -m 755 "$bin_dir/$program" "$destdir$prefix/bin/$program" || fail "cannot install $prefix/bin/$program"
done
say "installed ${programs[*]} in $prefix/bin"

# A unit is replaced when it is missing or is what this script installed last time (the copy in
# share/beaconnet/systemd); one that differs from both was edited here, and is kept.
if $units; then
    for unit in "$root"/deploy/systemd/*.service; do
        name=$(basename "$unit")
        sed -e "s#/usr/local/bin/#$prefix/bin/#g" -e "s#/etc/beaconnet/#$config_dir/#g" "$unit" > "$work/$name"
        target=$destdir$unit_dir/$name
        last=$destdir$share/systemd/$name
        if [[ ! -e $target ]] || { [[ -e $last ]] && cmp -s "$target" "$last"; }; then
            install -m 644 "$work/$name" "$target" || fail "cannot install $unit_dir/$name"
        elif ! cmp -s "$target" "$work/$name"; then
            say "kept $unit_dir/$name: it was edited here; the shipped unit is $share/systemd/$name (compare them)"
        fi
        install -m 644 "$work/$name" "$last" || fail "cannot install $share/systemd/$name"
    done
    say "units in $unit_dir"
fi

# The configs are readable by all: the services' users are dynamic and could not read them
# otherwise. They hold no secrets (the passwords stay in root-only files systemd hands over).
for example in "$root"/config/*.example.json; do
    name=$(basename "$example")
    install -m 644 "$example" "$destdir$share/examples/$name" || fail "cannot install $share/examples/$name"
    config=$config_dir/${name%.example.json}.json
    if [[ -e $destdir$config ]]; then
        say "kept $config; the shipped example is $share/examples/$name"
    else
        install -m 644 "$example" "$destdir$config" || fail "cannot install $config"
        say "installed $config from the example: edit it before starting the service"
    fi
done

# The broker configs are only put beside the rest: copied into /etc/mosquitto/conf.d before its
# certificates and logins exist, one would stop the host's mosquitto (docs/DEPLOYMENT.md).
for conf in "$root"/deploy/mosquitto/*.conf; do
    install -m 644 "$conf" "$destdir$share/mosquitto/$(basename "$conf")" || fail "cannot install $share/mosquitto/$(basename "$conf")"
done
say "broker configs in $share/mosquitto (docs/DEPLOYMENT.md says which to use where)"

# A live system sees new or changed units only after a reload; a staged one is not ours to touch.
if $units && [[ -z $destdir && -d /run/systemd/system ]] && command -v systemctl >/dev/null; then
    systemctl daemon-reload || say "systemctl daemon-reload failed: run it before starting the services"
fi
