#!/usr/bin/env python3
"""The GPU bundle (scripts/gpu-bundle.sh) and the GPU run's --dry-run through it
(bench/gpu/run.sh), as CI can check them without a GPU.

- BuildTest (CTest's fixture GpuBundle): the bundle made from the calibration fixture's battery
  (tests/fixtures/calibration, built small here: CI has no installed corpora): every file its
  bundle.json names is there, under 48 MiB, and a second run remakes nothing.
- SelfContainedTest: a copy of the bundle elsewhere: ldd finds every library of the binary in
  the copy's lib/ or among glibc's; `train` runs under LD_DEBUG=libs with LD_LIBRARY_PATH empty
  and loads nothing else; and, where a mount namespace can be had (unshare), `train` runs in a
  chroot that holds the copy and glibc's files alone.
- CompileRuleTest: the compile decision on given step costs (torch 1.13 cannot reach it).
- GlibcTest: a bundle needing a newer glibc than the machine's is refused (exit 2, saying so).
- DryRunTest: bench/gpu/run.sh --dry-run through the bundle on the CPU (Debian's torch 1.13):
  the smoke step, the demo trial, one battery target, the five files of OUT, a ledger that
  verifies, every run launched from the bundle's trainer; with no time left, no trial starts
  and the summary is still written; a smoke step that fails exits 2 with the summary written.

Run by CTest (tests/bundle/CMakeLists.txt) with PREFLIGHT_BUILD_DIR (the build whose
preflight-bundle is bundled), PREFLIGHT_TEST_TMP, PREFLIGHT_BUNDLE_DIR and PREFLIGHT_TORCH_PYTHON;
`bundle_test.py BuildTest` and so on.
"""
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

sys.dont_write_bytecode = True  # nothing written into the source tree
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TMP = os.environ.get("PREFLIGHT_TEST_TMP") or tempfile.gettempdir()
BUNDLE = os.environ.get("PREFLIGHT_BUNDLE_DIR") or os.path.join(TMP, "gpu-bundle")
BATTERY = BUNDLE + "-battery"
TORCH_PYTHON = os.environ.get("PREFLIGHT_TORCH_PYTHON", "/usr/bin/python3")
BUILD = os.environ.get("PREFLIGHT_BUILD_DIR") or os.path.join(SOURCE, "build")
# What the bare machine brings: glibc's own objects (scripts/gpu_bundle.py never copies them).
GLIBC = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2",
         "librt.so.1", "libresolv.so.2", "ld-linux-x86-64.so.2", "libutil.so.1", "libanl.so.1"}
OUT_FILES = {"summary.json", "summary.txt", "ledger.jsonl", "ledger.jsonl.verified", "run.log",
             "trials.tar.gz"}
# The calibration fixture at the sizes of tests/scripts/calibration_battery_test.py.
FIXTURE = os.path.join(SOURCE, "tests", "fixtures", "calibration")
SIZES = ["--pool-corpus-bytes", "3000", "--side-bytes", "2000", "--only-bytes", "6000",
         "--max-doc-bytes", "200", "--min-unit-bytes", "16", "--dominant-bytes", "6000",
         "--dominant-other-bytes", "200"]


def scratch(prefix):
    os.makedirs(TMP, exist_ok=True)
    return tempfile.mkdtemp(prefix=prefix, dir=TMP)


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, **kwargs)


def bundle_json(folder):
    with open(os.path.join(folder, "bundle.json")) as f:
        return json.load(f)


def ldd(binary):
    """[(name, resolved path or None)] of every library ldd lists for binary."""
    out = []
    for line in run(["ldd", binary], check=True).stdout.splitlines():
        parts = line.split()
        if "=>" in parts:
            target = parts[parts.index("=>") + 1]
            out.append((parts[0], None if target == "not" else target))
        elif parts:
            out.append((os.path.basename(parts[0]), parts[0]))
    return out


def train_args(root, out):
    """A short `train` on the bundle's own (compressed) Brown target files."""
    brown = os.path.join(root, "data", "brown", "targets")
    return ["train", "--data", os.path.join(brown, "cj.select.jsonl.zst"), "--eval",
            os.path.join(brown, "cj.eval.jsonl.zst"), "--model", "tiny", "--steps", "3",
            "--eval-max-windows", "4", "--threads", "1", "--out", out, "--ledger",
            out + "-ledger.jsonl", "--json", "--quiet"]


class BuildTest(unittest.TestCase):
    def test_build(self):
        shutil.rmtree(BATTERY, ignore_errors=True)
        run([sys.executable, os.path.join(SOURCE, "scripts", "calibration_battery.py"),
             "--out", BATTERY, "--root", os.path.join(FIXTURE, "root"), "--npm",
             os.path.join(FIXTURE, "npm")] + SIZES, check=True)
        argv = [os.path.join(SOURCE, "scripts", "gpu-bundle.sh"), "--out", BUNDLE, "--battery",
                BATTERY, "--build", BUILD]
        first = run(argv)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
        info = bundle_json(BUNDLE)
        self.assertIn("libstdc++.so.6", info["libraries"])
        here = os.confstr("CS_GNU_LIBC_VERSION").split()[-1]
        self.assertLessEqual([int(x) for x in info["glibc_needed"].split(".")],
                             [int(x) for x in here.split(".")])
        self.assertLessEqual(info["bytes"], 48 * 2**20)
        for rel, entry in info["files"].items():
            self.assertEqual(os.path.getsize(os.path.join(BUNDLE, rel)), entry["bytes"], rel)
        with open(os.path.join(BUNDLE, "data", "calibration", "battery.json")) as f:
            targets = json.load(f)["targets"]
        self.assertEqual([t["name"] for t in targets], info["calibration_targets"])
        for t in targets:
            for key in ("pool", "target_select", "target_eval"):
                path = os.path.join(BUNDLE, "data", "calibration", t[key])
                self.assertTrue(t[key].endswith(".zst") and os.path.isfile(path), t[key])
        self.assertTrue(os.path.isfile(os.path.join(BUNDLE, "trainer", "torch", "train.py")))
        second = run(argv)
        self.assertEqual(second.returncode, 0, second.stderr)
        self.assertIn("(0 made", second.stdout)


class SelfContainedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = scratch("bundle-copy-")
        self.copy = os.path.join(self.tmp, "b")
        shutil.copytree(BUNDLE, self.copy)
        self.binary = os.path.join(self.copy, "preflight")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_ldd_finds_only_the_bundle_and_glibc(self):
        libs = ldd(self.binary)
        self.assertTrue(any(name == "libstdc++.so.6" for name, _ in libs))
        for name, path in libs:
            self.assertIsNotNone(path, "%s: not found" % name)
            inside = os.path.realpath(path).startswith(self.copy + os.sep)
            self.assertTrue(inside or os.path.basename(name) in GLIBC,
                            "%s resolves to %s, outside the bundle" % (name, path))
        rpath = run(["readelf", "-d", self.binary], check=True).stdout
        self.assertIn("(RPATH)", rpath)
        self.assertIn("[$ORIGIN/lib]", rpath)

    def test_train_loads_nothing_from_the_system_but_glibc(self):
        env = dict(os.environ, LD_LIBRARY_PATH="", LD_DEBUG="libs")
        r = run([self.binary] + train_args(self.copy, os.path.join(self.tmp, "run")), env=env)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        loaded = [line.split("calling init:")[1].strip() for line in r.stderr.splitlines()
                  if "calling init:" in line]
        self.assertTrue(any(p.startswith(self.copy + "/lib/") for p in loaded), loaded)
        for path in loaded:
            self.assertTrue(path.startswith(self.copy + os.sep) or
                            os.path.basename(path) in GLIBC, "loaded %s" % path)
        self.assertEqual(json.loads(r.stdout)["curve"][-1]["step"], 3)

    def test_train_in_a_root_with_glibc_alone(self):
        """A chroot holding the copy at /b and glibc's files at their paths, /proc bound."""
        unshare = ["unshare", "--mount"] if os.geteuid() == 0 else \
            ["unshare", "--user", "--map-root-user", "--mount"]
        if shutil.which("unshare") is None or run(unshare + ["true"]).returncode != 0:
            print("no mount namespace here (unshare): the ldd and LD_DEBUG tests stand alone")
            return
        root = os.path.join(self.tmp, "root")
        shutil.copytree(self.copy, os.path.join(root, "b"))
        for name, path in ldd(self.binary):
            if os.path.basename(name) in GLIBC and path and os.path.isfile(path):
                os.makedirs(root + os.path.dirname(path), exist_ok=True)
                shutil.copy(os.path.realpath(path), root + path)
        for folder in ("proc", "tmp"):
            os.makedirs(os.path.join(root, folder))
        inner = " ".join(["/b/preflight"] + train_args("/b", "/tmp/run"))
        r = run(unshare + ["sh", "-c", "mount --rbind /proc %s/proc && exec chroot %s %s"
                           % (root, root, inner)])
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        self.assertEqual(json.loads(r.stdout)["curve"][-1]["step"], 3)
        self.assertFalse(os.path.exists(os.path.join(root, "usr")))  # nothing else was there


class CompileRuleTest(unittest.TestCase):
    """gpu_run.py's compile decision on the smoke step's figures (torch 1.13 never reaches it:
    it has no torch.compile)."""

    def decide(self, probe, steps=2000, eager=0.010):
        sys.path.insert(0, os.path.join(SOURCE, "bench", "gpu"))
        import gpu_run
        a = type("A", (), {"compile": "measure", "steps": steps})()
        info = {"compile_available": True, "torch": "2.11.0", "eager_step_seconds": eager}
        return gpu_run.decide_compile(a, info, probe)

    def test_on_only_when_the_compilation_is_repaid_within_the_run(self):
        # 2000 steps x (10 - 6) ms = 8 s saved: a 5 s compilation pays, a 9 s one does not
        self.assertEqual(self.decide({"first_step_seconds": 5.006, "step_seconds": 0.006})
                         ["compile"], "on")
        off = self.decide({"first_step_seconds": 9.006, "step_seconds": 0.006})
        self.assertEqual(off["compile"], "off")
        self.assertIn("9.0 s >= 2000 steps x (10.00 - 6.00) ms = 8.0 s saved",
                      off["compile_why"])
        self.assertEqual(self.decide({"first_step_seconds": 5.006, "step_seconds": 0.006},
                                     steps=1000)["compile"], "off")

    def test_off_when_the_probe_gave_up_or_never_reported(self):
        self.assertEqual(self.decide({"stage": "compiled", "timeout": 20.0})["compile"], "off")
        self.assertEqual(self.decide(None)["compile"], "off")


class GlibcTest(unittest.TestCase):
    def test_a_bundle_for_a_newer_glibc_is_refused_before_anything_runs(self):
        tmp = scratch("gpu-glibc-")
        shutil.copy("/bin/true", os.path.join(tmp, "preflight"))
        with open(os.path.join(tmp, "bundle.json"), "w") as f:
            json.dump({"glibc_needed": "99.0"}, f)
        r = run([os.path.join(SOURCE, "bench", "gpu", "run.sh"), "--dry-run", "--bundle", tmp,
                 "--out", os.path.join(tmp, "out")])
        shutil.rmtree(tmp, ignore_errors=True)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("the bundle needs glibc 99.0 or newer", r.stderr)


def dry_run(out, *extra, python=TORCH_PYTHON):
    return run([os.path.join(SOURCE, "bench", "gpu", "run.sh"), "--dry-run", "--bundle", BUNDLE,
                "--out", out, "--work", out + "-work", "--python", python] + list(extra))


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


class DryRunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if run([TORCH_PYTHON, "-c", "import torch, numpy"]).returncode != 0:
            raise unittest.SkipTest("%s has no torch and numpy" % TORCH_PYTHON)
        cls.tmp = scratch("gpu-run-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_whole_path_through_the_bundle(self):
        out = os.path.join(self.tmp, "out")
        r = dry_run(out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(set(os.listdir(out)), OUT_FILES)
        s = summary(out)
        self.assertTrue(s["dry_run"])
        self.assertIsNone(s["failed"])
        if not s["smoke"]["compile_available"]:  # torch 1.13
            self.assertEqual(s["smoke"]["compile"], "off")
            self.assertIn("has no torch.compile", s["smoke"]["compile_why"])
        first = bundle_json(BUNDLE)["calibration_targets"][0]
        self.assertEqual([t["target"] for t in s["trials"]], ["brown:cj", "calibration:" + first])
        for t in s["trials"]:
            self.assertIsInstance(t["margin"], float)
            self.assertIs(t["informative"], t["margin"] >= 0.05)
            self.assertAlmostEqual(t["margin"], t["best_ngram_bpb"] - t["l_star"], places=9)
            self.assertEqual(t["speed"]["runs"], 4)
            self.assertGreater(t["speed"]["tokens_per_second"], 0)
        verify = run([os.path.join(BUNDLE, "preflight"), "ledger", "verify", "--ledger",
                      os.path.join(out, "ledger.jsonl")])
        self.assertEqual(verify.returncode, 0, verify.stderr)
        with tarfile.open(os.path.join(out, "trials.tar.gz")) as tar:
            names = tar.getnames()
        self.assertEqual(sum(n.endswith("/curve.jsonl") for n in names), 8)
        trainer = os.path.join(BUNDLE, "trainer", "torch", "train.py")
        for base, _, files in os.walk(out + "-work"):
            if "launch.json" in files:
                with open(os.path.join(base, "launch.json")) as f:
                    self.assertIn(trainer, json.load(f)["command"])
        with open(os.path.join(out, "summary.txt")) as f:
            self.assertIn("brown:cj", f.read())

    def test_no_time_left_starts_no_trial_and_still_writes_the_summary(self):
        out = os.path.join(self.tmp, "no-time")
        r = dry_run(out, "--budget-seconds", "0")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        s = summary(out)
        self.assertEqual(s["trials"], [])
        self.assertIn("before brown:cj", s["stopped"])
        self.assertEqual(set(os.listdir(out)), OUT_FILES - {"ledger.jsonl", "ledger.jsonl.verified"})

    def test_a_failed_smoke_exits_2_with_the_summary(self):
        out = os.path.join(self.tmp, "no-python")
        r = dry_run(out, python="/bin/false")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("the smoke step failed", r.stdout)
        self.assertIsNone(summary(out)["smoke"])


if __name__ == "__main__":
    unittest.main()
