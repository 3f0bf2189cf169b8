"""The preflight GPT written in PyTorch, tensor for tensor in the engine's parameter layout.

Shared by scripts/torch_reference.py (the correctness fixture), bench/engine/torch_bench.py (the
speed peer) and train.py beside it (the trainer of `--trainer torch`). Parameters are plain leaf
tensors named and shaped as in src/engine/model.h (per-layer tensors stacked layer-major), so a
flat copy maps one to one onto the C++ engine. Runs on Debian's python3-torch (1.13; run with
/usr/bin/python3) and on torch 2.x.
"""
import math

import torch
import torch.nn.functional as F

VOCAB = 257  # 256 bytes + the document-boundary token

# (name, shape function of (L, C, T, V), weight-decayed?) in the engine's order.
PARAMS = [
    ("wte", lambda L, C, T, V: (V, C), True),
    ("wpe", lambda L, C, T, V: (T, C), True),
    ("ln1w", lambda L, C, T, V: (L, C), False),
    ("ln1b", lambda L, C, T, V: (L, C), False),
    ("qkvw", lambda L, C, T, V: (L, 3 * C, C), True),
    ("qkvb", lambda L, C, T, V: (L, 3 * C), False),
    ("attprojw", lambda L, C, T, V: (L, C, C), True),
    ("attprojb", lambda L, C, T, V: (L, C), False),
    ("ln2w", lambda L, C, T, V: (L, C), False),
    ("ln2b", lambda L, C, T, V: (L, C), False),
    ("fcw", lambda L, C, T, V: (L, 4 * C, C), True),
    ("fcb", lambda L, C, T, V: (L, 4 * C), False),
    ("fcprojw", lambda L, C, T, V: (L, C, 4 * C), True),
    ("fcprojb", lambda L, C, T, V: (L, C), False),
    ("lnfw", lambda L, C, T, V: (C,), False),
    ("lnfb", lambda L, C, T, V: (C,), False),
]


def init_params(L, C, T, generator, noisy=False):
    """GPT-2 initialisation (as the engine's Gpt::InitWeights, though with torch's RNG).

    noisy=True also perturbs biases and LayerNorm parameters so that a fixture exercises them.
    """
    p = {}
    for name, shape, decay in PARAMS:
        s = shape(L, C, T, VOCAB)
        if name in ("ln1w", "ln2w", "lnfw"):
            t = torch.ones(s)
            if noisy:
                t += 0.1 * torch.randn(s, generator=generator)
        elif not decay:
            t = torch.zeros(s)
            if noisy:
                t += 0.02 * torch.randn(s, generator=generator)
        else:
            std = 0.02 / math.sqrt(2 * L) if name in ("attprojw", "fcprojw") else 0.02
            t = std * torch.randn(s, generator=generator)
        p[name] = t.float().requires_grad_(True)
    return p


def forward(p, idx, targets, L, NH, reduction="mean", fused_attention=False):
    """Logits (B,T,V) and the cross-entropy of targets (B,T): their mean, or with
    reduction="none" each position's (B,T). fused_attention: torch 2.x's
    scaled_dot_product_attention (flash attention on a GPU), the same function."""
    B, T = idx.shape
    C = p["wte"].shape[1]
    hs = C // NH
    x = p["wte"][idx] + p["wpe"][:T]
    mask = None if fused_attention else torch.tril(torch.ones(T, T, dtype=torch.bool,
                                                             device=idx.device))
    for l in range(L):
        h = F.layer_norm(x, (C,), p["ln1w"][l], p["ln1b"][l], eps=1e-5)
        qkv = h @ p["qkvw"][l].t() + p["qkvb"][l]
        q, k, v = qkv.split(C, dim=2)
        q = q.view(B, T, NH, hs).transpose(1, 2)
        k = k.view(B, T, NH, hs).transpose(1, 2)
        v = v.view(B, T, NH, hs).transpose(1, 2)
        if fused_attention:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
            y = att.masked_fill(~mask, float("-inf")).softmax(dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        x = x + y @ p["attprojw"][l].t() + p["attprojb"][l]
        h = F.layer_norm(x, (C,), p["ln2w"][l], p["ln2b"][l], eps=1e-5)
        h = F.gelu(h @ p["fcw"][l].t() + p["fcb"][l], approximate="tanh")
        x = x + h @ p["fcprojw"][l].t() + p["fcprojb"][l]
    x = F.layer_norm(x, (C,), p["lnfw"], p["lnfb"], eps=1e-5)
    logits = x @ p["wte"].t()
    loss = F.cross_entropy(logits.view(-1, VOCAB), targets.reshape(-1), reduction=reduction)
    return logits, loss.view(B, T) if reduction == "none" else loss


class Gpt(torch.nn.Module):
    """forward() above as a module (for DDP and torch.compile): parameters from a dict of arrays
    or tensors in the engine's names; calling it gives the loss only."""

    def __init__(self, params, L, NH, fused_attention=False):
        super().__init__()
        self.L, self.NH, self.fused_attention = L, NH, fused_attention
        self.p = torch.nn.ParameterDict(
            {n: torch.nn.Parameter(torch.as_tensor(params[n]).float().clone())
             for n, _, _ in PARAMS})

    def forward(self, idx, targets, reduction="mean"):
        return forward(self.p, idx, targets, self.L, self.NH, reduction,
                       self.fused_attention)[1]


def make_optimizer(p, lr, weight_decay=0.1, betas=(0.9, 0.95), eps=1e-8, **options):
    """AdamW with weight decay on the matrices only (the engine's rule); options go to AdamW
    (fused=True on a GPU with torch 2.x: torch_compat.adamw_options)."""
    decay = [p[n] for n, _, d in PARAMS if d]
    no_decay = [p[n] for n, _, d in PARAMS if not d]
    groups = [{"params": decay, "weight_decay": weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=betas, eps=eps, **options)


def learning_rate(step, steps, warmup, max_lr, min_ratio):
    """The engine's schedule (src/engine/optimizer.cc): linear warm-up, cosine to min_ratio."""
    if step < warmup:
        return max_lr * (step + 1) / warmup
    min_lr = max_lr * min_ratio
    span = max(1, steps - warmup)
    progress = min(1.0, (step - warmup) / span)
    return min_lr + 0.5 * (max_lr - min_lr) * (1.0 + math.cos(math.pi * progress))
