#!/usr/bin/env python3
"""How closely the PyTorch trainer (src/trainer/torch/train.py, CPU, float32) follows the engine
(`preflight train`): both train the same model with the same seed, schedule and data; prints,
per seed, the step-0 difference and the largest difference anywhere on the eval curve (bits per
byte), and the step where it occurs. The measurement behind the tolerance of
tests/trainer_torch (bench/engine/README.md, "How closely they agree").

    /usr/bin/python3 bench/engine/trainer_agreement.py --build build --model tiny --steps 300 \\
        --eval-every 20 --lr 1e-3 --seeds 1,2,3

Data: the trainer tests' fixture unless --data/--eval name JSONL files.
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "src", "trainer", "torch"))
# It compares the engine with PyTorch (/usr/bin/python3's, as the trainer launches it); the
# engine's reader below needs numpy in this interpreter. Without them there is nothing to
# compare: it stops as CTest's "skipped" (exit 77), as train_bench.py does.
if importlib.util.find_spec("numpy") is None or subprocess.run(
        ["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode:
    print("trainer_agreement: skipped: no torch in /usr/bin/python3, or no numpy in %s: the peer this bench "
          "compares with (python3-torch: scripts/install-deps.sh --tests)" % sys.executable,
          file=sys.stderr)
    sys.exit(77)
import engine  # noqa: E402


def curve(path):
    with open(path) as f:
        return [(p["step"], p["eval_bpb"]) for p in map(json.loads, f)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--model", default="tiny")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--eval-every", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=-1)
    ap.add_argument("--lr", default="1e-3")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--threads", type=int, default=1)
    fixture = os.path.join(ROOT, "tests", "trainer_torch", "data")
    ap.add_argument("--data", default=os.path.join(fixture, "train.jsonl"))
    ap.add_argument("--eval", default=os.path.join(fixture, "eval.jsonl"))
    a = ap.parse_args()
    print("command: /usr/bin/python3 bench/engine/trainer_agreement.py " + " ".join(sys.argv[1:]))
    warmup = a.warmup if a.warmup >= 0 else min(100, a.steps // 10)
    common = ["--model", a.model, "--steps", str(a.steps), "--eval-every", str(a.eval_every),
              "--lr", a.lr, "--threads", str(a.threads)]
    folder = tempfile.mkdtemp(prefix="trainer-agreement-")
    try:
        bins = {}
        for name, path in (("train", a.data), ("eval", a.eval)):
            with open(path, encoding="utf-8") as f:
                bins[name] = os.path.join(folder, name + ".bin")
                engine.tokenize([json.loads(x)["text"] for x in f if x.strip()]).tofile(
                    bins[name])
        print("| seed | step-0 engine | step-0 torch | step-0 |diff| | max |diff| | at step |"
              " final engine | final torch |")
        print("|---|---|---|---|---|---|---|---|")
        for seed in a.seeds.split(","):
            eng, tor = os.path.join(folder, "e" + seed), os.path.join(folder, "t" + seed)
            subprocess.run([os.path.join(a.build, "preflight"), "train", "--data", a.data,
                            "--eval", a.eval, "--out", eng, "--seed", seed, "--warmup",
                            str(warmup), "--quiet", "--ledger", os.path.join(folder, "l.jsonl")]
                           + common, check=True, stdout=subprocess.DEVNULL)
            subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "src", "trainer", "torch",
                                                             "train.py"),
                            "--train", bins["train"], "--eval", bins["eval"], "--run-dir", tor,
                            "--seed", seed, "--warmup-steps", str(warmup), "--device", "cpu"]
                           + common, check=True, stderr=subprocess.DEVNULL)
            e, t = curve(os.path.join(eng, "curve.jsonl")), curve(os.path.join(tor, "curve.jsonl"))
            assert [s for s, _ in e] == [s for s, _ in t], "eval steps differ"
            diffs = [abs(x - y) for (_, x), (_, y) in zip(e, t)]
            worst = max(range(len(diffs)), key=diffs.__getitem__)
            print("| %s | %.6f | %.6f | %.1e | %.1e | %d | %.4f | %.4f |" % (
                seed, e[0][1], t[0][1], diffs[0], diffs[worst], e[worst][0], e[-1][1], t[-1][1]))
            sys.stdout.flush()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
