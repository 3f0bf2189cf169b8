#!/usr/bin/python3
"""The recipes (doc/recipes/) run exactly as doc/trainers.md writes them, from the repository's root,
each against a stand-in for its trainer (tests/recipes/standins/: programs that take the
arguments the real trainer takes and write its log lines in its format, each quoting the lines
of the real source it copies), and the curve preflight reads back checked point by point
against what the stand-in wrote (standins/curve.py).

- NanoGptTest: the curve at nanoGPT's eval steps with its 4-decimal losses, seeds told apart
  (the recipe's seed offset), run.json's parameter count; an eval interval that does not divide
  the steps replaced by the largest divisor, or refused (exit 2) when that would more than
  double the evals; torch.compile asked for only where torch has it.
- LlmcTest: main.log's tel lines; a model llm.c cannot build refused, naming its depths.
- LitgptTest: metrics.csv's validations at the right steps (in-loop rows one step early, the
  final one on time), whether or not the eval interval divides the steps; litgpt tokens
  turned into bits per byte.
- HfTrainerTest: trainer_state.json's log_history, the last step's eval added when the interval
  does not divide the steps.

Run by CTest (tests/recipes/CMakeLists.txt) with PREFLIGHT_BINARY and PREFLIGHT_TEST_TMP.
NanoGptTest and HfTrainerTest need torch and numpy in this Python (the recipes import them):
skipped without (exit 77 when nothing else ran).
"""
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # nothing written into the source tree
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STANDINS = os.path.join(SOURCE, "tests", "recipes", "standins")
sys.path.insert(0, STANDINS)
sys.path.insert(0, os.path.join(STANDINS, "python"))
import curve  # noqa: E402
from litgpt import Tokenizer  # noqa: E402  (the stand-in's)

PREFLIGHT = os.environ.get("PREFLIGHT_BINARY", os.path.join(SOURCE, "build", "preflight"))
FIXTURE = os.path.join(SOURCE, "tests", "trainer_torch", "data")
LN2 = math.log(2.0)
try:
    import numpy  # noqa: F401
    import torch
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False


def documented_flags(recipe):
    """The flags doc/trainers.md gives for `recipe` (the backquoted text of its table row),
    checked to be the ones the recipe's own header gives."""
    with open(os.path.join(SOURCE, "doc", "trainers.md"), encoding="utf-8") as f:
        rows = [line for line in f if "doc/recipes/" + recipe in line and "--trainer-cmd" in line]
    assert len(rows) >= 1, recipe
    flags = re.search(r"`(--trainer cmd --trainer-cmd '[^']*'[^`]*)`", rows[0]).group(1)
    with open(os.path.join(SOURCE, "doc", "recipes", recipe), encoding="utf-8") as f:
        header = f.read(1500)
    assert flags in header, (recipe, flags)
    return shlex.split(flags)


def write_jsonl(path, texts):
    with open(path, "w", encoding="utf-8") as f:
        for i, text in enumerate(texts):
            f.write(json.dumps({"id": "d%d" % i, "text": text}) + "\n")


def fixture(name):
    with open(os.path.join(FIXTURE, name), encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f if line.strip()]


class RecipeTest(unittest.TestCase):
    """One folder of data for every trial of a class: a pool of the fixture's prose and rows of
    numbers, a target of more prose, the held-out prose as T_eval."""

    @classmethod
    def setUpClass(cls):
        root = os.environ.get("PREFLIGHT_TEST_TMP")
        if root:
            os.makedirs(root, exist_ok=True)
        cls.dir = tempfile.mkdtemp(prefix="recipes-", dir=root)
        prose = fixture("train.jsonl")
        tables = ["\n".join("row %d: %s" % (r, " ".join("%.4f" % ((d * 31 + r * 7 + k) % 97 / 97)
                                                          for k in range(6)))
                            for r in range(12)) for d in range(40)]
        write_jsonl(os.path.join(cls.dir, "pool.jsonl"), prose[:40] + tables)
        write_jsonl(os.path.join(cls.dir, "select.jsonl"), prose[40:])
        write_jsonl(os.path.join(cls.dir, "eval.jsonl"), fixture("eval.jsonl"))
        # python3 on PATH: this one (the recipes' default interpreter).
        cls.bin = os.path.join(cls.dir, "bin")
        os.makedirs(cls.bin)
        os.symlink(sys.executable, os.path.join(cls.bin, "python3"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def trial(self, name, flags, env=None):
        """`preflight trial` from the repository's root with `flags` after the data's; returns
        (the completed process, the run folder)."""
        out = os.path.join(self.dir, name)
        d = self.dir
        cmd = [PREFLIGHT, "trial", "--pool", d + "/pool.jsonl", "--target-select",
               d + "/select.jsonl", "--target-eval", d + "/eval.jsonl", "--seeds", "2",
               "--threads", "1", "--quiet", "--json", "--ledger", d + "/ledger.jsonl",
               "--out", out] + flags
        full = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                    PATH=os.pathsep.join([self.bin, os.path.join(STANDINS, "bin"),
                                          os.environ.get("PATH", "")]),
                    PYTHONPATH=os.path.join(STANDINS, "python"), **(env or {}))
        r = subprocess.run(cmd, cwd=SOURCE, env=full, capture_output=True, text=True)
        return r, out

    def curves(self, out):
        """{(arm, seed): [(step, eval_bpb)]} as preflight read them back (trial.json)."""
        with open(os.path.join(out, "trial.json")) as f:
            runs = json.load(f)["runs"]
        got = {}
        for record in runs.values():
            key = (record["arm"], record["seed"])
            got[key] = [(p["step"], p["eval_bpb"]) for p in record["curve"]]
        self.assertEqual(sorted(got), [("curated", 1), ("curated", 2), ("random", 1),
                                       ("random", 2)])
        return got

    def expect(self, out, steps, every_step, loss_of, scale=1.0):
        """Each run's curve is at `every_step` and equals loss_of(arm, seed, step) nats per token
        x `scale` tokens per byte, in bits."""
        for (arm, seed), points in self.curves(out).items():
            self.assertEqual([s for s, _ in points], every_step, (arm, seed))
            for step, bpb in points:
                want = loss_of(arm, seed, step) / LN2 * scale
                self.assertAlmostEqual(bpb, want, delta=1e-9 * want, msg=(arm, seed, step))

    def ok(self, r):
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])


def rounded(places, seeded=True):
    """curve.loss as a trainer prints it, to `places` decimals (None: as it is)."""
    def loss_of(steps):
        def f(arm, seed, step):
            value = curve.loss(arm, seed if seeded else 0, step, steps)
            return value if places is None else round(value, places)
        return f
    return loss_of


@unittest.skipUnless(HAVE_TORCH, "the nanoGPT recipe imports torch and numpy")
class NanoGptTest(RecipeTest):
    ENV = {"NANOGPT": "tests/recipes/standins/nanogpt", "NANOGPT_DEVICE": "cpu"}

    def test_documented_line(self):
        r, out = self.trial("nanogpt", ["--model", "tiny", "--steps", "40", "--eval-every", "4"]
                            + documented_flags("nanogpt.sh"), self.ENV)
        self.ok(r)
        self.expect(out, 40, list(range(0, 41, 4)), rounded(4)(40))
        with open(os.path.join(out, "runs", "random-s1", "run.json")) as f:
            stated = json.load(f)
        v, t, c, layers = 257, 64, 64, 2  # the tiny model: nanoGPT's count, bias-free
        self.assertEqual(stated["params"], v * c + t * c + layers * (12 * c * c + 2 * c) + c)
        with open(os.path.join(out, "runs", "random-s1", "out", "settings.json")) as f:
            self.assertFalse(json.load(f)["compile"])  # never on the CPU

    def test_an_interval_that_does_not_divide_the_steps(self):
        r, out = self.trial("nanogpt-30", ["--model", "tiny", "--steps", "30", "--eval-every",
                                           "4"] + documented_flags("nanogpt.sh"), self.ENV)
        self.ok(r)
        self.expect(out, 30, list(range(0, 31, 3)), rounded(4)(30))
        r, out = self.trial("nanogpt-31", ["--model", "tiny", "--steps", "31", "--eval-every",
                                           "4"] + documented_flags("nanogpt.sh"), self.ENV)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("nanogpt.sh: nanoGPT evaluates only at multiples of its eval_interval, "
                      "and no interval from 2 to 4 divides --steps 31: give --steps a multiple "
                      "of 4 (e.g. 32) or an --eval-every that divides 31", r.stderr)
        self.assertIn("exited with code 2", r.stderr)

    def test_compile_only_where_torch_has_it(self):
        env = dict(self.ENV, NANOGPT_DEVICE="cuda")
        r, out = self.trial("nanogpt-cuda", ["--model", "tiny", "--steps", "8", "--eval-every",
                                             "4"] + documented_flags("nanogpt.sh"), env)
        settings = [os.path.join(out, "runs", run, "out", "settings.json")
                    for run in os.listdir(os.path.join(out, "runs"))]
        settings = [path for path in settings if os.path.exists(path)]
        self.assertTrue(settings, r.stderr)
        with open(settings[0]) as f:
            self.assertEqual(json.load(f)["compile"], hasattr(torch, "compile"))
        # Without CUDA the stand-in fails where nanoGPT does (model.to('cuda')).
        self.assertEqual(r.returncode, 0 if torch.cuda.is_available() else 1, r.stderr)


class LlmcTest(RecipeTest):
    SHAPE = ["--layers", "6", "--d-model", "384", "--heads", "6", "--context", "64",
             "--batch", "4"]  # llm.c's d6, on a short context
    ENV = {"LLMC": "tests/recipes/standins/llmc"}

    def test_documented_line(self):
        c, layers = 384, 6  # train_gpt2.cu fill_in_parameter_sizes: Vp 50304, maxT 1024
        params = (50304 * c + 1024 * c + layers * (12 * c * c + 13 * c) + 2 * c)
        flags = documented_flags("llmc.sh")
        flags[flags.index("N")] = str(params)
        r, out = self.trial("llmc", self.SHAPE + ["--steps", "20", "--eval-every", "5"] + flags,
                            self.ENV)
        self.ok(r)
        # llm.c takes no seed: both seeds repeat one run.
        self.expect(out, 20, list(range(0, 21, 5)), rounded(4, seeded=False)(20))
        with open(os.path.join(out, "runs", "curated-s1", "stdout.log")) as f:
            self.assertIn("num_parameters: %d => bytes" % params, f.read())

    def test_a_model_llmc_cannot_build(self):
        flags = documented_flags("llmc.sh")
        flags[flags.index("N")] = "1000"
        r, _ = self.trial("llmc-tiny", ["--model", "tiny", "--steps", "20"] + flags, self.ENV)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("llmc.sh: llm.c builds GPT-2 depths 6, 12, 24, 36, 48, 60, 72 and 84 only",
                      r.stderr)
        self.assertIn("this trial's model is 2/64/2", r.stderr)


class LitgptTest(RecipeTest):
    ENV = {"LITGPT_TOKENIZER": "tests/recipes/standins/tokenizer"}

    def run_litgpt(self, name, steps, every):
        flags = documented_flags("litgpt.sh")
        flags[flags.index("N")] = "14067712"
        r, out = self.trial(name, ["--model", "tiny", "--steps", str(steps), "--eval-every",
                                   str(every)] + flags, self.ENV)
        self.ok(r)
        # eval_tokens: T_eval in the stand-in tokenizer's tokens, as the recipe counts them.
        with open(os.path.join(out, "runs", "random-s1", "text", "val", "eval.txt")) as f:
            tokens = len(Tokenizer(STANDINS + "/tokenizer").encode(f.read().strip(), bos=True))
        with open(os.path.join(out, "exports", "eval", "manifest.json")) as f:
            eval_bytes = json.load(f)["tokens"]
        in_loop = list(range(every, steps + 1, every))
        self.expect(out, steps, in_loop + ([] if steps in in_loop else [steps]),
                    rounded(None)(steps), scale=tokens / eval_bytes)

    def test_final_validation_on_an_eval_step(self):
        self.run_litgpt("litgpt-40", 40, 4)

    def test_final_validation_between_eval_steps(self):
        self.run_litgpt("litgpt-30", 30, 4)  # the case: 300 steps gave a step 301


@unittest.skipUnless(HAVE_TORCH, "the HF Trainer recipe imports torch and numpy")
class HfTrainerTest(RecipeTest):
    def test_documented_line(self):
        r, out = self.trial("hf", ["--model", "tiny", "--steps", "30", "--eval-every", "4"] +
                            documented_flags("hf_trainer.py"))
        self.ok(r)
        self.expect(out, 30, list(range(0, 30, 4)) + [30], rounded(None)(30))
        with open(os.path.join(out, "runs", "curated-s2", "run.json")) as f:
            stated = json.load(f)
        v, t, c, layers = 257, 64, 64, 2  # GPT-2's count, biases included, lm_head tied
        block = 12 * c * c + 13 * c
        self.assertEqual(stated["params"], v * c + t * c + layers * block + 2 * c)


if __name__ == "__main__":
    names = sys.argv[1:]
    if names and not HAVE_TORCH and all(n in ("NanoGptTest", "HfTrainerTest") for n in names):
        print("skipped: no torch and numpy in %s (install python3-torch and python3-numpy)"
              % sys.executable)
        sys.exit(77)
    unittest.main()
