"""The curve every stand-in reports (tests/recipes/): a stand-in trains nothing, so its eval loss
is this function of what a real run's would depend on: the arm it was given, its seed and the
steps it has trained. The curated arm learns twice as fast; each seed is 0.01 nats higher.
Shared by the stand-ins and recipes_test.py, which recomputes what preflight must read back."""
import math
import os


def loss(arm, seed, step, steps):
    """Eval loss in nats per token after `step` of `steps` optimizer steps."""
    rate = 6.0 if arm == "curated" else 3.0
    return 1.5 + 3.5 * math.exp(-rate * step / steps) + 0.01 * seed


def arm():
    """The arm being trained. A real trainer knows its data, not its name; a stand-in that trains
    nothing takes the name preflight exports (PREFLIGHT_ARM) to report a curve per arm."""
    return os.environ["PREFLIGHT_ARM"]
