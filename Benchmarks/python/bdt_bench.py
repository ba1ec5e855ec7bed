#!/usr/bin/env python3
"""The Python side of `beacon-bench edge`: the parser Home Assistant uses, on the same payloads.

Reads advertising-data payloads (one hex string per line, as beacon-bench writes them from the
capture), then times bluetooth-data-tools' `parse_advertisement_data_bytes` plus an iBeacon check
(Apple company id 0x004C, type 0x02, length 0x15: UUID, major, minor, power) over all of them,
repeated, for about SECONDS each:

  uncached  the parser without its lru_cache (every payload parsed again)
  cached    `parse_advertisement_data_bytes` as Home Assistant calls it (lru_cache of 1024)

Prints one JSON object: payloads per second for each, the iBeacons found per pass, versions.
Usage: bdt_bench.py PAYLOADS_FILE [SECONDS]
"""
import json
import platform
import sys
import time

try:
    import bluetooth_data_tools
    from bluetooth_data_tools import gap
except ImportError as error:  # the Swift side prints why it was skipped
    print(json.dumps({"error": f"bluetooth-data-tools not importable: {error} (pip install bluetooth-data-tools)"}))
    sys.exit(0)

APPLE = 0x004C


def ibeacon(manufacturer_data):
    """The iBeacon identity in the parsed manufacturer data, or None."""
    data = manufacturer_data.get(APPLE)
    if data is None or len(data) < 23 or data[0] != 0x02 or data[1] != 0x15:
        return None
    return (data[2:18].hex(), int.from_bytes(data[18:20], "big"), int.from_bytes(data[20:22], "big"), data[22])


def measure(parse, payloads, seconds):
    """Payloads per second over whole passes, and iBeacons per pass."""
    found = 0
    for payload in payloads:  # one pass to warm up and count
        if ibeacon(parse(payload)[3]) is not None:
            found += 1
    count = 0
    start = time.perf_counter()
    elapsed = 0.0
    cpu_start = time.process_time()
    while elapsed < seconds:
        for payload in payloads:
            ibeacon(parse(payload)[3])
        count += len(payloads)
        elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return {"rate": count / elapsed, "cpu_us_per_1000": cpu / count * 1e9, "ibeacons_per_pass": found}


def main():
    path = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    with open(path) as handle:
        payloads = [bytes.fromhex(line.strip()) for line in handle if line.strip()]
    uncached = getattr(gap, "_uncached_parse_advertisement_bytes", None) or bluetooth_data_tools.parse_advertisement_data_bytes.__wrapped__
    cached = bluetooth_data_tools.parse_advertisement_data_bytes
    result = {
        "python": platform.python_version(),
        "bluetooth_data_tools": getattr(bluetooth_data_tools, "__version__", "?"),
        "compiled": gap.__file__.endswith(".so"),
        "payloads": len(payloads),
        "uncached": measure(uncached, payloads, seconds),
    }
    cached.cache_clear()
    result["cached"] = measure(cached, payloads, seconds)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
