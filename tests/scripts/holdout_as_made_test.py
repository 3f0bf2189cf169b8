#!/usr/bin/env python3
"""bench/holdout/as_made.py on a ledger made by hand: which receipts it reads, and the figures it
prints, worked out below by hand."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(SOURCE, "bench", "holdout", "as_made.py")


def forecast(h, verdict, cost=0.01):
    return {"kind": "forecast", "hash": h, "config": {},
            "result": {"verdict": verdict, "signal": "byte_bigram_gain",
                       "signals": {"byte_bigram_gain": {"value": 0.05, "interval": [0.01, 0.09]}},
                       "cost": {"fraction_of_trial": cost}}}


def trial(name, forecast_hash, net):
    caught_up = net is not None
    return {"kind": "trial", "hash": "t-" + name,
            "config": {"target_name": name + " (label)", "forecast": forecast_hash, "seeds": 4},
            "result": {"comparisons": [{"caught_up": caught_up,
                                        "compute_saved": {"net": net if caught_up else None}}]}}


class AsMadeTest(unittest.TestCase):
    def test_figures_of_a_hand_made_ledger(self):
        ledger = [forecast("a", "curate"), trial("holdout:a", "a", 0.30),
                  forecast("b", "random"), trial("holdout:b", "b", None),
                  forecast("c", "random"), trial("holdout:c", "c", 0.20),
                  forecast("d", "curate"), trial("holdout:d", "d", 0.05),
                  forecast("e", "random"), trial("calibration:e", "e", 0.5),  # another battery
                  trial("holdout:f", "", 0.5)]                                # tested no forecast
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write("".join(json.dumps(r) + "\n" for r in ledger))
        try:
            out = subprocess.run([sys.executable, "-B", SCRIPT, f.name], check=True,
                                 stdout=subprocess.PIPE).stdout.decode()
        finally:
            os.unlink(f.name)
        lines = out.splitlines()
        self.assertEqual([line.split()[0] for line in lines[:4]], ["a", "b", "c", "d"])
        self.assertIn("never caught up", lines[1])
        got = json.loads("\n".join(lines[4:]))
        # Clear: a (+30%), b (never), c (+20%); d (+5%) is not. Right: a (curate, paid) and
        # b (random, never); c (random, paid) is wrong. Always curate: a, c; always random: b.
        self.assertEqual((got["targets"], got["clear"]), (4, 3))
        self.assertEqual((got["forecast_right"], got["forecast_decided"]), (2, 3))
        self.assertEqual((got["always_curate_right"], got["always_random_right"]), (2, 1))
        self.assertEqual(got["did_not_pay"], {"random": 1, "uncertain": 0, "curate": 0})
        # Runs: curating costs 1 - net (2 when never caught up); following: a 0.7, b 1, c 1,
        # d 0.95; the forecast 0.01 x 2 arms x 4 seeds = 0.08 each.
        self.assertAlmostEqual(got["runs_verdicts_alone"], 3.65 / 4)
        self.assertAlmostEqual(got["runs_following"], (3.65 + 4 * 0.08) / 4)
        self.assertAlmostEqual(got["runs_always_curate"], (0.7 + 2 + 0.8 + 0.95) / 4)
        self.assertAlmostEqual(got["cost_max"], 0.01)


if __name__ == "__main__":
    unittest.main(verbosity=2)
