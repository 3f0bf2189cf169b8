#!/usr/bin/env python3
"""Trains the same configuration in preflight's engine and in PyTorch side by side and prints
tokens/s, the ratios, the engine's GFLOP/s and that as a share of the SGEMM rate this machine
gives at the model's own GEMM shapes, measured in the same run.

    /usr/bin/python3 bench/engine/train_bench.py --build build --models tiny,small,medium \
        --threads 2 --rounds 3 --steps 15

Each round runs, one after the other: the engine (build/bench/engine/step_bench), PyTorch default,
PyTorch tuned, and sgemm_bench at the model's shapes; medians over the rounds are reported, as a
shared machine needs. Every timed run takes --warmup steps first and times --steps steps after
them. "Default" torch is Debian's python3-torch as installed; "tuned" is BLIS as its BLAS (with the
kernels the CPU supports) plus glibc malloc tunables (mmap_max=0, a high trim_threshold) and
OMP_WAIT_POLICY=passive (as preflight train runs). The SGEMM figure is the best library's
FLOP-weighted 2-thread rate over the step's GEMM shapes (sgemm_bench's last
line). FLOPs/token follow src/engine/config.h: 6N + 12 L T d, the causal half of attention
counted as done. --baseline DIR adds another build's step_bench (e.g. an older commit) to each
round, for before/after figures under the same load. Without Debian's python3-torch it stops
with exit code 77 (CTest's "skipped") unless --no-torch is given.

CTest runs one tiny round of it (bench/engine/CMakeLists.txt, TrainBench.OneTinyRound) so that
it keeps running as written here."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONFIGS = {"tiny": (2, 64, 2, 64, 16), "small": (4, 128, 4, 128, 32), "medium": (6, 256, 8, 256, 16)}


def flops_per_token(L, C, T, V=257):
    return 6 * (L * (12 * C * C + 13 * C) + 2 * C + V * C) + 12 * L * T * C


def passive_env():
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "passive")  # as preflight train runs (doc/train.md)
    return env


def bench_binary(build, name):
    """A benchmark program of the build folder (bench/engine/CMakeLists.txt)."""
    path = os.path.join(build, "bench", "engine", name)
    if not os.access(path, os.X_OK):
        sys.exit("train_bench: %s is missing: build it (scripts/build.sh %s in the repository "
                 "of that build)" % (path, name))
    return path


def torch_missing():
    r = subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True)
    return r.returncode != 0


def run_engine(build, model, threads, steps, warmup):
    r = subprocess.run([bench_binary(build, "step_bench"), "--model", model,
                        "--threads", str(threads), "--steps", str(steps), "--warmup", str(warmup)],
                       capture_output=True, text=True, check=True, env=passive_env())
    return json.loads(r.stdout.strip().splitlines()[-1])["tokens_per_second"]


def run_torch(model, threads, steps, warmup, tuned):
    L, C, NH, T, B = CONFIGS[model]
    env = dict(os.environ)
    if tuned:
        env["LD_LIBRARY_PATH"] = "/usr/lib/x86_64-linux-gnu/blis-openmp"
        env["BLIS_NUM_THREADS"] = str(threads)
        env["GLIBC_TUNABLES"] = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736"
        env.setdefault("OMP_WAIT_POLICY", "passive")
        env.setdefault("BLIS_ARCH_TYPE", blis_arch())
    r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "torch_bench.py"), "--layers", str(L),
                        "--d-model", str(C), "--heads", str(NH), "--context", str(T), "--batch",
                        str(B), "--steps", str(steps), "--warmup", str(warmup), "--threads",
                        str(threads)], capture_output=True, text=True, check=True, env=env)
    return json.loads(r.stdout.strip().splitlines()[-1])["tokens_per_second"]


def blis_arch():
    """The BLIS kernel set the engine itself picks (src/engine/blas.cc): skx=0 with AVX-512."""
    flags = open("/proc/cpuinfo").read()
    if all(f in flags for f in ("avx512f", "avx512dq", "avx512bw", "avx512vl")):
        return "0"
    return "6" if "AuthenticAMD" in flags else "3"


def sgemm_rate(build, model, threads):
    r = subprocess.run([bench_binary(build, "sgemm_bench"), "--model", model,
                        "--threads", str(threads), "--rounds", "1"],
                       capture_output=True, text=True, check=True, env=passive_env())
    last = r.stdout.strip().splitlines()[-1]
    return max(float(x) for x in re.findall(r"[\d.]+", last.split(")")[-1]))


def load():
    return open("/proc/loadavg").read().split()[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--baseline", help="another build folder whose step_bench runs beside")
    ap.add_argument("--models", default="tiny,small,medium")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=15, help="timed steps per run")
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps before them")
    ap.add_argument("--no-torch", action="store_true", help="engine and SGEMM only")
    a = ap.parse_args()
    if not a.no_torch and torch_missing():
        print("train_bench: /usr/bin/python3 has no torch (python3-torch: scripts/install-deps.sh "
              "--tests); --no-torch runs the engine and SGEMM only", file=sys.stderr)
        sys.exit(77)
    for build in [a.build] + ([a.baseline] if a.baseline else []):
        bench_binary(build, "step_bench")
    bench_binary(a.build, "sgemm_bench")
    print("command: /usr/bin/python3 bench/engine/train_bench.py " + " ".join(sys.argv[1:]))
    print("load average at start: %s" % load())
    head = "| model | engine tok/s | PyTorch default | PyTorch tuned | x default | x tuned |" \
           " engine GFLOP/s | SGEMM %dT GFLOP/s | share of SGEMM |" % a.threads
    if a.baseline:
        head += " baseline tok/s | x baseline |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for model in a.models.split(","):
        L, C, NH, T, B = CONFIGS[model]
        runs = {"pf": [], "td": [], "tt": [], "sg": [], "base": []}
        for _ in range(a.rounds):
            runs["pf"].append(run_engine(a.build, model, a.threads, a.steps, a.warmup))
            if a.baseline:
                runs["base"].append(run_engine(a.baseline, model, a.threads, a.steps, a.warmup))
            if not a.no_torch:
                runs["td"].append(run_torch(model, a.threads, a.steps, a.warmup, False))
                runs["tt"].append(run_torch(model, a.threads, a.steps, a.warmup, True))
            runs["sg"].append(sgemm_rate(a.build, model, a.threads))
        med = {k: statistics.median(v) if v else float("nan") for k, v in runs.items()}
        gflops = med["pf"] * flops_per_token(L, C, T) / 1e9
        row = "| %s | %.0f | %.0f | %.0f | %.2f | %.2f | %.1f | %.1f | %.0f%% |" % (
            model, med["pf"], med["td"], med["tt"], med["pf"] / med["td"], med["pf"] / med["tt"],
            gflops, med["sg"], 100 * gflops / med["sg"])
        if a.baseline:
            row += " %.0f | %.2f |" % (med["base"], med["pf"] / med["base"])
        print(row)
        print("  rounds: " + "; ".join("%s %s" % (k, " ".join("%.0f" % x for x in v))
                                       for k, v in runs.items() if v))
        sys.stdout.flush()
    print("load average at end: %s" % load())


if __name__ == "__main__":
    main()
