#!/usr/bin/env python3
"""The PyTorch trainer (src/trainer/torch/train.py, what `--trainer torch` launches) beside the
engine (`preflight train`) on this machine's CPU: the same model, steps, data and thread count,
float32, run one after the other in each round; tokens/s of the training steps (evals excluded:
the engine's `tokens_per_second`, the trainer's run.json `step_tokens_per_second`), medians over
the rounds, and their ratio.

    /usr/bin/python3 bench/engine/trainer_bench.py --build build --models tiny,small \\
        --threads 2 --steps 30 --rounds 3

Data: the trainer tests' fixture (tests/trainer_torch/data, 40 kB of text) unless --data and
--eval name JSONL files. Torch is Debian's python3-torch as installed, with passive OpenMP waits
as a launch by preflight gets them (train_bench.py compares a BLIS-linked torch too). Timings
on a shared machine are noisy: quote the load averages printed with them.
"""
import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TORCH_DIR = os.path.join(ROOT, "src", "trainer", "torch")
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, TORCH_DIR)
# It compares the engine with PyTorch (/usr/bin/python3's, as the trainer launches it); the
# engine's reader below needs numpy in this interpreter. Without them there is nothing to
# compare: it stops as CTest's "skipped" (exit 77), as train_bench.py does.
if importlib.util.find_spec("numpy") is None or subprocess.run(
        ["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode:
    print("trainer_bench: skipped: no torch in /usr/bin/python3, or no numpy in %s: the peer this bench "
          "compares with (python3-torch: scripts/install-deps.sh --tests)" % sys.executable,
          file=sys.stderr)
    sys.exit(77)
import engine  # noqa: E402
from train_bench import load, passive_env  # noqa: E402


def tokens_file(jsonl, out):
    with open(jsonl, encoding="utf-8") as f:
        engine.tokenize([json.loads(line)["text"] for line in f if line.strip()]).tofile(out)
    return out


def run_engine(a, model, folder):
    out = os.path.join(folder, "engine-" + model)
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([os.path.join(a.build, "preflight"), "train", "--data", a.data, "--eval",
                        a.eval, "--model", model, "--steps", str(a.steps), "--eval-every",
                        str(a.steps), "--threads", str(a.threads), "--out", out, "--json",
                        "--quiet", "--ledger", os.path.join(folder, "ledger.jsonl")],
                       capture_output=True, text=True, check=True, env=passive_env())
    return json.loads(r.stdout)["tokens_per_second"]


def run_torch(a, model, folder, tokens):
    out = os.path.join(folder, "torch-" + model)
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(["/usr/bin/python3", os.path.join(TORCH_DIR, "train.py"), "--train",
                    tokens["train"], "--eval", tokens["eval"], "--run-dir", out, "--model", model,
                    "--steps", str(a.steps), "--eval-every", str(a.steps), "--threads",
                    str(a.threads), "--device", "cpu"], capture_output=True, text=True,
                   check=True, env=passive_env())  # as a launch by preflight inherits it
    with open(os.path.join(out, "run.json")) as f:
        return json.load(f)["step_tokens_per_second"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--models", default="tiny,small")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "trainer_torch", "data",
                                                   "train.jsonl"))
    ap.add_argument("--eval", default=os.path.join(ROOT, "tests", "trainer_torch", "data",
                                                   "eval.jsonl"))
    a = ap.parse_args()
    print("command: /usr/bin/python3 bench/engine/trainer_bench.py " + " ".join(sys.argv[1:]))
    print("load average at start: %s" % load())
    folder = tempfile.mkdtemp(prefix="trainer-bench-")
    try:
        tokens = {"train": tokens_file(a.data, os.path.join(folder, "train.bin")),
                  "eval": tokens_file(a.eval, os.path.join(folder, "eval.bin"))}
        print("| model | engine tok/s | torch trainer tok/s | engine / torch |")
        print("|---|---|---|---|")
        for model in a.models.split(","):
            runs = {"engine": [], "torch": []}
            for _ in range(a.rounds):
                runs["engine"].append(run_engine(a, model, folder))
                runs["torch"].append(run_torch(a, model, folder, tokens))
            med = {k: statistics.median(v) for k, v in runs.items()}
            print("| %s | %.0f | %.0f | %.2f |" % (model, med["engine"], med["torch"],
                                                   med["engine"] / med["torch"]))
            print("  rounds: " + "; ".join("%s %s" % (k, " ".join("%.0f" % x for x in v))
                                           for k, v in runs.items()))
            sys.stdout.flush()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("load average at end: %s" % load())


if __name__ == "__main__":
    main()
