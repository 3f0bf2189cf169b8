#!/usr/bin/python3
"""The PyTorch trainer (src/trainer/torch/) held to the engine it ports.

- EngineTest: the Python RNG, Below, Normal, eval windows and learning rate equal the engine's
  (tests/trainer_torch/engine_dump.cc) bit for bit; the initial weights equal those
  `preflight train --steps 0` writes into its checkpoint, bit for bit, on two shapes.
- CurveTest: on the fixture (data/*.jsonl, tokens made as the engine makes them), train.py on
  the CPU in float32 against `preflight train` with the same model, seed, steps and schedule:
  step-0 eval loss within 1e-4 bits, the whole curve within CURVE_TOLERANCE (doc/torch-trainer.md
  says how it was measured).
- ResumeTest: a run killed with SIGKILL and rerun gives the byte-identical curve of an
  uninterrupted run; --init with the engine's weights gives the curve of the computed init.
- ErrorTest: a bad --init header, a missing file, a batch that does not divide among a fake
  world size, tokens outside the vocabulary, a diverging run, a foreign checkpoint: each exits
  2 with a one-line message saying what.
- DdpTest: two processes under torchrun (gloo) follow the one-process curve.
- TrialAgreementTest: `preflight trial --trainer torch` agrees with `--trainer builtin`.

Run by CTest with /usr/bin/python3 (Debian's python3-torch and python3-numpy); PREFLIGHT_BINARY,
ENGINE_DUMP and PREFLIGHT_TEST_TMP come from tests/trainer_torch/CMakeLists.txt. Exit 77 (CTest:
skipped) only when torch or numpy cannot be imported.
"""
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True  # nothing written into the source tree
try:
    import numpy as np
    import torch  # noqa: F401  (the trainer needs it; skip cleanly without)
except ImportError as e:
    print("skipped: %s (install python3-torch and python3-numpy)" % e)
    sys.exit(77)

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TORCH_DIR = os.path.join(SOURCE, "src", "trainer", "torch")
TRAIN_PY = os.path.join(TORCH_DIR, "train.py")
DATA = os.path.join(SOURCE, "tests", "trainer_torch", "data")
sys.path.insert(0, TORCH_DIR)
import engine  # noqa: E402

PREFLIGHT = os.environ.get("PREFLIGHT_BINARY", os.path.join(SOURCE, "build", "preflight"))
ENGINE_DUMP = os.environ.get("ENGINE_DUMP", os.path.join(SOURCE, "build", "tests",
                                                         "trainer_torch", "engine_dump"))
# The largest |difference| in eval bits per byte allowed between the two trainers' curves (the
# tiny model, 60 steps, lr 1e-3): measured at most 3.7e-5 over seeds 1-4 (4.7e-6 over 300
# steps); bench/engine/README.md, "How closely they agree", says why 1e-3.
CURVE_TOLERANCE = 1e-3
STEP0_TOLERANCE = 1e-4
SHAPE = ["--model", "tiny", "--steps", "60", "--eval-every", "10", "--lr", "1e-3"]


def tmp_dir(prefix):
    root = os.environ.get("PREFLIGHT_TEST_TMP")
    if root:
        os.makedirs(root, exist_ok=True)
    return tempfile.mkdtemp(prefix=prefix, dir=root)


def texts(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f if line.strip()]


def make_tokens(folder):
    """tokens.bin of the fixture, as the arms' exports write it (doc/trainers.md)."""
    paths = {}
    for name in ("train", "eval"):
        paths[name] = os.path.join(folder, name + ".bin")
        engine.tokenize(texts(name + ".jsonl")).tofile(paths[name])
    return paths


def run_trainer(args, env=None, check=True):
    full = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {}))
    r = subprocess.run([sys.executable, TRAIN_PY] + args, capture_output=True, text=True,
                       env=full)
    if check and r.returncode != 0:
        raise AssertionError("train.py %s exited %d:\n%s" % (" ".join(args), r.returncode,
                                                            r.stderr))
    return r


def trainer_args(tokens, run_dir, extra):
    return ["--train", tokens["train"], "--eval", tokens["eval"], "--run-dir", run_dir,
            "--threads", "1", "--device", "cpu"] + extra


def run_engine(folder, extra):
    """`preflight train` on the fixture's JSONL; returns its curve [(step, eval_bpb)]."""
    out = os.path.join(folder, "engine")
    subprocess.run([PREFLIGHT, "train", "--data", os.path.join(DATA, "train.jsonl"), "--eval",
                    os.path.join(DATA, "eval.jsonl"), "--out", out, "--threads", "1", "--quiet",
                    "--ledger", os.path.join(folder, "ledger.jsonl")] + extra, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return out, read_curve(os.path.join(out, "curve.jsonl"))


def read_curve(path):
    with open(path) as f:
        return [(p["step"], p["eval_bpb"]) for p in map(json.loads, f)]


def checkpoint_params(path):
    """The parameters of an engine checkpoint (doc/checkpoint-format.md)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"PFTRAIN\0", path
    (header_len,) = struct.unpack_from("<Q", data, 16)
    header = json.loads(data[24:24 + header_len])
    return np.frombuffer(data, "<f4", header["num_params"], 24 + header_len)


def dump(*args):
    out = subprocess.run([ENGINE_DUMP] + [str(a) for a in args], check=True,
                         capture_output=True, text=True).stdout
    return out.split("\n")[:-1]


class EngineTest(unittest.TestCase):
    def test_next_and_normal(self):
        for seed in (0, 1, 12345, 2 ** 64 - 1):
            rng = engine.Rng(seed)
            self.assertEqual([int(x) for x in dump("next", seed, 50)],
                             [rng.next() for _ in range(50)])
            rng = engine.Rng(seed)
            self.assertEqual([float.fromhex(x) for x in dump("normal", seed, 200)],
                             [rng.normal() for _ in range(200)])

    def test_below_with_rejections(self):
        # n just above 2^63 rejects about half of all draws; small n almost never.
        for seed, n in ((3, 2 ** 63 + 1), (4, 3 * 2 ** 62 + 7), (5, 10), (6, 40124)):
            rng = engine.Rng(seed)
            self.assertEqual([int(x) for x in dump("below", seed, n, 300)],
                             [rng.below(n) for _ in range(300)], n)

    def test_eval_windows(self):
        for n, T, most in ((9400, 64, 0), (9400, 64, 7), (65, 64, 0), (66, 64, 0),
                           (129, 64, 0), (130, 64, 0), (1000, 16, 5), (1000, 16, 1000)):
            got = ["%d %d" % w for w in engine.make_eval_windows(n, T, most)]
            self.assertEqual(got, dump("windows", n, T, most), (n, T, most))

    def test_learning_rate(self):
        for steps, warmup, lr, ratio in ((60, 6, "3e-3", "0.1"), (300, 30, "1e-3", "0.1"),
                                         (7, 0, "0.01", "0.25"), (1, 1, "6e-4", "0")):
            want = [float.fromhex(x) for x in dump("lr", steps, warmup, lr, ratio)]
            got = [engine.learning_rate(s, steps, warmup, float(lr), float(ratio))
                   for s in range(steps + 1)]
            self.assertEqual(got, want, (steps, warmup, lr, ratio))

    def test_initial_weights_equal_the_engines(self):
        folder = tmp_dir("torch-init-")
        try:
            for shape, seed in ((["--model", "tiny"], 7),
                                (["--layers", "3", "--d-model", "48", "--heads", "3",
                                  "--context", "32", "--batch", "4"], 2 ** 40 + 3)):
                run_dir, _ = run_engine(folder, shape + ["--steps", "0", "--seed", str(seed)])
                want = checkpoint_params(os.path.join(run_dir, "checkpoint.bin"))
                a = run_trainer_args_for(shape)
                got = engine.flatten(engine.init_weights(a[0], a[1], a[3], seed), a[0], a[1],
                                     a[3])
                self.assertEqual(got.dtype, np.float32)
                np.testing.assert_array_equal(got, want)  # bit for bit
                # --dump-init writes the same values in the PFINIT01 file
                path = os.path.join(folder, "init.bin")
                run_trainer(shape + ["--seed", str(seed), "--dump-init", path])
                flat = engine.read_init(path, a[0], a[1], a[2], a[3], seed)
                np.testing.assert_array_equal(flat, want)
                shutil.rmtree(run_dir)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def run_trainer_args_for(shape):
    """(layers, d_model, heads, context, batch) of a --model or explicit shape."""
    if shape[0] == "--model":
        return engine.NAMED_MODELS[shape[1]]
    d = dict(zip(shape[::2], shape[1::2]))
    return tuple(int(d[k]) for k in ("--layers", "--d-model", "--heads", "--context",
                                     "--batch"))


class CurveTest(unittest.TestCase):
    def test_curve_follows_the_engine(self):
        folder = tmp_dir("torch-curve-")
        try:
            tokens = make_tokens(folder)
            for seed in ("1", "2"):
                extra = SHAPE + ["--seed", seed]
                _, want = run_engine(folder, extra + ["--warmup", "6"])
                shutil.rmtree(os.path.join(folder, "engine"))
                run_dir = os.path.join(folder, "torch-" + seed)
                run_trainer(trainer_args(tokens, run_dir, extra + ["--warmup-steps", "6"]))
                got = read_curve(os.path.join(run_dir, "curve.jsonl"))
                self.assertEqual([s for s, _ in got], [s for s, _ in want])
                diffs = [abs(a - b) for (_, a), (_, b) in zip(got, want)]
                print("seed %s: step-0 |diff| %.2e, curve max |diff| %.2e bits" % (
                    seed, diffs[0], max(diffs)), file=sys.stderr)
                self.assertLess(diffs[0], STEP0_TOLERANCE, (got[0], want[0]))
                self.assertLess(max(diffs), CURVE_TOLERANCE, list(zip(got, want)))
                # it learned: the check above is not met by two flat curves
                self.assertLess(got[-1][1], got[0][1] - 2.0)
                with open(os.path.join(run_dir, "run.json")) as f:
                    info = json.load(f)
                self.assertEqual(info["params"], 120640)
                self.assertEqual(info["tokens_per_step"], 16 * 64)
                self.assertEqual(info["flops_per_step"], engine.flops_per_token(2, 64, 64) * 1024)
                with open(os.path.join(run_dir, "curve.jsonl")) as f:
                    self.assertEqual([json.loads(line)["tokens"] for line in f],
                                     [s * 1024 for s, _ in got])
        finally:
            shutil.rmtree(folder, ignore_errors=True)


class ResumeTest(unittest.TestCase):
    def test_kill_and_resume_gives_the_same_curve(self):
        folder = tmp_dir("torch-resume-")
        try:
            tokens = make_tokens(folder)
            whole = os.path.join(folder, "whole")
            run_trainer(trainer_args(tokens, whole, SHAPE))
            with open(os.path.join(whole, "curve.jsonl"), "rb") as f:
                want = f.read()

            killed = os.path.join(folder, "killed")
            args = [sys.executable, TRAIN_PY] + trainer_args(tokens, killed, SHAPE)
            env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
            proc = subprocess.Popen(args, stderr=subprocess.DEVNULL, env=env)
            curve = os.path.join(killed, "curve.jsonl")
            deadline = time.time() + 600
            while proc.poll() is None and time.time() < deadline:
                if os.path.exists(curve) and open(curve).read().count("\n") >= 3:
                    break
                time.sleep(0.05)
            self.assertIsNone(proc.poll(), "the run ended before it could be killed")
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            with open(curve) as f:
                self.assertLess(f.read().count("\n"), 7, "killed after the end")

            r = run_trainer(trainer_args(tokens, killed, SHAPE))
            self.assertIn("resumed at step", r.stderr)
            with open(curve, "rb") as f:
                self.assertEqual(f.read(), want)
            # A rerun of a finished run trains nothing and keeps the curve.
            r = run_trainer(trainer_args(tokens, killed, SHAPE))
            self.assertIn("resumed at step 60", r.stderr)
            with open(curve, "rb") as f:
                self.assertEqual(f.read(), want)

            # --init with the engine's weights: the same curve as computing them.
            init = os.path.join(folder, "init.bin")
            run_trainer(SHAPE + ["--seed", "1", "--dump-init", init])
            with_init = os.path.join(folder, "with-init")
            run_trainer(trainer_args(tokens, with_init, SHAPE + ["--init", init]))
            with open(os.path.join(with_init, "curve.jsonl"), "rb") as f:
                self.assertEqual(f.read(), want)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


class ErrorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tmp_dir("torch-errors-")
        cls.tokens = make_tokens(cls.folder)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder, ignore_errors=True)

    def fails(self, args, *needles, env=None, trained=False):
        """Exit 2 and one line saying what; a run that trained first has its progress lines
        above it."""
        r = run_trainer(args, env=env, check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        lines = r.stderr.strip().split("\n")
        if not trained:
            self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[-1].startswith("train.py: "), r.stderr)
        for needle in needles:
            self.assertIn(needle, lines[-1])

    def run_dir(self, name):
        return os.path.join(self.folder, name)

    def test_bad_init_header(self):
        path = os.path.join(self.folder, "init-l3.bin")
        L, C, NH, T, _ = engine.NAMED_MODELS["tiny"]
        flat = np.zeros(engine.param_count(L + 1, C, T), np.float32)
        engine.write_init(path, L + 1, C, NH, T, 1, flat)
        self.fails(trainer_args(self.tokens, self.run_dir("a"), SHAPE + ["--init", path]),
                   path, "header says layers 3, this run has 2")
        engine.write_init(path, L, C, NH, T, 9, np.zeros(engine.param_count(L, C, T)))
        self.fails(trainer_args(self.tokens, self.run_dir("b"), SHAPE + ["--init", path]),
                   "header says seed 9, this run has 1")
        with open(path, "r+b") as f:
            f.write(b"PFINIT02")
        self.fails(trainer_args(self.tokens, self.run_dir("c"), SHAPE + ["--init", path]),
                   "not a PFINIT01 file")
        engine.write_init(path, L, C, NH, T, 1, np.zeros(engine.param_count(L, C, T)))
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) - 4)
        self.fails(trainer_args(self.tokens, self.run_dir("d"), SHAPE + ["--init", path]),
                   "truncated")

    def test_missing_file(self):
        gone = os.path.join(self.folder, "nothing.bin")
        self.fails(trainer_args({"train": gone, "eval": self.tokens["eval"]},
                                self.run_dir("e"), SHAPE), "--train", gone, "no such file")
        self.fails(trainer_args({"train": self.tokens["train"], "eval": gone},
                                self.run_dir("f"), SHAPE), "--eval", gone, "no such file")
        self.fails(trainer_args(self.tokens, self.run_dir("g"), SHAPE + ["--init", gone]),
                   "--init", "no such file")

    def test_batch_must_divide_among_processes(self):
        self.fails(trainer_args(self.tokens, self.run_dir("h"), SHAPE),
                   "--batch 16 does not divide among 3 processes",
                   env={"WORLD_SIZE": "3", "RANK": "0", "LOCAL_RANK": "0"})

    def test_bad_tokens_and_usage(self):
        odd = os.path.join(self.folder, "odd.bin")
        with open(odd, "wb") as f:
            f.write(b"\x00" * 301)
        self.fails(trainer_args({"train": odd, "eval": self.tokens["eval"]},
                                self.run_dir("i"), SHAPE), "not a whole number")
        high = os.path.join(self.folder, "high.bin")
        np.array([256] + [65] * 99 + [300] + [65] * 100, "<u2").tofile(high)
        self.fails(trainer_args({"train": high, "eval": self.tokens["eval"]},
                                self.run_dir("j"), SHAPE), "token 300 at index 100")
        short = os.path.join(self.folder, "short.bin")
        np.array([256] + [65] * 10, "<u2").tofile(short)
        self.fails(trainer_args({"train": self.tokens["train"], "eval": short},
                                self.run_dir("k"), SHAPE), "11 tokens, fewer than")
        self.fails(trainer_args(self.tokens, self.run_dir("l"), SHAPE + ["--heads", "3"]),
                   "not divisible by --heads 3")
        self.fails(trainer_args(self.tokens, self.run_dir("m"), SHAPE + ["--model", "huge"]),
                   "invalid choice")
        if not torch.cuda.is_available():
            self.fails(trainer_args(self.tokens, self.run_dir("n"), SHAPE + ["--device", "cuda"]),
                       "--device cuda: no CUDA device")

    def test_divergence_names_the_step(self):
        self.fails(trainer_args(self.tokens, self.run_dir("o"), SHAPE + ["--lr", "1e12"]),
                   "training diverged at step 2: the training loss is", "lower --lr",
                   trained=True)

    def test_foreign_checkpoint(self):
        run_dir = self.run_dir("p")
        short = ["--model", "tiny", "--steps", "2", "--eval-every", "1"]
        run_trainer(trainer_args(self.tokens, run_dir, short))
        self.fails(trainer_args(self.tokens, run_dir, short + ["--seed", "2"]),
                   "a checkpoint of a different run (seed differ)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DdpTest(unittest.TestCase):
    def test_two_processes_follow_one(self):
        """Two ranks with the environment torchrun gives them (RANK, WORLD_SIZE, LOCAL_RANK,
        MASTER_ADDR, MASTER_PORT): Debian's torchrun 1.13 itself fails on Python 3.11
        (meta-llama/llama#86), so the test starts the ranks as torchrun would."""
        folder = tmp_dir("torch-ddp-")
        try:
            tokens = make_tokens(folder)
            short = ["--model", "tiny", "--steps", "20", "--eval-every", "10"]
            one = os.path.join(folder, "one")
            run_trainer(trainer_args(tokens, one, short))
            two = os.path.join(folder, "two")
            port = str(free_port())
            procs = []
            for rank in range(2):
                env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", RANK=str(rank),
                           LOCAL_RANK=str(rank), WORLD_SIZE="2", LOCAL_WORLD_SIZE="2",
                           MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
                procs.append(subprocess.Popen([sys.executable, TRAIN_PY] +
                                              trainer_args(tokens, two, short), env=env,
                                              stderr=subprocess.PIPE, text=True))
            errs = [p.communicate(timeout=600)[1] for p in procs]
            for p, err in zip(procs, errs):
                self.assertEqual(p.returncode, 0, err)
            self.assertIn("2 process(es)", errs[0])
            self.assertEqual(errs[1], "")  # rank 1 says nothing, writes nothing
            with open(os.path.join(two, "run.json")) as f:
                self.assertEqual(json.load(f)["world_size"], 2)
            want = read_curve(os.path.join(one, "curve.jsonl"))
            got = read_curve(os.path.join(two, "curve.jsonl"))
            self.assertEqual([s for s, _ in got], [s for s, _ in want])
            self.assertEqual(got[0], want[0])  # the same initial weights and eval
            for (_, a), (_, b) in zip(got, want):
                self.assertLess(abs(a - b), CURVE_TOLERANCE, (got, want))
            print("two ranks against one: %s" % ["%.1e" % abs(a - b) for (_, a), (_, b)
                                                  in zip(got, want)], file=sys.stderr)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def write_jsonl(path, docs):
    with open(path, "w", encoding="utf-8") as f:
        for i, text in enumerate(docs):
            f.write(json.dumps({"id": "%s-%d" % (os.path.basename(path), i), "text": text}) + "\n")


def tables(count, seed):
    """Documents unlike the fixture's prose: rows of numbers (a fixed generator)."""
    rng = random.Random(seed)
    return ["\n".join("row %d: %s" % (r, " ".join("%.4f" % rng.random() for _ in range(6)))
                      for r in range(12)) for _ in range(count)]


class TrialAgreementTest(unittest.TestCase):
    """`preflight trial --trainer torch` against `--trainer builtin` on one short tiny trial:
    every run's step-0 loss within 1e-4 bits, and each trainer's gross compute saved inside the
    other's 95% interval. The pool: 40 of the fixture's prose documents and 40 tables of numbers;
    the target: the other 10 prose documents (selectable) and the held-out prose (eval)."""

    def test_torch_trial_agrees_with_builtin(self):
        folder = tmp_dir("torch-trial-")
        try:
            prose = texts("train.jsonl")
            write_jsonl(os.path.join(folder, "pool.jsonl"), prose[:40] + tables(40, 7))
            write_jsonl(os.path.join(folder, "select.jsonl"), prose[40:])
            write_jsonl(os.path.join(folder, "eval.jsonl"), texts("eval.jsonl"))
            common = ["trial", "--pool", os.path.join(folder, "pool.jsonl"), "--target-select",
                      os.path.join(folder, "select.jsonl"), "--target-eval",
                      os.path.join(folder, "eval.jsonl"), "--model", "tiny", "--steps", "60",
                      "--eval-every", "10", "--threads", "1", "--json", "--quiet",
                      "--ledger", os.path.join(folder, "ledger.jsonl")]
            results, trials = {}, {}
            for trainer, extra in (("builtin", []),
                                   ("torch", ["--parallel", "2", "--torch-launcher",
                                              sys.executable])):
                out = os.path.join(folder, trainer)
                r = subprocess.run([PREFLIGHT] + common + ["--trainer", trainer, "--out", out] +
                                   extra, capture_output=True, text=True,
                                   env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
                self.assertEqual(r.returncode, 0, r.stderr[-3000:])
                with open(os.path.join(out, "result.json")) as f:
                    results[trainer] = json.load(f)["comparisons"][0]["compute_saved"]
                with open(os.path.join(out, "trial.json")) as f:
                    trials[trainer] = json.load(f)["runs"]
            self.assertEqual(sorted(trials["torch"]), sorted(trials["builtin"]))
            self.assertEqual(len(trials["torch"]), 8)
            for run, record in trials["builtin"].items():
                a = record["curve"][0]["eval_bpb"]
                b = trials["torch"][run]["curve"][0]["eval_bpb"]
                self.assertLess(abs(a - b), STEP0_TOLERANCE, (run, a, b))
            for mine, other in (("builtin", "torch"), ("torch", "builtin")):
                lo, hi = results[other]["ci95_gross"]
                saved = results[mine]["gross"]
                print("%s: gross %s, 95%% %s .. %s" % (mine, saved, *results[mine]["ci95_gross"]),
                      file=sys.stderr)
                self.assertIsNotNone(saved, mine)
                self.assertTrue(lo is None or lo <= saved, (mine, saved, other, lo, hi))
                self.assertTrue(hi is None or saved <= hi, (mine, saved, other, lo, hi))
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def preflight_has_trainers():
    r = subprocess.run([PREFLIGHT, "trial", "--help"], capture_output=True, text=True)
    return "--trainer" in r.stdout + r.stderr


if __name__ == "__main__":
    if sys.argv[1:] == ["TrialAgreementTest"] and not preflight_has_trainers():
        print("skipped: %s has no --trainer yet (the trainer side of issue 23)" % PREFLIGHT)
        sys.exit(77)
    unittest.main()
