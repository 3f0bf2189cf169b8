#!/usr/bin/env python3
"""The supply battery's plan (bench/supply/supply_battery.py --plan): several targets of each
kind issue 33 names, from corpora neither other battery holds, every domain known, and the
`gone` pool (the mixed pool without the target's own domains) only where a related neighbour of
the same corpus stays. Reads no package."""

import json
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def plan(script):
    out = subprocess.run([sys.executable, os.path.join(ROOT, script), "--plan"], check=True,
                         stdout=subprocess.PIPE).stdout
    return json.loads(out)


def main():
    supply = plan("bench/supply/supply_battery.py")
    others = set(plan("scripts/calibration_battery.py")["summary"]["corpora"]) | set(
        plan("bench/holdout/holdout_battery.py")["summary"]["corpora"])
    failures = []
    by_kind = supply["summary"]["by_kind"]
    for kind in ("absent", "absent_related", "rare", "dominant", "broad", "pool_like_target"):
        if by_kind.get(kind, 0) < 3:
            failures.append("fewer than 3 %s targets: %s" % (kind, by_kind.get(kind, 0)))
    shared = set(supply["summary"]["corpora"]) & others
    if shared:
        failures.append("corpora another battery holds: %s" % sorted(shared))
    sys.path.insert(0, os.path.join(ROOT, "bench", "supply"))
    import supply_battery as sb  # noqa: E402
    domain_corpus = {d: c for c, ds in sb.DOMAINS.items() for d in ds}
    for t in supply["targets"]:
        for d in t["select"] + t["eval"]:
            if d not in domain_corpus:
                failures.append("%s: unknown domain %s" % (t["name"], d))
        if t["pool"] == "gone":
            corpus = domain_corpus[t["eval"][0]]
            rest = [d for d in sb.DOMAINS[corpus] if d not in t["eval"]]
            if not rest:
                failures.append("%s: nothing of its corpus stays in its pool" % t["name"])
    for f in failures:
        print("FAIL:", f)
    print("%d passed, %d failed" % (1 if not failures else 0, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
