"""Re-estimate the shipped reference RMSE of the 160 wine models (src/pybai/data/wine-model-rmse.csv).

Not a reproduction: it rebuilds a data file that the ``bayesgap-automl`` experiment reads (the
"truth" that scores recommendations), with :func:`pybai.datasets.wine.estimate_wine_rmse`: the mean
test RMSE over 5 random splits per model (about 2 minutes of CPU; random forests dominate).

    PYTHONPATH=src .venv/bin/python benchmarks/wine_reference_rmse.py [--pulls 5] [--seed 0]
"""

from __future__ import annotations

import argparse
import csv
import pathlib
import time

from pybai.datasets.wine import estimate_wine_rmse, wine_model_grid

TARGET = pathlib.Path(__file__).resolve().parent.parent / "src" / "pybai" / "data" / "wine-model-rmse.csv"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pulls", type=int, default=5, help="random splits per model (the shipped file: 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the splits (the shipped file: 0)")
    args = parser.parse_args(argv)
    start = time.process_time()
    rmse = estimate_wine_rmse(pulls=args.pulls, seed=args.seed)
    with TARGET.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["arm", "model", "rmse"])
        for i, (spec, value) in enumerate(zip(wine_model_grid(), rmse)):
            writer.writerow([i, spec.label, f"{value:.6f}"])
    print(f"wrote {TARGET} ({args.pulls} splits per model, cpu {time.process_time() - start:.1f} s)")


if __name__ == "__main__":
    main()
