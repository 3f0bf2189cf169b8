#!/usr/bin/env python3
"""The GPU run (issue 30): the one command a session lent a GPU passes to the device tool, with
the bundle carried (bench/gpu/README.md gives the call); done in at most 8 minutes.

    bench/gpu/run.sh              on the lent machine (python3 there has torch 2.x)
    bench/gpu/run.sh --dry-run    the same path on the CPU, through the bundle (a CI test)

1. Smoke (bench/gpu/smoke.py, about 30-60 s): torch, the device, bf16, the bf16 matmul rate
   measured, and one training step of the pilot's shape, eager and compiled. torch.compile is
   used only where it pays for itself within a run, decided on what was measured: compile when
   C < S (e - c), C the compilation (the first compiled step less one compiled step, with a cold
   cache: the runs later find it warm), S the pilot's steps, e and c the seconds per step eager
   and compiled. The probe gives up after S e seconds (past which compiling cannot pay) or 90.
2. The demo trial (Brown cj, dsir, --trainer torch) at the pilot.
3. Calibration-battery targets (the bundle's subset, in its order) at the same pilot, each
   started only while the time left fits one (the longest trial so far; before any battery
   target, 1.25 times the demo's, its pool being larger); every trial also stops at the budget.
4. OUT ($OUT where the device tool sets it, else out/gpu-run), 5 files, within the tool's 8:
   summary.json (every figure), summary.txt (the table, printed last), ledger.jsonl (every
   receipt), run.log (every log), trials.tar.gz (each trial's trial.json and result.json, each
   run's curve.jsonl, run.json, launch.json and stderr.log). The summary is written whatever
   happens. The trial folders stay in --work: a rerun there resumes or reuses them.
Exit 0 when every trial that started finished, 1 when one failed or ran out of time, 2 on bad
usage or a missing bundle or device.
"""
import argparse
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The pilot (bench/gpu/README.md says why it should pass the regime check on an H200).
PILOT = {"model": "10m", "steps": 2000, "seeds": 4, "parallel": 8, "eval_every": 100,
         "eval_windows": 0}
DRY = {"model": "tiny", "steps": 20, "seeds": 2, "parallel": 2, "eval_every": 5,
       "eval_windows": 64}
SHAPES = {"tiny": (2, 64, 2, 64, 16), "10m": (6, 384, 6, 256, 32), "40m": (8, 640, 10, 256, 32),
          "small": (4, 128, 4, 128, 32), "medium": (6, 256, 8, 256, 16)}  # engine.NAMED_MODELS
RESERVE_SECONDS = 15  # for the summary and the archive, after the last trial
FIRST_TARGET_FACTOR = 1.25


class Run:
    """The clock, the log and the folders of one GPU run."""

    def __init__(self, a):
        self.a, self.started = a, time.monotonic()
        self.compile, self.stopped, self.failed = "off", None, None
        os.makedirs(a.out, exist_ok=True)
        os.makedirs(a.work, exist_ok=True)
        self.log_path = os.path.join(a.out, "run.log")
        open(self.log_path, "w").close()

    def left(self):
        return self.a.budget_seconds - (time.monotonic() - self.started)

    def say(self, message):
        line = "gpu-run: [%5.0f s] %s" % (time.monotonic() - self.started, message)
        print(line, flush=True)
        self.append_log(line + "\n")

    def append_log(self, text):
        with open(self.log_path, "a") as f:
            f.write(text)


def call(run, argv, timeout, env=None, title=""):
    """Runs argv in a process group of its own, its stderr into run.log; kills the group at the
    timeout. Returns (stdout, wall seconds, exit code or "timeout")."""
    started = time.monotonic()
    err_path = os.path.join(run.a.work, "stderr.tmp")
    with open(err_path, "w") as err:
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, text=True, env=env,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=max(timeout, 1))
            code = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                out, _ = p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, _ = p.communicate()
            code = "timeout"
    with open(err_path) as f:
        run.append_log("---- %s: %s\n%s" % (title, " ".join(map(shlex.quote, argv)), f.read()))
    return out, time.monotonic() - started, code


def smoke(run, shape):
    """The device and the step costs (smoke.py's JSON lines), and the compile decision."""
    a = run.a
    layers, d_model, heads, context, batch = shape
    argv = [a.python, os.path.join(HERE, "smoke.py"), "--trainer-dir",
            os.path.join(a.bundle, "trainer", "torch"), "--device", a.device, "--layers",
            str(layers), "--d-model", str(d_model), "--heads", str(heads), "--context",
            str(context), "--batch", str(batch), "--steps", "3" if a.dry_run else "20"]
    if a.compile == "measure":
        argv += ["--compile-steps", str(a.steps)]
    out, wall, code = call(run, argv, 240, title="smoke")
    stages = {}
    for line in (out or "").splitlines():
        record = json.loads(line)
        stages[record["stage"]] = record
    if "eager" not in stages:
        raise SystemExit(fail(run, "the smoke step failed (exit %s): see run.log" % code, 2))
    info = dict(stages["device"], smoke_seconds=wall,
                eager_step_seconds=stages["eager"]["step_seconds"])
    info.update(decide_compile(run.a, info, stages.get("compiled")))
    return info


def decide_compile(a, info, probe):
    """{"compile": "on"|"off", "compile_why": ...} by the rule of the docstring."""
    if a.compile != "measure":
        return {"compile": a.compile, "compile_why": "given: --compile %s" % a.compile}
    if not info["compile_available"]:
        return {"compile": "off", "compile_why": "torch %s has no torch.compile" % info["torch"]}
    eager = info["eager_step_seconds"]
    if not probe or "timeout" in probe:
        return {"compile": "off", "compile_why": "the compile probe had not finished after "
                "%s s: compiling cannot pay in %d steps" % (
                    "%.0f" % probe["timeout"] if probe else "?", a.steps)}
    c = probe["step_seconds"]
    cost = max(probe["first_step_seconds"] - c, 0.0)
    saved = a.steps * (eager - c)
    return {"compile": "on" if cost < saved else "off", "compiled_step_seconds": c,
            "compile_seconds": cost,
            "compile_why": "compilation %.1f s %s %d steps x (%.2f - %.2f) ms = %.1f s saved"
                           % (cost, "<" if cost < saved else ">=", a.steps, 1e3 * eager, 1e3 * c,
                              saved)}


def trainer_flags(a):
    return ["--model", a.model, "--steps", str(a.steps), "--seeds", str(a.seeds),
            "--eval-every", str(a.eval_every), "--eval-windows", str(a.eval_windows),
            "--trainer", "torch", "--device", a.device, "--parallel", str(a.parallel),
            "--torch-launcher", shlex.quote(a.python), "--threads", str(a.threads),
            "--ledger", os.path.join(a.out, "ledger.jsonl"), "--json", "--quiet"]


def preflight(run, name, args, estimate):
    """One trial through the bundled binary when the time left fits `estimate`; returns the
    --json document and wall seconds, or None (not started, failed or out of time)."""
    left = run.left() - RESERVE_SECONDS
    if left < max(estimate, 1):
        run.stopped = "%.0f s left before %s, which needs about %.0f s" % (left, name, estimate)
        run.say("stopping: " + run.stopped)
        return None, 0
    env = dict(os.environ, PREFLIGHT_TORCH_COMPILE=run.compile)
    out, wall, code = call(run, [os.path.join(run.a.bundle, "preflight")] + args, left, env,
                           title=name)
    if code != 0:
        run.failed = "%s: %s after %.0f s (run.log)" % (
            name, "out of time" if code == "timeout" else "exit %s" % code, wall)
        run.say("FAILED " + run.failed)
        return None, wall
    return json.loads(out), wall


def speeds(trial_dir, parallel):
    """From every run's run.json (doc/trainers.md): tokens/s and MFU per run, and for the runs
    trained side by side (parallel at once, sharing the device)."""
    rows = []
    runs = os.path.join(trial_dir, "runs")
    for name in sorted(os.listdir(runs)) if os.path.isdir(runs) else []:
        path = os.path.join(runs, name, "run.json")
        if os.path.isfile(path):
            with open(path) as f:
                rows.append(json.load(f))
    rates = [r["step_tokens_per_second"] for r in rows if r.get("step_tokens_per_second")]
    if not rates:
        return {"runs": len(rows)}
    at_once = min(parallel, len(rows))
    per_token = rows[0]["flops_per_step"] / rows[0]["tokens_per_step"]
    out = {"runs": len(rows), "at_once": at_once, "per_run_tokens_per_second":
           statistics.median(rates), "flops_per_token": per_token,
           "compiled": sorted({r.get("compiled") for r in rows}),
           "attention": sorted({r.get("attention", "?") for r in rows}),
           "adamw": sorted({r.get("adamw", "?") for r in rows})}
    out["tokens_per_second"] = out["per_run_tokens_per_second"] * at_once
    mfus = [r["mfu"] for r in rows if "mfu" in r]
    if mfus:
        out.update(per_run_mfu=statistics.median(mfus), mfu=statistics.median(mfus) * at_once,
                   peak_flops=rows[0]["peak_flops"], peak_source=rows[0]["peak_source"])
    return out


def row(name, doc, wall, trial_dir, a):
    saved = doc["compute_saved"]
    regime = doc.get("regime") or {}
    return {"target": name, "wall_seconds": wall, "gross": saved.get("gross"),
            "net": saved.get("net"), "ci95": saved.get("ci95"), "l_star": regime.get("l_star"),
            "best_ngram_bpb": regime.get("best_ngram_bpb"), "margin": regime.get("margin"),
            "informative": regime.get("informative"), "dir": trial_dir,
            "speed": speeds(trial_dir, a.parallel)}


def demo(run):
    a = run.a
    brown = os.path.join(a.bundle, "data", "brown")
    out = os.path.join(a.work, "trial-cj")
    doc, wall = preflight(run, "brown:cj", [
        "trial", "--pool", os.path.join(brown, "pools", "cj.jsonl.zst"),
        "--target-select", os.path.join(brown, "targets", "cj.select.jsonl.zst"),
        "--target-eval", os.path.join(brown, "targets", "cj.eval.jsonl.zst"),
        "--selector", "dsir", "--out", out] + trainer_flags(a), 0)
    return [row("brown:cj", doc, wall, out, a)] if doc else []


def battery(run, rows):
    a = run.a
    spec = os.path.join(a.bundle, "data", "calibration", "battery.json")
    with open(spec) as f:
        names = [t["name"] for t in json.load(f)["targets"]][:a.max_targets or None]
    done = []
    for name in names:
        walls = [r["wall_seconds"] for r in rows + done]
        estimate = max(walls) * (1.0 if done else FIRST_TARGET_FACTOR) if walls else 0
        estimate = a.assume_trial_seconds or estimate
        doc, wall = preflight(run, "calibration:" + name, [
            "battery", "--spec", spec, "--targets", name, "--out",
            os.path.join(a.work, "battery")] + trainer_flags(a), estimate)
        if not doc:
            break
        for r in doc["rows"]:
            done.append(row("calibration:" + r["target"], r, wall,
                            os.path.join(a.work, "battery", r["target"]), a))
        run.say(show(done[-1]))
    return done


def pct(x):
    return "never" if x is None else "%+.1f%%" % (100 * x)


def show(r):
    ci = r["ci95"] or [None, None]
    s = r["speed"]
    line = "%-30s net %7s (95%% %s .. %s)  gross %7s  L* %s vs n-gram %s: margin %s %s" % (
        r["target"], pct(r["net"]), pct(ci[0]), pct(ci[1]), pct(r["gross"]),
        "-" if r["l_star"] is None else "%.4f" % r["l_star"],
        "-" if r["best_ngram_bpb"] is None else "%.4f" % r["best_ngram_bpb"],
        "-" if r["margin"] is None else "%+.3f" % r["margin"],
        "informative" if r["informative"] else "NOT informative")
    if s.get("tokens_per_second"):
        line += "  %.0f tok/s (%d at once)" % (s["tokens_per_second"], s["at_once"])
        if "mfu" in s:
            line += ", MFU %.1f%%" % (100 * s["mfu"])
    return line + "  %.0f s" % r["wall_seconds"]


def fail(run, message, code=1):
    run.say("ERROR: " + message)
    return code


def archive(run, rows):
    """trials.tar.gz: each trial's trial.json and result.json, each run's curve, run.json,
    launch.json and stderr.log (no checkpoints, no arms: those stay in --work)."""
    keep = ("trial.json", "result.json", "curve.jsonl", "run.json", "launch.json", "stderr.log")
    with tarfile.open(os.path.join(run.a.out, "trials.tar.gz"), "w:gz") as tar:
        for r in rows:
            for base, _, names in os.walk(r["dir"]):
                for n in sorted(names):
                    if n in keep:
                        path = os.path.join(base, n)
                        tar.add(path, arcname=os.path.relpath(path, run.a.work))


def summarise(run, info, rows):
    a = run.a
    summary = {"dry_run": a.dry_run, "budget_seconds": a.budget_seconds,
               "wall_seconds": time.monotonic() - run.started,
               "pilot": {k: getattr(a, k) for k in PILOT}, "device": a.device,
               "bundle": bundle_info(a.bundle), "smoke": info, "trials": rows,
               "informative": sum(1 for r in rows if r["informative"]),
               "stopped": run.stopped, "failed": run.failed}
    ceiling = (info or {}).get("matmul_bf16_tflops")
    for r in rows:
        s = r["speed"]
        if ceiling and s.get("tokens_per_second"):
            s["mfu_of_measured_matmul"] = (s["tokens_per_second"] * s["flops_per_token"] /
                                           (ceiling * 1e12))
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    lines = [headline(a, info)] + [show(r) for r in rows]
    lines.append("%d trial(s), %d informative, %.0f s of %.0f%s%s; ledger %s" % (
        len(rows), summary["informative"], summary["wall_seconds"], a.budget_seconds,
        "; stopped: " + summary["stopped"] if summary["stopped"] else "",
        "; FAILED: " + summary["failed"] if summary["failed"] else "",
        os.path.join(a.out, "ledger.jsonl")))
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)
    return summary


def headline(a, info):
    if not info:
        return "no smoke result"
    return "%s, torch %s%s; pilot %s, %d steps, %d seeds per arm, %d at once; compile %s (%s)%s" % (
        info.get("device_name", "CPU"), info["torch"],
        ", bf16 %s, matmul %.0f TFLOP/s measured" % ("yes" if info.get("bf16") else "NO",
                                                     info["matmul_bf16_tflops"])
        if "matmul_bf16_tflops" in info else "", a.model, a.steps, a.seeds, a.parallel,
        info.get("compile"), info.get("compile_why"),
        " (DRY RUN: the plumbing, not a measurement)" if a.dry_run else "")


def bundle_info(bundle):
    path = os.path.join(bundle, "bundle.json")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        b = json.load(f)
    return {key: b.get(key) for key in ("commit", "bytes", "libraries", "glibc_needed")}


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="the CPU, tiny shapes: the plumbing")
    ap.add_argument("--bundle", default=os.path.join(ROOT, "gpu-bundle"))
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(ROOT, "out",
                                                                            "gpu-run"))
    ap.add_argument("--work", help="trial folders (default: OUT/../gpu-run-work)")
    ap.add_argument("--python", default=sys.executable, help="the trainer's Python (torch)")
    ap.add_argument("--budget-seconds", type=float, default=480)
    ap.add_argument("--compile", choices=("measure", "on", "off"), default="measure")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--max-targets", type=int, help="battery targets at most (dry run: 1)")
    ap.add_argument("--assume-trial-seconds", type=float, default=0,
                    help="what a battery target must fit (default: the longest trial so far)")
    for key in PILOT:
        ap.add_argument("--" + key.replace("_", "-"), type=type(PILOT[key]) if key != "model"
                        else str)
    a = ap.parse_args(argv)
    base = DRY if a.dry_run else PILOT
    for key, value in base.items():
        if getattr(a, key) is None:
            setattr(a, key, value)
    if a.model not in SHAPES:
        ap.error("--model %s: one of %s" % (a.model, ", ".join(sorted(SHAPES))))
    if a.max_targets is None:
        a.max_targets = 1 if a.dry_run else 0
    a.device = "cpu" if a.dry_run else "cuda"
    a.out = os.path.abspath(a.out)
    a.work = os.path.abspath(a.work or os.path.join(os.path.dirname(a.out), "gpu-run-work"))
    a.bundle = os.path.abspath(a.bundle)
    return a


def glibc_problem(bundle):
    """Why this machine's C runtime cannot run the bundle, or None."""
    need = (bundle_info(bundle) or {}).get("glibc_needed")
    have = os.confstr("CS_GNU_LIBC_VERSION").split()[-1] if hasattr(os, "confstr") else ""
    if not need or not have:
        return None
    if tuple(map(int, have.split("."))) < tuple(map(int, need.split("."))):
        return ("the bundle needs glibc %s or newer and this machine has %s: build the bundle on "
                "an older Debian" % (need, have))
    return None


def main(argv):
    a = parse(argv)
    if not os.access(os.path.join(a.bundle, "preflight"), os.X_OK):
        print("gpu-run: %s/preflight is missing: make the bundle (scripts/gpu-bundle.sh) and "
              "carry it" % a.bundle, file=sys.stderr)
        return 2
    problem = glibc_problem(a.bundle)
    if problem:
        print("gpu-run: " + problem, file=sys.stderr)
        return 2
    run = Run(a)
    info, rows, code = None, [], 0
    try:
        run.say("%s; bundle %s; out %s; budget %.0f s" % (
            "DRY RUN on the CPU" if a.dry_run else "on the GPU", a.bundle, a.out,
            a.budget_seconds))
        info = smoke(run, SHAPES[a.model])
        run.compile = info["compile"]
        run.say(headline(a, info))
        rows = demo(run)
        if rows:
            run.say(show(rows[0]))
            rows += battery(run, rows)
        code = 1 if run.failed else 0
    finally:
        archive(run, rows)
        summarise(run, info, rows)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
