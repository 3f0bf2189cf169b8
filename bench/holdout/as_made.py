#!/usr/bin/env python3
"""The hold-out battery's forecasts as they were made, scored against their trials.

Reads a ledger (plain or .zst), takes every trial of a target named "holdout:..." that tested a
forecast, and prints the figures of bench/holdout/README.md: clear cases right for the forecast,
always curating and always random; the targets that did not pay and what the forecast said; and
compute per target in random-arm runs to L*, counted as `preflight forecast --calibrate` counts
it (src/forecast/held_out.cc: curating costs 1 - net runs, 2 when it never caught up; the
forecast costs its fraction of the trial times 2 arms times the seeds).

  python3 bench/holdout/as_made.py bench/calibration/ledger-tiny-300-2026-12-05.jsonl.zst
"""

import json
import subprocess
import sys

CLEAR = 0.10  # |net| at least this, or never caught up: a clear case (held_out.cc's kClear)


def receipts(path):
    if path.endswith(".zst"):
        text = subprocess.run(["zstd", "-dc", path], check=True, stdout=subprocess.PIPE).stdout
    else:
        with open(path, "rb") as f:
            text = f.read()
    return [json.loads(line) for line in text.decode("utf-8").splitlines() if line.strip()]


def rows(ledger, prefix):
    by_hash = {r["hash"]: r for r in ledger}
    out = []
    for t in ledger:
        name = t["config"].get("target_name", "") if t["kind"] == "trial" else ""
        if not name.startswith(prefix) or not t["config"].get("forecast"):
            continue
        f = by_hash[t["config"]["forecast"]]["result"]
        c = t["result"]["comparisons"][0]
        gain = f["signals"][f["signal"]]
        out.append({"target": name[len(prefix):].split(" (")[0], "verdict": f["verdict"],
                    "net": c["compute_saved"]["net"] if c["caught_up"] else None,
                    "gain": gain["value"], "interval": gain.get("interval"),
                    "cost": f["cost"]["fraction_of_trial"], "seeds": t["config"]["seeds"]})
    return out


def figures(rs):
    label = [r["net"] if r["net"] is not None else -1.0 for r in rs]
    clear = [i for i, r in enumerate(rs) if r["net"] is None or abs(r["net"]) >= CLEAR]
    decided = [i for i in clear if rs[i]["verdict"] != "uncertain"]
    curate_runs = [1 - x for x in label]
    chosen = [curate_runs[i] if r["verdict"] == "curate" else 1.0 for i, r in enumerate(rs)]
    forecast_runs = [r["cost"] * 2 * r["seeds"] for r in rs]
    n = len(rs)
    return {
        "targets": n,
        "clear": len(clear),
        "forecast_right": sum((rs[i]["verdict"] == "curate") == (label[i] > 0) for i in decided),
        "forecast_decided": len(decided),
        "always_curate_right": sum(label[i] > 0 for i in clear),
        "always_random_right": sum(label[i] <= 0 for i in clear),
        "did_not_pay": {v: sum(1 for i, r in enumerate(rs) if label[i] <= 0 and r["verdict"] == v)
                        for v in ("random", "uncertain", "curate")},
        "runs_following": (sum(chosen) + sum(forecast_runs)) / n,
        "runs_verdicts_alone": sum(chosen) / n,
        "runs_always_curate": sum(curate_runs) / n,
        "runs_always_random": 1.0,
        "cost_mean": sum(r["cost"] for r in rs) / n,
        "cost_max": max(r["cost"] for r in rs),
    }


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__.split("\n\n")[-1])
    rs = rows(receipts(argv[0]), "holdout:")
    if not rs:
        sys.exit("as_made: no trial of a holdout: target tested a forecast in " + argv[0])
    for r in rs:
        net = "never caught up" if r["net"] is None else "%+.1f%%" % (100 * r["net"])
        print("%-24s gain %+.3f  %-9s %s" % (r["target"], r["gain"], r["verdict"], net))
    print(json.dumps(figures(rs), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
