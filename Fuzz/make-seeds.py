#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into OUT/<target>/, from what the project already
has: the shared captures and vectors (../shared/testdata, read where they are, never copied into
the repository), the golden and malformed payloads and the config and topic strings of the tests,
and the example configs. A few seeds are built here by hand: btsnoop files of each datalink, AD
vectors wrapped into legacy and extended advertising report events, calibration and truth files.

    Fuzz/make-seeds.py OUT [TESTDATA]     # TESTDATA defaults to ../shared/testdata

Missing test data is reported and skipped: the seeds from the repository alone still make a run.
"""
import hashlib
import json
import re
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write(out: Path, target: str, data: bytes) -> None:
    folder = out / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def swift_raw_strings(path: Path) -> list[str]:
    """The raw string literals (#"…"# and #\"\"\"…\"\"\"#) of a Swift test file, unindented."""
    text = path.read_text()
    found = []
    for body in re.findall(r'#"""\n(.*?)\n\s*"""#', text, re.S):
        lines = body.split("\n")
        indent = min(len(l) - len(l.lstrip()) for l in lines if l.strip())
        found.append("\n".join(l[indent:] for l in lines))
    found += re.findall(r'#"(?!"")(.*?)"#', text)
    return found


def swift_topic_strings(path: Path) -> list[str]:
    return re.findall(r'"(beaconnet/[^"\\]*)"', path.read_text())


def h4_legacy(adv: bytes, rssi: int = -60, address: bytes = bytes([0x3F, 0x12, 0x6A, 0x8D, 0x7C, 0xC4])) -> bytes | None:
    params = bytes([0x02, 1, 0x00, 0x00]) + address + bytes([len(adv)]) + adv + struct.pack("b", rssi)
    return None if len(params) > 255 else bytes([0x04, 0x3E, len(params)]) + params


def h4_extended(adv: bytes, event_type: int = 0x0000, address: bytes = bytes([0x3F, 0x12, 0x6A, 0x8D, 0x7C, 0xC4])) -> bytes | None:
    report = (struct.pack("<H", event_type) + bytes([0x00]) + address
              + bytes([1, 0, 0xFF, 0x7F, 0xC4]) + struct.pack("<H", 0) + bytes([0x00]) + bytes(6)
              + bytes([len(adv)]) + adv)
    params = bytes([0x0D, 1]) + report
    return None if len(params) > 255 else bytes([0x04, 0x3E, len(params)]) + params


def btsnoop(datalink: int, records: list[tuple[int, bytes]], start_us: int = 0x00E2_4A3F_7D5A_0000) -> bytes:
    data = b"btsnoop\0" + struct.pack(">II", 1, datalink)
    for i, (flags, payload) in enumerate(records):
        data += struct.pack(">IIIIq", len(payload), len(payload), flags, 0, start_us + i * 100_000) + payload
    return data


def capture_events(path: Path) -> list[bytes]:
    """Every HCI event of a btsnoop file, as an H4 packet."""
    data = path.read_bytes()
    datalink = struct.unpack(">I", data[12:16])[0]
    events, cursor = [], 16
    while cursor + 24 <= len(data):
        _, included, flags, _, _ = struct.unpack(">IIIIq", data[cursor:cursor + 24])
        payload = data[cursor + 24:cursor + 24 + included]
        cursor += 24 + included
        if datalink == 1002 and payload[:1] == b"\x04":
            events.append(payload)
        elif datalink == 2001 and flags & 0xFFFF == 3:
            events.append(b"\x04" + payload)
        elif datalink == 1001 and flags & 3 == 3:
            events.append(b"\x04" + payload)
    return events


def main() -> None:
    out = Path(sys.argv[1])
    testdata = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT.parent / "shared" / "testdata"
    have_testdata = testdata.is_dir()
    if not have_testdata:
        print(f"make-seeds: {testdata} is absent: seeding from the repository only", file=sys.stderr)

    # Wire payloads: the golden payloads (one per payload type) and the malformed ones of the tests.
    for path in ["Tests/BeaconWireTests/Support/GoldenPayloads.swift", "Tests/BeaconWireTests/MalformedPayloadTests.swift",
                 "Tests/BeaconWireTests/RoundTripTests.swift"]:
        for text in swift_raw_strings(ROOT / path):
            if text.lstrip().startswith(("{", "[")):
                write(out, "fuzz-wire", text.encode())

    # Topics: every topic the tests name, and one of each kind under the two roots the target uses.
    topics = set(swift_topic_strings(ROOT / "Tests/BeaconWireTests/TopicTests.swift"))
    topics |= {"beaconnet/sightings/12/gw-12-3a", "beaconnet/gateways/gw-12-3a/status", "beaconnet/events/12/enter",
               "beaconnet/events/12/3/exit", "beaconnet/devices/ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207/state",
               "beaconnet/devices/mac-C4:7C:8D:6A:12:3F/state", "beaconnet/occupancy/12", "beaconnet/occupancy/12/3",
               "beaconnet/aggregators/agg-1/status", "beaconnet/rejects/agg-1", "acme/beaconnet/sightings/0/gw-0"}
    for topic in topics:
        write(out, "fuzz-topics", topic.encode())

    # Configs: the examples and the JSON texts of the config tests.
    write(out, "fuzz-chain-config", (ROOT / "config/chain.example.json").read_bytes())
    sharded = json.loads((ROOT / "config/chain.example.json").read_text())
    sharded["central"] = {"hub": "hub.example:8883", "shards": [
        {"name": "shard-1", "address": "[2001:db8::1]:8883", "standby": "shard-1b.example:8883", "stores": "0-700", "aggregator": "agg-1",
         "standby_aggregator": "agg-1b"},
        {"name": "shard-2", "address": "10.0.0.2:8883", "stores": "701-65535", "aggregator": "agg-2"}]}
    write(out, "fuzz-chain-config", json.dumps(sharded).encode())
    for text in swift_raw_strings(ROOT / "Tests/BeaconAggregatorTests/ConfigTests.swift"):
        if text.lstrip().startswith("{"):
            write(out, "fuzz-chain-config", text.encode())
    write(out, "fuzz-edge-config", (ROOT / "config/edge.example.json").read_bytes())
    write(out, "fuzz-edge-config", b'{"gateway": "gw-1", "store": 1, "section": 1, "allow_all": true}')
    write(out, "fuzz-edge-config", json.dumps({
        "gateway": "gw-2-b", "store": 2, "section": 7, "broker": {"host": "broker", "port": 8883, "client_id": "edge-2",
        "keep_alive_s": 60}, "scan": {"adapter": "hci1", "interval_ms": 40.5, "window_ms": 20},
        "allow_list": {"eddystone_namespaces": ["edd1ebeac04e5defa017"], "altbeacon_ids": ["2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6"]},
        "buffer": {"max_batches": 100, "spill_file": "/tmp/spill", "memory_batches": 10}, "topic_root": "acme/beaconnet",
        "include_address": True}).encode())

    # Calibration files: the texts of the calibration file tests, and one with outside fingerprints.
    for path in ["Tests/BeaconEngineTests/CalibrationFileTests.swift", "Tests/BeaconEngineTests/CalibrationOutsideFileTests.swift"]:
        for text in swift_raw_strings(ROOT / path):
            if text.lstrip().startswith("{"):
                write(out, "fuzz-calibration", text.encode())
    fingerprint = {"gateway": "gw-a", "section": 10, "mean_dbm": -55.5, "sd_db": 4, "heard": 0.95, "samples": 120}
    write(out, "fuzz-calibration", json.dumps({"comment": "walk", "stores": [{"major": 1, "fingerprints": [fingerprint],
        "outside": [{"gateway": "gw-a", "mean_dbm": -70, "sd_db": 5, "heard": 0.5}]}]}, indent=2).encode())

    # Truth files: each kind of line, ISO and Unix times, comments, CR LF line ends.
    dev = "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-7"
    truth = [f'{{"t":"2021-08-03T10:01:50Z","dev":"{dev}","unscored":true}}', f'{{"t":1627984920000,"dev":"{dev}","major":12,"minor":1}}',
             f'{{"t":"2021-08-03T12:02:40.2+02:00","dev":"{dev}","major":null,"minor":null}}', '{"t":1627985100000,"end":true}']
    write(out, "fuzz-truth", ("# a walk\n" + "\n".join(truth) + "\n").encode())
    write(out, "fuzz-truth", "\r\n".join(truth).encode())

    # HTTP requests to the dashboard: the first byte picks the visitor (0 no login, 1 anonymous,
    # 2 a user of every store, 3 a user of store 101), then the request as HTTP/1.1 text.
    device = "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207"
    requests = [
        "GET /", "GET /stores/101", "GET /dashboard.js", "GET /dashboard.css", "GET /api/stores", "GET /api/stores/101",
        "GET /api/stores/102", "GET /api/stores/999", "GET /api/stores/0101", f"GET /api/devices/{device}",
        "GET /api/devices/mac-C4%3A7C%3A8D%3A6A%3A12%3A3F", "GET /api/devices/ib-%3Cimg%3Ex", "GET /api/events", "GET /api/health",
        "GET /api/stream", "GET /api/nothing", "GET /login?next=/stores/101", "GET /login?next=//evil.example&logged-out=1",
        "HEAD /api/health", "DELETE /api/stores/101", "GET /%2e%2e/%2e%2e/etc/passwd", "GET /api/devices/%00?x=%ff",
    ]
    for visitor in range(4):
        for line in requests:
            write(out, "fuzz-dashboard", bytes([visitor]) + f"{line}\r\nHost: localhost:8080\r\n\r\n".encode())
    for visitor in range(4):
        write(out, "fuzz-dashboard", bytes([visitor]) + b"POST /login\nHost: 127.0.0.1\nContent-Type: application/x-www-form-urlencoded\n"
              b"Origin: http://127.0.0.1:8080\n\nuser=chain&password=wrong&next=%2Fstores%2F101")
        write(out, "fuzz-dashboard", bytes([visitor]) + b"POST /logout\nHost: [::1]:8080\nCookie: beaconnet_session=AAAA; other=1\n\n")
        write(out, "fuzz-dashboard", bytes([visitor]) + b"GET /api/stores\nHost: evil.example\n\n")
        write(out, "fuzz-dashboard", bytes([visitor]) + b"POST /login\nHost: localhost\nOrigin: http://evil.example\n\nuser=a&password=b")
        write(out, "fuzz-dashboard", bytes([visitor]) + b"GET /api/health\nHost: LOCALHOST\nCookie: beaconnet_session=\n\n")

    # HCI events and btsnoop files, hand-built: an iBeacon, an Eddystone-UID, a split extended advert.
    ibeacon = bytes.fromhex("0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e0000100cfc5")
    eddystone = bytes.fromhex("0303aafe1516aafe00eeedd1ebeac04e5defa0170b1c2d3e4f500000")
    split = [h4_extended(ibeacon[:12], event_type=0x0020), h4_extended(ibeacon[12:], event_type=0x0000)]
    for event in [h4_legacy(ibeacon), h4_legacy(eddystone), h4_extended(ibeacon), h4_extended(eddystone), b"".join(split)]:
        write(out, "fuzz-hci", event)
    write(out, "fuzz-btsnoop", btsnoop(1002, [(3, h4_legacy(ibeacon)), (2, bytes([0x01, 0x03, 0x0C, 0x00])), (3, h4_extended(eddystone))]))
    write(out, "fuzz-btsnoop", btsnoop(1001, [(3, h4_legacy(eddystone)[1:]), (3, split[0][1:]), (3, split[1][1:])]))
    write(out, "fuzz-btsnoop", btsnoop(2001, [(0x0000_0003, h4_legacy(ibeacon)[1:]), (0xFFFF_000C, b"note\0"), (0x0000_0002, b"\x0c\x20\x02\x01\x00")]))

    if have_testdata:
        # Complete H4 events as read from a BlueZ socket, with their beacons.
        for line in (testdata / "vectors/ble_monitor_hci/ble_monitor_hci_vectors.jsonl").read_text().splitlines():
            write(out, "fuzz-hci", bytes.fromhex(json.loads(line)["hci_packet_hex"]))
        # Advertising data vectors, wrapped into a legacy and an extended report.
        adverts = []
        for line in (testdata / "vectors/altbeacon_android_beacon_library/altbeacon_vectors.jsonl").read_text().splitlines():
            adverts.append(bytes.fromhex(json.loads(line)["adv_data_hex"]))
        for line in (testdata / "vectors/bluetooth_data_tools/bdt_gap_vectors.jsonl").read_text().splitlines():
            adverts.append(bytes.fromhex(json.loads(line)["concatenated_hex"]))
        for line in (testdata / "vectors/ibeacon_ble/ibeacon_ble_vectors.jsonl").read_text().splitlines():
            for company, hexdata in json.loads(line).get("manufacturer_data_by_company_id_hex", {}).items():
                body = struct.pack("<H", int(company)) + bytes.fromhex(hexdata)
                adverts.append(bytes([len(body) + 1, 0xFF]) + body)
        for advert in adverts:
            for event in (h4_legacy(advert), h4_extended(advert)):
                if event:
                    write(out, "fuzz-hci", event)
        # The captures: whole files for the btsnoop target, their events (alone and in runs of eight,
        # for the pipeline's windows and reassembly) for the HCI target.
        for capture in sorted(testdata.glob("captures/*/*.log")):
            write(out, "fuzz-btsnoop", capture.read_bytes())
            events = capture_events(capture)
            for event in events:
                write(out, "fuzz-hci", event)
            for i in range(0, len(events), 8):
                write(out, "fuzz-hci", b"".join(events[i:i + 8]))

    for folder in sorted(out.iterdir()):
        print(f"make-seeds: {folder.name}: {sum(1 for _ in folder.iterdir())} seeds", file=sys.stderr)


if __name__ == "__main__":
    main()
