#!/usr/bin/env python3
"""PyTorch's side of the training benchmark: the same model (src/trainer/torch/torch_model.py),
AdamW, batch x context tokens per step, float32, a given thread count. Prints one JSON line with
tokens/second over the timed steps (after warm-up steps). Run by train_bench.py."""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "src", "trainer",
                                "torch"))
from torch_model import VOCAB, forward, init_params, make_optimizer  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    for k in ("layers", "d_model", "heads", "context", "batch", "steps", "warmup", "threads"):
        ap.add_argument("--" + k.replace("_", "-"), type=int, required=k not in ("warmup",))
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    p = init_params(a.layers, a.d_model, a.context, gen)
    opt = make_optimizer(p, 1e-3)
    data = torch.randint(0, VOCAB, (1 << 20,), generator=gen)
    B, T = a.batch, a.context

    def step():
        starts = torch.randint(0, data.numel() - T - 1, (B,), generator=gen)
        w = torch.stack([data[s:s + T + 1] for s in starts.tolist()])
        opt.zero_grad(set_to_none=True)
        _, loss = forward(p, w[:, :T], w[:, 1:], a.layers, a.heads)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(p.values()), 1.0)
        opt.step()

    for _ in range(a.warmup or 1):
        step()
    t0 = time.perf_counter()
    for _ in range(a.steps):
        step()
    dt = time.perf_counter() - t0
    print(json.dumps({"tokens_per_second": a.steps * B * T / dt, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
