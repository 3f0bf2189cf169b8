#!/usr/bin/env python3
"""The calibration battery's builder (scripts/calibration_battery.py) on the fixture in
tests/fixtures/calibration: no network, no installed corpora. Checks that no unit is on two
sides, that every target's files exist and parse, the plan's counts (>= 40 targets, >= 30% of
them cases where curating should not pay, >= 6 corpora of >= 6 kinds of text), and that two
builds give the same bytes. With PREFLIGHT_BINARY set, preflight itself reads the spec and
every file."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(SOURCE, "scripts", "calibration_battery.py")
FIXTURE = os.path.join(SOURCE, "tests", "fixtures", "calibration")
SIZES = ["--pool-corpus-bytes", "3000", "--side-bytes", "2000", "--only-bytes", "6000",
         "--max-doc-bytes", "200", "--min-unit-bytes", "16", "--dominant-bytes", "6000",
         "--dominant-other-bytes", "200"]
MAX_DOC = 200

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(SOURCE, "scripts"))
import calibration_battery as cb  # noqa: E402


def build(out):
    subprocess.run([sys.executable, SCRIPT, "--out", out, "--root",
                    os.path.join(FIXTURE, "root"), "--npm", os.path.join(FIXTURE, "npm")] + SIZES,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def read_jsonl(path):
    docs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            d = json.loads(line)
            for key in ("id", "text", "source", "unit", "domain"):
                if not isinstance(d.get(key), str):
                    raise AssertionError("%s:%d: no string %r" % (path, n, key))
            docs.append(d)
    return docs


def tree_hashes(folder):
    out = {}
    for base, _, files in os.walk(folder):
        for f in files:
            path = os.path.join(base, f)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, folder)] = hashlib.sha256(fh.read()).hexdigest()
    return out


class CalibrationBatteryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp_root = os.environ.get("PREFLIGHT_TEST_TMP")
        if tmp_root:
            os.makedirs(tmp_root, exist_ok=True)
        cls.tmp = tempfile.mkdtemp(prefix="calibration-", dir=tmp_root)
        cls.out = os.path.join(cls.tmp, "a")
        build(cls.out)
        with open(os.path.join(cls.out, "battery.json"), encoding="utf-8") as f:
            cls.spec = json.load(f)
        cls.files = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def docs(self, rel):
        if rel not in self.files:
            self.files[rel] = read_jsonl(os.path.join(self.out, rel))
        return self.files[rel]

    def test_plan_counts(self):
        # The real battery's plan: the same table the fixture build used.
        s = cb.plan_summary()
        self.assertGreaterEqual(s["targets"], 40)
        self.assertGreaterEqual(s["not_present_share"], 0.30)
        for kind in cb.KINDS:
            self.assertGreater(s["by_kind"][kind], 0, kind)
        self.assertGreaterEqual(len(s["corpora"]), 6)
        self.assertGreaterEqual(len(s["text_kinds"]), 6)
        names = [t["name"] for t in cb.PLAN]
        self.assertEqual(len(names), len(set(names)))
        # The kinds of negative issue 24 asks for, several of each: pool-like (the pool's own
        # mixture, several draws), broad, rare (a domain or a whole corpus thinned), dominant,
        # absent (with and without a neighbour left).
        mixtures = [t for t in cb.PLAN if t["kind"] == "pool_mixture"]
        self.assertGreaterEqual(len({t["draw"] for t in mixtures if t["pool"] == "mixed"}), 3)
        self.assertTrue(all(t["weights"] == "pool" for t in mixtures))
        self.assertGreaterEqual(s["by_kind"]["broad"], 3)
        self.assertGreaterEqual(s["by_kind"]["dominant"], 3)
        rare_pools = {t["pool"].split(":")[0] for t in cb.PLAN if t["kind"] == "rare"}
        self.assertEqual(rare_pools, {"rare", "rare_corpus"})
        self.assertTrue(any(t["pool"].startswith("only:") for t in cb.PLAN
                            if t["kind"] == "absent"))
        # The run order takes one target of each kind in turn and loses none.
        order = cb.run_order(cb.PLAN)
        self.assertEqual(sorted(t["name"] for t in order), sorted(names))
        self.assertEqual({t["kind"] for t in order[:len(cb.KINDS)]}, set(cb.KINDS))
        for t in cb.PLAN:
            self.assertIn(t["expect"], ("pays", "does_not_pay", "unclear"))
            for d in t["select"] + t["eval"]:
                self.assertIn(d, cb.DOMAIN_CORPUS, t["name"])

    def test_spec_matches_plan(self):
        targets = self.spec["targets"]
        self.assertEqual([t["name"] for t in targets],
                         [t["name"] for t in cb.run_order(cb.PLAN)])
        kinds = {}
        for t in targets:
            kinds[t["kind"]] = kinds.get(t["kind"], 0) + 1
            for key in ("name", "label", "pool", "target_select", "target_eval", "corpus",
                        "kind", "expect"):
                self.assertIsInstance(t[key], str, key)
            self.assertIs(t["absent"], t["kind"] == "absent")
        self.assertEqual(kinds, self.spec["summary"]["by_kind"])
        self.assertGreaterEqual(1 - kinds["present"] / len(targets), 0.30)

    def test_files_exist_and_parse(self):
        for t in self.spec["targets"]:
            for key in ("pool", "target_select", "target_eval"):
                docs = self.docs(t[key])
                self.assertTrue(docs, "%s: %s is empty" % (t["name"], key))
                ids = [d["id"] for d in docs]
                self.assertEqual(len(ids), len(set(ids)), t[key])
                for d in docs:
                    self.assertLessEqual(len(d["text"].encode()), MAX_DOC, d["id"])
            self.assertEqual(len(self.docs(t["target_select"])), t["select_docs"])
            self.assertEqual(len(self.docs(t["target_eval"])), t["eval_docs"])
            self.assertEqual(len(self.docs(t["pool"])), t["pool_docs"])
            sel_domains = {d["domain"] for d in self.docs(t["target_select"])}
            eval_domains = {d["domain"] for d in self.docs(t["target_eval"])}
            self.assertLessEqual(sel_domains, set(t["select_domains"]), t["name"])
            self.assertLessEqual(eval_domains, set(t["eval_domains"]), t["name"])

    def test_no_unit_on_two_sides(self):
        side_of = {}
        for t in self.spec["targets"]:
            for key, side in (("pool", "pool"), ("target_select", "select"),
                              ("target_eval", "eval")):
                for d in self.docs(t[key]):
                    unit = (d["source"], d["unit"])
                    seen = side_of.setdefault(unit, side)
                    self.assertEqual(seen, side, "%s/%s on %s and %s (target %s)" % (
                        unit[0], unit[1], seen, side, t["name"]))
        # The fixture has units long enough to be cut into several documents.
        per_unit = {}
        for docs in self.files.values():
            for d in docs:
                per_unit.setdefault((d["source"], d["unit"]), set()).add(d["id"])
        self.assertTrue(any(len(ids) > 1 for ids in per_unit.values()))
        self.assertEqual({s for s in side_of.values()}, {"pool", "select", "eval"})

    def test_pools_by_case(self):
        for t in self.spec["targets"]:
            pool = self.docs(t["pool"])
            sources = {d["source"] for d in pool}
            if t["kind"] == "absent":
                self.assertNotIn(t["corpus"], sources, t["name"])
            elif t["kind"] == "pool_like_target":
                self.assertEqual(sources, {t["corpus"]}, t["name"])
            elif t["kind"] == "rare" and "rare-corpus-" in t["pool"]:
                # The whole corpus is a trace: one document at least, a smaller share than in
                # the mixed pool.
                self.assertIn(t["corpus"], sources, t["name"])
                self.assertLess(self.share(t["pool"], t["corpus"]),
                                self.share("pools/mixed.jsonl", t["corpus"]), t["name"])
            elif t["kind"] == "rare":
                inside = [d for d in pool if d["domain"] in t["eval_domains"]]
                self.assertGreaterEqual(len(inside), 1, t["name"])
                mixed = self.docs("pools/mixed.jsonl")
                full = [d for d in mixed if d["domain"] in t["eval_domains"]]
                self.assertLessEqual(len(inside), len(full))
            elif t["kind"] == "dominant":
                # The target's corpus is the pool's largest source, by far more than in the
                # mixed pool; every other corpus is there too.
                shares = {c: self.share(t["pool"], c) for c in sources}
                self.assertEqual(max(shares, key=shares.get), t["corpus"], t["name"])
                self.assertGreater(shares[t["corpus"]],
                                   2 * self.share("pools/mixed.jsonl", t["corpus"]), t["name"])
                self.assertEqual(len(sources), len(cb.CORPORA))
                self.assertAlmostEqual(t["pool_corpus_shares"][t["corpus"]],
                                       shares[t["corpus"]], places=5)
            elif t["kind"] == "pool_mixture":
                # Drawn with the pool's mixture: only the pool's corpora, most of them.
                read = {d["source"] for d in self.docs(t["target_select"])}
                self.assertLessEqual(read, sources, t["name"])
                self.assertGreaterEqual(len(read), 0.6 * len(sources), t["name"])
            elif t["kind"] == "broad":
                self.assertEqual(t["pool"], "pools/mixed.jsonl", t["name"])
                read = {cb.DOMAIN_CORPUS[d] for d in t["select_domains"]}
                self.assertGreaterEqual(len(read), 0.6 * len(cb.CORPORA), t["name"])
                self.assertLess(len(read), len(cb.CORPORA), t["name"])
            else:
                self.assertEqual(t["pool"], "pools/mixed.jsonl", t["name"])
                self.assertEqual(len(sources), len(cb.CORPORA))

    def share(self, rel, corpus):
        docs = self.docs(rel)
        total = sum(len(d["text"].encode()) for d in docs)
        return sum(len(d["text"].encode()) for d in docs if d["source"] == corpus) / total

    def test_draws_differ(self):
        # Different draws of the same pool's mixture are different targets.
        mixed = [t for t in self.spec["targets"]
                 if t["kind"] == "pool_mixture" and t["pool"] == "pools/mixed.jsonl"]
        selects = {tuple(d["id"] for d in self.docs(t["target_select"])) for t in mixed}
        self.assertEqual(len(selects), len(mixed))

    def test_figures_by_kind(self):
        # Leave-one-corpus-out rows as `forecast --calibrate --json` names them, joined to kinds.
        rows = [{"target": "calibration:mix-all (the mixed pool's mixture, draw 0)",
                 "verdict": "random", "net": None},
                {"target": "calibration:mixpool-1 (x)", "verdict": "curate", "net": -0.02},
                {"target": "calibration:mixpool-2 (x)", "verdict": "uncertain", "net": 0.0},
                {"target": "calibration:py-asyncio (x)", "verdict": "curate", "net": 0.4},
                {"target": "calibration:rare-py-asyncio (x)", "verdict": "random", "net": 0.1}]
        table = cb.by_kind(self.spec, {"rows": rows})
        self.assertEqual(table["pool_mixture"], {
            "targets": 3, "did_not_pay": 3, "caught": 1, "abstained": 1, "missed": 1,
            "paid_curated": 0, "never_caught_up": 1})
        self.assertEqual(table["present"]["paid_curated"], 1)
        self.assertEqual(table["rare"]["did_not_pay"], 0)
        self.assertEqual(table["rare"]["paid_curated"], 0)
        self.assertEqual(cb.target_of("py-asyncio"), "py-asyncio")
        # A ledger of two batteries: the same target name in each, told apart by the prefix.
        other = {"name": "holdout", "targets": [{"name": "mixpool-1", "kind": "present"}]}
        rows.append({"target": "holdout:mixpool-1 (y)", "verdict": "curate", "net": 0.3})
        both = cb.by_kind([self.spec, other], {"rows": rows})
        self.assertEqual(both["pool_mixture"]["targets"], 3)
        self.assertEqual(both["present"]["targets"], 2)
        self.assertEqual(both["present"]["paid_curated"], 2)

    def test_same_bytes_twice(self):
        again = os.path.join(self.tmp, "b")
        build(again)
        self.assertEqual(tree_hashes(self.out), tree_hashes(again))

    def test_preflight_reads_it(self):
        binary = os.environ.get("PREFLIGHT_BINARY")
        if not binary or not os.path.exists(binary):
            self.skipTest("no PREFLIGHT_BINARY")
        files = sorted({os.path.join(self.out, t[k]) for t in self.spec["targets"]
                        for k in ("pool", "target_select", "target_eval")})
        stats = subprocess.run([binary, "corpus", "stats", "--json"] + files, check=True,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.assertEqual(json.loads(stats.stdout)["invalid_lines"], 0)
        # The spec reads: asked for a target it lacks, battery stops after reading it.
        run = subprocess.run([binary, "battery", "--spec", os.path.join(self.out, "battery.json"),
                              "--out", os.path.join(self.tmp, "runs"), "--targets",
                              "no-such-target", "--ledger", os.path.join(self.tmp, "ledger.jsonl")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn(b"no targets to run", run.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
