"""Stand-in for the lab: add a 'reward' column (simulated activity) to a plate file.

python plate_reader.py PLATE.csv DAY [FAILED_WELLS]: the first FAILED_WELLS wells give no reading.
"""
import csv, sys
import numpy as np
activity = np.linspace(0.0, 0.6, 24); activity[17] = 1.8          # compound 17 is the hit
noise = np.resize([0.8, 0.5, 1.0, 0.6], 24)                           # well-to-well sd differs per compound
rng = np.random.default_rng(int(sys.argv[2]))
failed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
rows = list(csv.DictReader(open(sys.argv[1])))
with open(sys.argv[1], "w", newline="") as fh:
    out = csv.DictWriter(fh, ["request", "source", "reward"]); out.writeheader()
    for i, r in enumerate(rows):
        value = round(activity[int(r["source"])] + noise[int(r["source"])] * rng.normal(), 3)
        out.writerow({**r, "reward": "" if i < failed else value})
