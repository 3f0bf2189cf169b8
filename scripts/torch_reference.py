#!/usr/bin/env python3
"""Writes the PyTorch fixture that tests/engine/fixture_test.cc holds the engine to.

A developer runs this (CI does not: it needs Debian's python3-torch):
    /usr/bin/python3 scripts/torch_reference.py tests/engine/data/gpt_fixture.bin

The fixture is a small model (2 layers, d_model 32, 4 heads, context 16, batch 4) with:
initial weights (biases and LayerNorm perturbed so every path is exercised), input tokens,
logits, loss, every parameter's gradient, and the losses of the first 10 AdamW steps (warm-up 3
steps then cosine over 10, peak lr 1e-2, weight decay 0.1 on matrices, clipping at 1.0; the
same batch every step).

Format (little-endian): 8 bytes "PFFIXT01", u32 entry count, then per entry: u32 name length,
name (ASCII), u32 kind (0 float32, 1 int32), u64 element count, the elements.
"""
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src", "trainer", "torch"))
from torch_model import PARAMS, VOCAB, forward, init_params, learning_rate, make_optimizer  # noqa

L, C, NH, T, B = 2, 32, 4, 16, 4
STEPS, WARMUP, LR, MIN_RATIO, CLIP = 10, 3, 1e-2, 0.1, 1.0
WD, BETA1, BETA2, EPS = 0.1, 0.9, 0.95, 1e-8


def main(out_path):
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(20240917)
    init = init_params(L, C, T, gen, noisy=True)
    tokens = torch.randint(0, VOCAB, (B, T + 1), generator=gen)
    idx, targets = tokens[:, :T], tokens[:, 1:]

    entries = []
    entries.append(("config", 1, [L, C, NH, T, B, VOCAB, STEPS, WARMUP]))
    entries.append(("hparams", 0, [LR, MIN_RATIO, CLIP, WD, BETA1, BETA2, EPS]))
    entries.append(("tokens", 1, tokens.flatten().tolist()))
    for name, _, _ in PARAMS:
        entries.append(("param/" + name, 0, init[name].detach().flatten().tolist()))

    p = {k: v.detach().clone().requires_grad_(True) for k, v in init.items()}
    logits, loss = forward(p, idx, targets, L, NH)
    loss.backward()
    entries.append(("logits", 0, logits.detach().flatten().tolist()))
    entries.append(("loss", 0, [loss.item()]))
    for name, _, _ in PARAMS:
        entries.append(("grad/" + name, 0, p[name].grad.flatten().tolist()))

    p = {k: v.detach().clone().requires_grad_(True) for k, v in init.items()}
    opt = make_optimizer(p, LR, WD, (BETA1, BETA2), EPS)
    losses = []
    for step in range(STEPS):
        for g in opt.param_groups:
            g["lr"] = learning_rate(step, STEPS, WARMUP, LR, MIN_RATIO)
        opt.zero_grad(set_to_none=False)
        _, loss = forward(p, idx, targets, L, NH)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p[n] for n, _, _ in PARAMS], CLIP)
        opt.step()
        losses.append(loss.item())
    entries.append(("step_losses", 0, losses))

    with open(out_path, "wb") as f:
        f.write(b"PFFIXT01")
        f.write(struct.pack("<I", len(entries)))
        for name, kind, values in entries:
            f.write(struct.pack("<I", len(name)))
            f.write(name.encode("ascii"))
            f.write(struct.pack("<IQ", kind, len(values)))
            f.write(struct.pack("<%d%s" % (len(values), "f" if kind == 0 else "i"), *values))
    print("wrote %s: loss %.6f, step losses %s" % (out_path, losses[0], " ".join("%.4f" % x for x in losses)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/engine/data/gpt_fixture.bin")
