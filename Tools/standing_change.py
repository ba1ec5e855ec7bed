#!/usr/bin/env python3
"""How fast a standing transmitter's filtered levels change, on real radio, against a moving one's.

The calibrated rule tells walking from standing by how far each link's filtered level moved since
its last look, a second before (docs/ENGINE.md, "Walking or standing"). This measures that change
as the rule sees it: each receiver's readings through the engine's link filter (a Kalman filter
with the default `process_noise_db2_per_s` 9 and `measurement_noise_db` 6), sampled once a second,
and the mean squared change between samples a second apart, dB²/s, on the two shared recordings:

  kolakowski  the robot's calibration runs (the dataset's preprocessed rows, three a second, many of
              their levels interpolated); a second counts as standing when the robot moved less
              than 2 cm in it and in each of the 2 s before (the filter has settled after the
              stop), as moving when it moved 10 cm or more in it
  salrb       the car's runs; a second counts as standing when the car sat on the test position
              (label 2) through it and the 3 s before; the rest is every other second (moving and
              standing elsewhere: the recording does not say which)

Usage: standing_change.py DATASETS_DIR   (the shared testdata's datasets/ folder)
"""
import csv
import glob
import math
import os
import sys

PROCESS_NOISE = 9.0       # dB²/s, Tuning.processNoise
MEASUREMENT_VARIANCE = 36.0  # dB², Tuning.measurementNoiseDB squared
STALE = 4.0               # s: a link not heard for longer is left out of the sample (stale_after_s)


class LinkFilter:
    """The engine's RSSIFilter: a random-walk level, each reading that level plus noise."""

    def __init__(self, level, time):
        self.estimate, self.variance, self.time = level, MEASUREMENT_VARIANCE, time

    def update(self, level, time):
        predicted = self.variance + PROCESS_NOISE * max(0.0, time - self.time)
        gain = predicted / (predicted + MEASUREMENT_VARIANCE)
        self.estimate += gain * (level - self.estimate)
        self.variance = (1 - gain) * predicted
        self.time = max(self.time, time)


class Rates:
    """Squared one-second changes summed per kind of second."""

    def __init__(self):
        self.sums = {}

    def add(self, kind, before, after):
        for link, level in before.items():
            if link in after:
                count, squares = self.sums.get(kind, (0, 0.0))
                self.sums[kind] = (count + 1, squares + (after[link] - level) ** 2)

    def rate(self, kind):
        count, squares = self.sums.get(kind, (0, 0.0))
        return squares / count if count else float("nan"), count


def kolakowski(folder):
    rates = Rates()
    for path in sorted(glob.glob(os.path.join(folder, "calibration", "*.csv"))):
        with open(path) as file:
            rows = list(csv.DictReader(file))
        filters, samples = {}, []  # samples: (position, {receiver: filtered level})
        start = float(rows[0]["ts"]) / 1e9
        edge, position = start + 1, None
        for row in rows:
            time = float(row["ts"]) / 1e9
            while time >= edge:
                samples.append((position, {k: f.estimate for k, f in filters.items() if edge - f.time <= STALE}))
                edge += 1
            for key, value in row.items():
                if key.startswith("rssi_") and value:
                    if key in filters:
                        filters[key].update(float(value), time)
                    else:
                        filters[key] = LinkFilter(float(value), time)
            position = (float(row["x"]), float(row["y"]))
        moved = [math.dist(a[0], b[0]) for a, b in zip(samples, samples[1:])]
        for i in range(len(moved)):
            if i >= 2 and all(m < 0.02 for m in moved[i - 2:i + 1]):
                kind = "standing"
            elif moved[i] >= 0.1:
                kind = "moving"
            else:
                continue
            rates.add(kind, samples[i][1], samples[i + 1][1])
    return rates


def salrb(folder):
    rates = Rates()
    for path in sorted(glob.glob(os.path.join(folder, "Dataset", "car_*.csv"))):
        with open(path) as file:
            table = list(csv.reader(file))
        header, body = table[0], table[1:]
        receivers, label = header[1:11], header.index("Label")
        filters, samples = {}, []  # samples: (label, {receiver: filtered level}), one a second
        first = int(body[0][0])
        edge = 1.0
        for row in body:
            time = (int(row[0]) - first) / 10  # one superframe per 100 ms; missing ones leave gaps
            for k, name in enumerate(receivers):
                level = float(row[1 + k])
                if level <= -100:  # not heard
                    continue
                if name in filters:
                    filters[name].update(level, time)
                else:
                    filters[name] = LinkFilter(level, time)
            while time >= edge:
                samples.append((row[label], {k: f.estimate for k, f in filters.items() if edge - f.time <= STALE}))
                edge += 1
        labels = [sample[0] for sample in samples]
        for i in range(1, len(samples)):
            kind = "standing" if i >= 4 and all(x == "2" for x in labels[i - 4:i + 1]) else "the rest"
            rates.add(kind, samples[i - 1][1], samples[i][1])
    return rates


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    for name, rates, other in [("kolakowski", kolakowski(os.path.join(root, "kolakowski_ble_flat_calib2021")), "moving"),
                               ("salrb", salrb(os.path.join(root, "sal_rb_vehicle_zones")), "the rest")]:
        standing, standing_count = rates.rate("standing")
        moving, moving_count = rates.rate(other)
        print(f"{name}: standing {standing:.2f} dB²/s ({standing_count} link-seconds), "
              f"{other} {moving:.2f} dB²/s ({moving_count}); ratio {moving / standing:.2f}")
