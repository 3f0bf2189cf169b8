#!/usr/bin/env python3
"""Measures the forecast's signals again for every finished battery trial of a ledger.

For each trial receipt that tested a forecast and whose target a battery spec names, runs
`preflight forecast --remeasures TRIAL_HASH` on the spec's files with the trial's settings;
preflight refuses unless the files' SHA-256 are the ones the trial read, so the new signals join
the outcome of the very case they measure (`forecast --calibrate` does the joining). A trial that
already has a re-measure in the ledger is skipped, so a stopped run resumes.

  python3 bench/calibration/remeasure.py --ledger L --binary build/preflight \\
      --spec runs/calibration/data/battery.json --spec runs/holdout/data/battery.json
"""

import argparse
import json
import os
import subprocess
import sys


def load_ledger(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def spec_targets(paths):
    """{(battery name, target name): (spec folder, target)}"""
    out = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
        for t in spec["targets"]:
            out[(spec.get("name", "calibration"), t["name"])] = (os.path.dirname(path), t)
    return out


def command(binary, ledger, folder, t, trial):
    c = trial["config"]
    model = c["model"]
    return [binary, "forecast", "--pool", os.path.join(folder, t["pool"]),
            "--target-select", os.path.join(folder, t["target_select"]),
            "--selector", c["selector"], "--keep", str(c["keep"]),
            "--selection-seed", str(c["selection_seed"]), "--model", model["name"],
            "--steps", str(c["steps"]), "--seeds", str(c["seeds"]),
            "--threads", str(c.get("threads", 2)), "--text-field", t.get("text_field", "text"),
            "--remeasures", trial["hash"], "--ledger", ledger, "--quiet", "--json"]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ledger", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--spec", action="append", required=True)
    ap.add_argument("--again", action="store_true",
                    help="re-measure also trials whose re-measure recorded the curve signals "
                         "(made before they were turned off by default)")
    args = ap.parse_args(argv)
    targets = spec_targets(args.spec)
    receipts = load_ledger(args.ledger)
    done = {r["config"].get("remeasures") for r in receipts if r["kind"] == "forecast" and
            (not args.again or not r["config"].get("curve_signals") and
             "ngram_curve_gain" not in r["result"]["signals"])}
    refused, measured = [], 0
    for trial in receipts:
        if trial["kind"] != "trial" or not trial["config"].get("forecast"):
            continue
        name = trial["config"].get("target_name", "")
        battery, _, rest = name.partition(":")
        key = (battery, rest.split(" (", 1)[0])
        if key not in targets or trial["hash"] in done:
            continue
        folder, t = targets[key]
        r = subprocess.run(command(args.binary, args.ledger, folder, t, trial),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            refused.append((name, r.stderr.decode("utf-8", "replace").strip()))
            print("refused: %s: %s" % refused[-1], file=sys.stderr, flush=True)
            continue
        measured += 1
        out = json.loads(r.stdout)
        print("%-40s %-8s xfit %+.4f cost %.2f%%" % (
            name[:40], out["verdict"], out["signals"]["xfit_bigram_gain"]["value"],
            100 * out["cost"]["fraction_of_trial"]), flush=True)
    print("re-measured %d, refused %d" % (measured, len(refused)), file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
