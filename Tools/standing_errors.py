#!/usr/bin/env python3
"""How much of a standing transmitter's level error lasts for the whole stand, on real radio.

The calibrated rule weighs a standing device's seconds as partly fresh looks (docs/ENGINE.md,
"Walking or standing"). This measures, on the two shared recordings with stands in them, how a
standing transmitter's level (per receiver, one-second means of the raw readings) departs from
what the same transmitter is heard at there at other times:

  kolakowski  the robot's stops of 5 s or more in the calibration runs (moved < 0.1 m); "other
              times" are the rows of every calibration run within 0.4 m of the stop, more than
              30 s away from it
  salrb       the car's stands on the test position (label 2) of 10 s or more, per measurement
              node; "other times" are its other stands there (the squared difference scaled by
              (K-1)/K for the K stands, as their mean carries their own stand-bound errors)

For each, the error of a stand's mean (bound to the stand: it does not renew while it lasts) and
the spread of the one-second means around it (renewed within the stand), pooled over receivers,
both corrected for the part of the renewed error a short stand's mean still carries; and the
autocorrelation of the renewed part at 1-3 s. Prints one line per dataset, then the share
bound to the stand over both.

Usage: standing_errors.py DATASETS_DIR   (the shared testdata's datasets/ folder)
"""
import csv
import glob
import math
import os
import statistics
import sys


def second_means(readings):
    """(time s, level) pairs -> the mean level of each whole second from the first reading."""
    if not readings:
        return []
    start, out, bucket = readings[0][0], [], []
    edge = start + 1
    for time, level in readings:
        while time >= edge:
            out.append(statistics.mean(bucket) if bucket else None)
            bucket, edge = [], edge + 1
        bucket.append(level)
    if bucket:
        out.append(statistics.mean(bucket))
    return out


class Pool:
    """Per stand and receiver, the error of the stand's mean and the one-second deviations around it."""

    def __init__(self):
        self.pairs = []  # (squared error of the stand's mean, deviations with None where unheard)

    def add(self, seconds, reference, scale=1.0):
        values = [value for value in seconds if value is not None]
        if len(values) < 4:
            return
        mean = statistics.mean(values)
        deviations = [None if value is None else value - mean for value in seconds]
        self.pairs.append((scale * (mean - reference) ** 2, deviations))

    def autocorrelation(self, lag):
        products = [d[i] * d[i + lag] for _, d in self.pairs for i in range(len(d) - lag)
                    if d[i] is not None and d[i + lag] is not None]
        squares = [x * x for _, d in self.pairs for x in d if x is not None]
        return statistics.mean(products) / statistics.mean(squares)

    def split(self):
        """Mean squared error bound to the stand and renewed within it, dB². A short stand's mean
        also carries some of the renewed part, and the spread around it misses as much: both are
        corrected, with the renewed part's own autocorrelation at 1 and 2 s."""
        correlation = [self.autocorrelation(1), self.autocorrelation(2)]
        bound = renewed = 0.0
        for squared, deviations in self.pairs:
            values = [x for x in deviations if x is not None]
            count = len(values)
            inflation = 1 + 2 * sum(r * (1 - (lag + 1) / count) for lag, r in enumerate(correlation))
            spread = sum(x * x for x in values) / (count - inflation)
            renewed += spread
            bound += squared - spread * inflation / count
        return bound / len(self.pairs), renewed / len(self.pairs)

    def line(self, name):
        bound, renewed = self.split()
        acf = " ".join(f"{lag} s {self.autocorrelation(lag):.2f}" for lag in (1, 2, 3))
        return (f"{name}: {len(self.pairs)} stand-receiver pairs; bound to the stand {bound:.1f} dB², "
                f"renewed within it {renewed:.1f} dB²; share bound {bound / (bound + renewed):.2f}; "
                f"autocorrelation of the renewed part {acf}")


def kolakowski(folder):
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "calibration", "*.csv"))):
        with open(path) as file:
            for row in csv.DictReader(file):
                levels = {key: float(value) for key, value in row.items() if key.startswith("rssi_") and value}
                rows.append((path, float(row["ts"]) / 1e9, float(row["x"]), float(row["y"]), levels))
    pool, i = Pool(), 0
    while i < len(rows):
        j = i
        while (j + 1 < len(rows) and rows[j + 1][0] == rows[i][0]
               and math.hypot(rows[j + 1][2] - rows[i][2], rows[j + 1][3] - rows[i][3]) < 0.1):
            j += 1
        path, start, x, y, _ = rows[i]
        end = rows[j][1]
        if end - start >= 5:
            near = [r for r in rows if not (r[0] == path and start - 30 <= r[1] <= end + 30)
                    and math.hypot(r[2] - x, r[3] - y) < 0.4]
            for anchor in rows[i][4]:
                elsewhere = [r[4][anchor] for r in near if anchor in r[4]]
                if len(elsewhere) >= 5:
                    stand = [(r[1], r[4][anchor]) for r in rows[i:j + 1] if anchor in r[4]]
                    pool.add(second_means(stand), statistics.mean(elsewhere))
        i = j + 1
    return pool


def salrb(folder):
    stands = {}  # node -> [{receiver: [second means]}]
    for path in sorted(glob.glob(os.path.join(folder, "Dataset", "car_*.csv"))):
        node = os.path.basename(path).split("_")[2]
        with open(path) as file:
            table = list(csv.reader(file))
        header, body = table[0], table[1:]
        receivers, label = header[1:11], header.index("Label")
        run = []
        for row in body + [None]:
            if row is not None and row[label] == "2":
                run.append(row)
                continue
            if len(run) >= 100:  # 10 s at one superframe per 100 ms
                stand = {}
                for k, name in enumerate(receivers):
                    heard = [(n / 10, float(r[1 + k])) for n, r in enumerate(run) if float(r[1 + k]) > -100]
                    stand[name] = second_means(heard)
                stands.setdefault(node, []).append(stand)
            run = []
    pool = Pool()
    for node_stands in stands.values():
        for name in node_stands[0]:
            for k, stand in enumerate(node_stands):
                others = [v for m, s in enumerate(node_stands) if m != k for v in s[name] if v is not None]
                if len(others) >= 10:
                    # The other stands' mean carries their own stand-bound errors, 1/(K-1) of one.
                    count = len(node_stands)
                    pool.add(stand[name], statistics.mean(others), scale=(count - 1) / count)
    return pool


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    pools = [("kolakowski", kolakowski(os.path.join(root, "kolakowski_ble_flat_calib2021"))),
             ("salrb", salrb(os.path.join(root, "sal_rb_vehicle_zones")))]
    for name, pool in pools:
        print(pool.line(name))
    splits = [(len(pool.pairs), pool.split()) for _, pool in pools]
    bound = sum(count * split[0] for count, split in splits)
    renewed = sum(count * split[1] for count, split in splits)
    print(f"pooled: share bound {bound / (bound + renewed):.2f}")
