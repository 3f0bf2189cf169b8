#!/usr/bin/python3
"""The torch 1.13 / 2.x guards of the PyTorch trainer (src/trainer/torch/torch_compat.py).

Each guard is driven down both of its paths with stand-in modules that have, or lack, the
attribute or parameter it checks (only 1.13 runs here; the lent GPU machine has 2.11), then the
installed torch is held to the same answers, and train.py's --compile default from
PREFLIGHT_TORCH_COMPILE is checked end to end. Run by CTest with /usr/bin/python3 (Debian's
python3-torch); exit 77 (skipped) when torch or numpy cannot be imported.
"""
import contextlib
import os
import subprocess
import sys
import tempfile
import types
import unittest

sys.dont_write_bytecode = True  # nothing written into the source tree
try:
    import numpy  # noqa: F401  (train.py needs it)
    import torch
except ImportError as e:
    print("skipped: %s (install python3-torch and python3-numpy)" % e)
    sys.exit(77)

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TORCH_DIR = os.path.join(SOURCE, "src", "trainer", "torch")
sys.path.insert(0, TORCH_DIR)
import engine  # noqa: E402
import torch_compat  # noqa: E402


class Backend1_13:
    """torch 1.13's cuBLAS module: unknown names raise AssertionError; allow_tf32 is settable."""

    def __getattr__(self, name):
        raise AssertionError("Unknown attribute " + name)


class Recorder:
    """A callable that records its arguments and returns a marker."""

    def __init__(self, result="called"):
        self.calls, self.result = [], result

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return self.result


def fake_torch(version="2.11.0", **attributes):
    t = types.SimpleNamespace(__version__=version, bfloat16="bf16")
    for name, value in attributes.items():
        setattr(t, name, value)
    return t


class GuardTest(unittest.TestCase):
    def test_has_survives_the_assertion_of_1_13(self):
        self.assertFalse(torch_compat.has(Backend1_13(), "fp32_precision"))
        self.assertFalse(torch_compat.has(types.SimpleNamespace(), "compile"))
        self.assertTrue(torch_compat.has(types.SimpleNamespace(compile=1), "compile"))

    def test_compile_only_where_torch_has_it(self):
        ok, why = torch_compat.can_compile(fake_torch("1.13.0"))
        self.assertFalse(ok)
        self.assertIn("1.13.0", why)
        self.assertEqual(torch_compat.can_compile(fake_torch(compile=Recorder())), (True, ""))

    def test_sdpa_only_where_torch_has_it(self):
        nn = types.SimpleNamespace(functional=types.SimpleNamespace())
        self.assertFalse(torch_compat.has_sdpa(fake_torch(nn=nn)))
        nn.functional.scaled_dot_product_attention = Recorder()
        self.assertTrue(torch_compat.has_sdpa(fake_torch(nn=nn)))

    def test_tf32_switch_new_api_first(self):
        matmul = types.SimpleNamespace(fp32_precision="ieee")
        t = fake_torch(backends=types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=matmul)))
        self.assertEqual(torch_compat.enable_tf32(t), "fp32_precision")
        self.assertEqual(matmul.fp32_precision, "tf32")
        self.assertFalse(hasattr(matmul, "allow_tf32"))  # the old switch, which warns, untouched

    def test_tf32_switch_old_api_on_1_13(self):
        matmul = Backend1_13()
        t = fake_torch(backends=types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=matmul)))
        self.assertEqual(torch_compat.enable_tf32(t), "allow_tf32")
        self.assertTrue(matmul.allow_tf32)

    def test_autocast(self):
        self.assertIsInstance(torch_compat.autocast(fake_torch(), False),
                              contextlib.nullcontext)
        new = Recorder()
        self.assertEqual(torch_compat.autocast(fake_torch(autocast=new), True), "called")
        self.assertEqual(new.calls, [((), {"device_type": "cuda", "dtype": "bf16"})])
        old = Recorder()
        t = fake_torch(cuda=types.SimpleNamespace(amp=types.SimpleNamespace(autocast=old)))
        self.assertEqual(torch_compat.autocast(t, True), "called")
        self.assertEqual(old.calls, [((), {"dtype": "bf16"})])

    def test_load_with_weights_only_where_accepted(self):
        def load_2x(f, map_location=None, weights_only=False):
            return ("2.x", map_location, weights_only)

        def load_old(f, map_location=None):
            return ("old", map_location)

        self.assertEqual(torch_compat.load_checkpoint(fake_torch(load=load_2x), "c.pt"),
                         ("2.x", "cpu", True))
        # 1.13 takes weights_only, but its unpickler cannot read a float (operand 71)
        self.assertEqual(torch_compat.load_checkpoint(fake_torch("1.13.0a0", load=load_2x),
                                                      "c.pt"), ("2.x", "cpu", False))
        self.assertEqual(torch_compat.load_checkpoint(fake_torch(load=load_old), "c.pt"),
                         ("old", "cpu"))

    def test_fused_adamw_only_on_a_gpu_where_accepted(self):
        def adamw_2x(params, lr=1e-3, fused=None):
            pass

        def adamw_1_13(params, lr=1e-3, foreach=None):
            pass

        t2 = fake_torch(optim=types.SimpleNamespace(AdamW=adamw_2x))
        t1 = fake_torch(optim=types.SimpleNamespace(AdamW=adamw_1_13))
        self.assertEqual(torch_compat.adamw_options(t2, True), {"fused": True})
        self.assertEqual(torch_compat.adamw_options(t2, False), {})
        self.assertEqual(torch_compat.adamw_options(t1, True), {})


class InstalledTorchTest(unittest.TestCase):
    def test_guards_agree_with_the_installed_torch(self):
        self.assertEqual(torch_compat.can_compile(torch)[0], hasattr(torch, "compile"))
        self.assertEqual(torch_compat.has_sdpa(torch),
                         hasattr(torch.nn.functional, "scaled_dot_product_attention"))
        self.assertIn(torch_compat.has(torch.backends.cuda.matmul, "fp32_precision"),
                      (True, False))  # 1.13 raises AssertionError inside: must not escape

    def test_a_checkpoint_reads_back_through_the_guard(self):
        """train.py's checkpoint as it writes one (64-bit RNG words, AdamW state, floats in the
        curve) reads back through the guard on the installed torch (on 2.x: the restricted
        unpickler; 1.13's refuses floats, so it is not used there)."""
        p = torch.nn.Parameter(torch.ones(3))
        opt = torch.optim.AdamW([p], lr=1e-3)
        p.sum().backward()
        opt.step()
        ck = {"format": "preflight-torch-checkpoint-1", "fingerprint": {"seed": 1, "lr": 0.001},
              "step": 5, "rng": [2**64 - 1, 2**63, 1, 0], "params": {"wte": p.detach()},
              "optimizer": opt.state_dict(), "curve": [{"step": 0, "tokens": 0, "eval_bpb": 8.0}],
              "train_seconds": 1.5}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "checkpoint.pt")
            torch.save(ck, path)
            back = torch_compat.load_checkpoint(torch, path)
        self.assertEqual(back["rng"], ck["rng"])
        self.assertEqual(back["curve"], ck["curve"])
        self.assertTrue(torch.equal(back["params"]["wte"], p.detach()))
        self.assertEqual(back["optimizer"]["state"][0]["step"].item(), 1)


class CompileDefaultTest(unittest.TestCase):
    """--compile's default comes from PREFLIGHT_TORCH_COMPILE (bench/gpu/run.sh sets it)."""

    def train(self, value):
        d = tempfile.mkdtemp(prefix="torch-compat-")
        tokens = os.path.join(d, "tokens.bin")
        engine.tokenize(["some text for the trainer to read " * 8]).tofile(tokens)
        env = dict(os.environ, PREFLIGHT_TORCH_COMPILE=value)
        return subprocess.run([sys.executable, os.path.join(TORCH_DIR, "train.py"), "--train",
                               tokens, "--eval", tokens, "--run-dir", os.path.join(d, "run"),
                               "--model", "tiny", "--steps", "2", "--device", "cpu"],
                              env=env, capture_output=True, text=True, timeout=300)

    def test_a_bad_value_is_named(self):
        r = self.train("sometimes")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("PREFLIGHT_TORCH_COMPILE is 'sometimes'", r.stderr)

    @unittest.skipIf(hasattr(torch, "compile"), "torch %s compiles" % torch.__version__)
    def test_on_without_torch_compile_says_so(self):
        r = self.train("on")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("has no torch.compile", r.stderr)

    def test_off_trains(self):
        r = self.train("off")
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
