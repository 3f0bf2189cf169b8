#!/usr/bin/env python3
"""The GPU check (issue 23, item 7): for whoever has an NVIDIA GPU, under 10 minutes.

    python3 bench/gpu/gpu_check.py                 # on a machine with a CUDA GPU and torch
    python3 bench/gpu/gpu_check.py --dry-run       # the same plumbing on the CPU, tiny shapes

1. A trial with `--trainer torch --device cuda` on the Brown demo target (pool
   data/brown/pools/cj.jsonl, targets cj.select.jsonl / cj.eval.jsonl, dsir, 4 seeds per arm)
   at the `10m` model (6 layers, d_model 384, 6 heads, context 256, batch 32: 10.8M parameters)
   for 2,000 steps: 16.4M training tokens per run, about 12 epochs of a 1.4 MB arm, 1.2e15 FLOPs
   per run. Why this pilot (doc/torch-trainer.md, "The GPU check" has the whole argument): the
   regime check asks the pilot's best loss L* to sit 0.05 bits below the best byte n-gram model
   (order <= 4) of its own arm; on this target the order-4 model scores 2.50 bits per byte, and
   the tiny pilot ends 1.1 bits above it. A 10M-parameter byte model is nanoGPT's character-level
   Shakespeare shape, which on 1 MB of text reaches about 2.1 bits per character before it
   overfits, 0.3-0.4 bits under an order-4 model of the same text; L* is the best point of the
   curve, so the epochs after the best cost time but not the verdict. It prints tokens/s and
   model-FLOP utilisation (run.json of every run), the regime margin and the saving.
2. In the time left (--budget-seconds, default 570 in all), calibration-battery targets
   (data/calibration/battery.json, scripts/calibration-battery.sh) one at a time in the spec's
   order, each only when the time left exceeds the demo trial's wall time, at the same pilot,
   their receipts kept in OUT/ledger.jsonl (the first calibration data from informative pilots:
   `preflight forecast --calibrate --ledger OUT/ledger.jsonl`).

Fails fast (exit 2) without a CUDA device visible to torch. --dry-run: tiny model, 40 steps,
2 seeds, on the CPU, 1 battery target at most: the plumbing, not a measurement.
Writes OUT/gpu_check.json (default OUT: out/gpu-check) with every figure printed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BROWN = os.path.join(ROOT, "data", "brown")


def fail(message, code=2):
    print("gpu_check: " + message, file=sys.stderr)
    sys.exit(code)


def check_gpu(python):
    """A CUDA device visible to the trainer's Python, or exit 2 saying what is missing."""
    probe = ("import torch; ok = torch.cuda.is_available(); "
             "print(torch.__version__, ok, torch.cuda.get_device_name() if ok else '-')")
    try:
        r = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail("cannot run %s (%s): pass --python with a Python that has torch" % (python, e))
    if r.returncode != 0:
        fail("%s cannot import torch: %s" % (python, (r.stderr.strip().splitlines() or ["?"])[-1]))
    version, ok, name = r.stdout.split(None, 2)
    if ok != "True":
        fail("no CUDA device is visible to torch %s (%s): this check needs an NVIDIA GPU; "
             "--dry-run runs its plumbing on the CPU" % (version, python))
    return {"torch": version, "device_name": name.strip()}


def trainer_flags(a):
    flags = ["--model", a.model, "--steps", str(a.steps), "--seeds", str(a.seeds),
             "--trainer", "torch", "--device", a.device, "--parallel", str(a.parallel),
             "--torch-launcher", a.launcher, "--ledger", os.path.join(a.out, "ledger.jsonl"),
             "--json", "--quiet"]
    if a.threads:
        flags += ["--threads", str(a.threads)]
    return flags


def preflight(a, args, log):
    """Runs preflight, its stderr into log; returns (parsed --json, wall seconds)."""
    started = time.time()
    with open(log, "w") as err:
        r = subprocess.run([a.preflight] + args, stdout=subprocess.PIPE, stderr=err, text=True)
    wall = time.time() - started
    if r.returncode != 0:
        with open(log) as f:
            tail = f.read()[-3000:]
        fail("preflight %s exited %d after %.0f s; the end of its log (%s):\n%s"
             % (args[0], r.returncode, wall, log, tail), 1)
    return json.loads(r.stdout), wall


def run_speeds(trial_dir):
    """Every run's run.json (doc/trainers.md): training tokens/s and MFU."""
    speeds, mfus = [], []
    runs = os.path.join(trial_dir, "runs")
    for name in sorted(os.listdir(runs)) if os.path.isdir(runs) else []:
        path = os.path.join(runs, name, "run.json")
        if os.path.isfile(path):
            with open(path) as f:
                info = json.load(f)
            if info.get("step_tokens_per_second"):
                speeds.append(info["step_tokens_per_second"])
            if "mfu" in info:
                mfus.append(info["mfu"])
    return {"runs": len(speeds),
            "tokens_per_second_median": statistics.median(speeds) if speeds else None,
            "mfu_median": statistics.median(mfus) if mfus else None}


def summarise(doc):
    """The saving and the regime of a trial's --json document, or of a battery's row."""
    saved = doc["compute_saved"]
    regime = doc.get("regime") or {}
    return {"gross": saved.get("gross"), "net": saved.get("net"), "ci95": saved.get("ci95"),
            "l_star": regime.get("l_star"), "best_ngram_bpb": regime.get("best_ngram_bpb"),
            "margin": regime.get("margin"), "informative": regime.get("informative")}


def pct(x):
    return "never" if x is None else "%+.1f%%" % (100 * x)


def show(name, s, speed=None):
    line = "%-28s net %8s (95%% %s .. %s)  gross %8s  regime margin %s (%s)" % (
        name, pct(s["net"]), pct((s["ci95"] or [None])[0]), pct((s["ci95"] or [None, None])[1]),
        pct(s["gross"]), "-" if s["margin"] is None else "%+.3f bits" % s["margin"],
        "informative" if s["informative"] else "NOT informative")
    if speed and speed["tokens_per_second_median"]:
        line += "  %.0f tok/s/run" % speed["tokens_per_second_median"]
        if speed["mfu_median"] is not None:
            line += ", MFU %.1f%%" % (100 * speed["mfu_median"])
    print(line, flush=True)


def demo_trial(a):
    for f in ("pools/cj.jsonl", "targets/cj.select.jsonl", "targets/cj.eval.jsonl"):
        if not os.path.isfile(os.path.join(BROWN, f)):
            fail("data/brown/%s is missing: run ./scripts/fetch-data.sh first" % f)
    out = os.path.join(a.out, "trial-cj")
    doc, wall = preflight(a, ["trial", "--pool", os.path.join(BROWN, "pools", "cj.jsonl"),
                              "--target-select", os.path.join(BROWN, "targets", "cj.select.jsonl"),
                              "--target-eval", os.path.join(BROWN, "targets", "cj.eval.jsonl"),
                              "--selector", "dsir", "--out", out] + trainer_flags(a),
                          os.path.join(a.out, "trial-cj.log"))
    s, speed = summarise(doc), run_speeds(out)
    s.update(wall_seconds=wall, speed=speed)
    show("brown:cj (the demo target)", s, speed)
    return s


def battery(a, started, per_trial):
    spec = os.path.join(ROOT, "data", "calibration", "battery.json")
    if not os.path.isfile(spec):
        print("gpu_check: %s is missing (scripts/calibration-battery.sh builds it): no battery "
              "targets run" % spec, flush=True)
        return []
    with open(spec) as f:
        names = [t["name"] for t in json.load(f)["targets"]]
    done = []
    for name in names[:a.max_targets] if a.max_targets else names:
        left = a.budget_seconds - (time.time() - started)
        if left < per_trial:
            print("gpu_check: %.0f s left, a trial took %.0f s: stopping after %d battery "
                  "target(s)" % (left, per_trial, len(done)), flush=True)
            break
        doc, wall = preflight(a, ["battery", "--spec", spec, "--targets", name, "--out",
                                  os.path.join(a.out, "battery")] + trainer_flags(a),
                              os.path.join(a.out, "battery-%s.log" % name))
        per_trial = max(per_trial, wall)
        for row in doc["rows"]:
            s = summarise(row)
            s.update(target=row["target"], wall_seconds=wall)
            show("calibration:" + row["target"], s)
            done.append(s)
    return done


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="CPU, tiny shapes: the plumbing")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "gpu-check"))
    ap.add_argument("--model", help="default 10m (dry run: tiny)")
    ap.add_argument("--steps", type=int, help="default 2000 (dry run: 40)")
    ap.add_argument("--seeds", type=int, help="runs per arm (default 4; dry run: 2)")
    ap.add_argument("--parallel", type=int, help="runs at a time (default 4; dry run: 1)")
    ap.add_argument("--threads", type=int, default=0, help="the trial's --threads (0: its own)")
    ap.add_argument("--python", default=sys.executable, help="the Python the trainer runs on")
    ap.add_argument("--launcher", help="--torch-launcher (default: --python)")
    ap.add_argument("--budget-seconds", type=float, default=570)
    ap.add_argument("--max-targets", type=int, help="battery targets at most (dry run: 1)")
    a = ap.parse_args()
    dry = a.dry_run
    a.model = a.model or ("tiny" if dry else "10m")
    a.steps = a.steps or (40 if dry else 2000)
    a.seeds = a.seeds or (2 if dry else 4)
    a.parallel = a.parallel or (1 if dry else 4)
    a.max_targets = a.max_targets if a.max_targets is not None else (1 if dry else 0)
    a.device = "cpu" if dry else "cuda"
    a.launcher = a.launcher or a.python
    a.preflight = os.path.join(a.build, "preflight")
    if not os.access(a.preflight, os.X_OK):
        fail("%s is missing: build preflight first (scripts/build.sh)" % a.preflight)
    started = time.time()
    info = {"dry_run": dry, "model": a.model, "steps": a.steps, "seeds": a.seeds,
            "device": a.device}
    if not dry:
        info.update(check_gpu(a.python))
        print("gpu_check: %s, torch %s" % (info["device_name"], info["torch"]), flush=True)
    os.makedirs(a.out, exist_ok=True)
    print("gpu_check: %s, %d steps, %d seeds per arm, --device %s, %d at a time%s" % (
        a.model, a.steps, a.seeds, a.device, a.parallel,
        " (DRY RUN: the plumbing, not a measurement)" if dry else ""), flush=True)
    info["demo"] = demo_trial(a)
    info["battery"] = battery(a, started, info["demo"]["wall_seconds"])
    info["wall_seconds"] = time.time() - started
    informative = sum(1 for s in info["battery"] if s["informative"])
    print("gpu_check: %.0f s in all; %d battery target(s), %d informative; ledger %s" % (
        info["wall_seconds"], len(info["battery"]), informative,
        os.path.join(a.out, "ledger.jsonl")), flush=True)
    with open(os.path.join(a.out, "gpu_check.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
