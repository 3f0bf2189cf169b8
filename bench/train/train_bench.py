#!/usr/bin/env python3
"""Trains the same configuration in preflight and in PyTorch side by side and prints tokens/s,
their ratio, achieved GFLOP/s and that as a fraction of the 2-thread SGEMM rate this machine
gives at the model's own GEMM shapes (measured here by sgemm_bench, best library).

    /usr/bin/python3 bench/train/train_bench.py --build build-train --models tiny,small,medium \
        --threads 2 --rounds 3

Rounds are interleaved (preflight, torch default, torch tuned, ...) and medians reported, as
MEASUREMENTS.md asks on a shared machine. "Default" torch is Debian's python3-torch as
installed; "tuned" is BLIS as its BLAS (with the kernels the CPU supports) plus the glibc malloc
tunables of MEASUREMENTS.md and OMP_WAIT_POLICY=passive (as preflight train runs). FLOPs/token follow src/train/config.h (6N + 12 L T d)."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONFIGS = {"tiny": (2, 64, 2, 64, 16), "small": (4, 128, 4, 128, 32), "medium": (6, 256, 8, 256, 16)}
STEPS = {"tiny": 20, "small": 4, "medium": 2}  # timed steps; short: the machine is shared


def flops_per_token(L, C, T, V=257):
    return 6 * (L * (12 * C * C + 13 * C) + 2 * C + V * C) + 12 * L * T * C


def run_preflight(binary, model, threads, steps, data, evalf):
    with tempfile.TemporaryDirectory() as out:
        r = subprocess.run([binary, "train", "--data", data, "--eval", evalf, "--model", model,
                            "--steps", str(steps), "--eval-every", str(10 ** 6),
                            "--eval-max-windows", "1", "--threads", str(threads), "--out", out,
                            "--json", "--quiet"], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["tokens_per_second"]


def run_torch(model, threads, steps, tuned):
    L, C, NH, T, B = CONFIGS[model]
    env = dict(os.environ)
    if tuned:
        env["LD_LIBRARY_PATH"] = "/usr/lib/x86_64-linux-gnu/blis-openmp"
        env["BLIS_NUM_THREADS"] = str(threads)
        env["GLIBC_TUNABLES"] = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736"
        # The same wait policy preflight train runs with (doc/train.md): fair on a shared machine.
        env.setdefault("OMP_WAIT_POLICY", "passive")
        env.setdefault("BLIS_ARCH_TYPE", blis_arch())
    r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "torch_bench.py"), "--layers", str(L),
                        "--d-model", str(C), "--heads", str(NH), "--context", str(T), "--batch",
                        str(B), "--steps", str(steps), "--threads", str(threads)],
                       capture_output=True, text=True, check=True, env=env)
    return json.loads(r.stdout.strip().splitlines()[-1])["tokens_per_second"]


def blis_arch():
    """The BLIS kernel set the engine itself picks (src/train/blas.cc): skx=0 with AVX-512."""
    flags = open("/proc/cpuinfo").read()
    if all(f in flags for f in ("avx512f", "avx512dq", "avx512bw", "avx512vl")):
        return "0"
    return "6" if "AuthenticAMD" in flags else "3"


def sgemm_rate(bench, model, threads):
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "passive")
    r = subprocess.run([bench, "--model", model, "--threads", str(threads), "--rounds", "3"],
                       capture_output=True, text=True, check=True, env=env)
    last = r.stdout.strip().splitlines()[-1]
    return max(float(x) for x in re.findall(r"[\d.]+", last.split(")")[-1]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="tiny,small,medium")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    binary = os.path.join(a.build, "preflight")
    bench = os.path.join(a.build, "bench", "train", "sgemm_bench")
    with tempfile.TemporaryDirectory() as d:
        data, evalf = os.path.join(d, "train.jsonl"), os.path.join(d, "eval.jsonl")
        import random
        rnd = random.Random(1)
        words = "the of and to a in that is was he for it with as his on be at by".split()
        with open(data, "w") as f:
            for _ in range(3000):
                f.write(json.dumps({"text": " ".join(rnd.choice(words) for _ in range(80))}) + "\n")
        with open(evalf, "w") as f:
            f.write(json.dumps({"text": " ".join(rnd.choice(words) for _ in range(400))}) + "\n")
        print("command: /usr/bin/python3 bench/train/train_bench.py " + " ".join(sys.argv[1:]))
        print("%-7s %11s %11s %11s %7s %7s %9s %10s %9s" % (
            "model", "preflight", "torch def", "torch tuned", "x def", "x tuned", "GFLOP/s",
            "SGEMM %dT" % a.threads, "fraction"))
        for model in a.models.split(","):
            L, C, NH, T, B = CONFIGS[model]
            pf, td, tt = [], [], []
            for _ in range(a.rounds):
                pf.append(run_preflight(binary, model, a.threads, STEPS[model], data, evalf))
                td.append(run_torch(model, a.threads, STEPS[model], False))
                tt.append(run_torch(model, a.threads, STEPS[model], True))
            pf, td, tt = statistics.median(pf), statistics.median(td), statistics.median(tt)
            gflops = pf * flops_per_token(L, C, T) / 1e9
            sg = sgemm_rate(bench, model, a.threads)
            print("%-7s %11.0f %11.0f %11.0f %7.2f %7.2f %9.1f %10.1f %8.0f%%" % (
                model, pf, td, tt, pf / td, pf / tt, gflops, sg, 100 * gflops / sg))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
