"""``pybai validate [--quick]``: delta-correctness of every fixed-confidence strategy on random instances.

Prints the table of :mod:`pybai.validation.suite` (strategy, family, check, instances, runs,
errors, bound, verdict) and exits with status 1 when a verdict is ``FAIL``.
"""

from __future__ import annotations

import datetime
import sys
import time

from pybai.cli._common import check_output_file, non_negative_int, write_json


def add_parser(sub) -> None:
    va = sub.add_parser("validate", help="check that the proven stopping rules are delta-correct on random instances")
    va.add_argument("--quick", action="store_true", help="small sizes (a few minutes); the default is the full suite")
    va.add_argument("--seed", type=non_negative_int, default=2026, help="master seed (default 2026)")
    va.add_argument("--family", action="append", metavar="NAME",
                    help="only this instance family (repeatable); see pybai.validation.generators")
    va.add_argument("--strategy", action="append", metavar="NAME", help="only this strategy (repeatable)")
    va.add_argument("--proven-only", action="store_true",
                    help="only the checks that can fail (proven thresholds, fixed-budget trends), not the rows that "
                         "report the heuristic, the baselines' own rules and ties")
    va.add_argument("--json", metavar="OUT", help="also write the rows to OUT as JSON")
    va.set_defaults(func=command)


def command(args) -> int:
    from pybai._validation import fail
    from pybai.strategies.registry import registered_names
    from pybai.validation import FAMILIES, FULL, QUICK, failed, format_table, run_suite

    for name in args.family or []:
        if name not in FAMILIES:
            raise fail("--family", "pybai validate", "one of " + ", ".join(FAMILIES), name)
    for name in args.strategy or []:
        if name not in registered_names():
            raise fail("--strategy", "pybai validate", "one of " + ", ".join(registered_names()), name)
    check_output_file(args.json, "--json")  # before hours of work, not after
    settings = QUICK if args.quick else FULL
    t0, c0 = time.perf_counter(), time.process_time()
    rows = run_suite(settings, seed=args.seed, families=args.family, strategies=args.strategy,
                     proven_only=args.proven_only, progress=lambda row: print(f"  done: {row.strategy} / {row.family} / {row.check}: {row.verdict}",
                                                file=sys.stderr, flush=True))
    print(format_table(rows))
    bad = failed(rows)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"\n{len(rows)} rows, {len(bad)} failed; {wall:.0f} s wall, {cpu:.0f} s CPU; seed {args.seed}; "
          f"{'quick' if args.quick else 'full'} sizes")
    if args.json:
        write_json({"date": datetime.date.today().isoformat(), "seed": args.seed, "quick": bool(args.quick),
                    "settings": vars(settings), "rows": [r.to_dict() for r in rows],
                    "wall_seconds": wall, "cpu_seconds": cpu}, args.json)
    return 1 if bad else 0
