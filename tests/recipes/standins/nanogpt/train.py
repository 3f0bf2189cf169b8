"""A stand-in for nanoGPT's train.py (karpathy/nanoGPT at 3adf61e, 2025-11-12), for
tests/recipes/: it takes its settings as train.py does (`--key=value` words, parsed by its
configurator.py: the key must be one of train.py's, the value is a Python literal or else a
string, and its type must be the default's), reads DATA/train.bin, val.bin and meta.pkl from
os.path.join('data', dataset), seeds torch as train.py does, and prints what train.py prints at
the same iterations, in the same format. It trains nothing: the losses are curve.loss().

Lines copied (train.py, 3adf61e):
  print(f"tokens per iteration will be: {tokens_per_iter:,}")
  print(f"found vocab_size = {meta_vocab_size} (inside {meta_path})")
  print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
  print(f"saving checkpoint to {out_dir}")
  print(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")
and its loop: an eval when iter_num % eval_interval == 0 (iter_num = 0 first), then one training
step, iter_num += 1, and a stop once iter_num > max_iters.
Test hook (not nanoGPT's): the settings it ran with are written to out_dir/settings.json.
"""
import ast
import json
import os
import pickle
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import curve  # noqa: E402
from model import GPT, GPTConfig  # noqa: E402

# train.py's defaults for the settings a recipe may pass (the values are nanoGPT's; their types
# decide what its configurator accepts).
settings = dict(
    out_dir="out", eval_interval=2000, log_interval=1, eval_iters=200, eval_only=False,
    always_save_checkpoint=True, init_from="scratch", wandb_log=False, dataset="openwebtext",
    gradient_accumulation_steps=40, batch_size=12, block_size=1024, n_layer=12, n_head=12,
    n_embd=768, dropout=0.0, bias=False, learning_rate=6e-4, max_iters=600000,
    weight_decay=1e-1, beta1=0.9, beta2=0.95, grad_clip=1.0, decay_lr=True, warmup_iters=2000,
    lr_decay_iters=600000, min_lr=6e-5, backend="nccl", device="cuda", dtype="float16",
    compile=True)
for word in sys.argv[1:]:
    assert "=" in word and word.startswith("--"), word  # the recipe passes no config file
    key, text = word[2:].split("=")
    if key not in settings:
        raise ValueError(f"Unknown config key: {key}")
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError):
        value = text
    assert type(value) == type(settings[key]), (key, value)  # noqa: E721 (as configurator.py)
    settings[key] = value
globals().update(settings)
os.makedirs(out_dir, exist_ok=True)
with open(os.path.join(out_dir, "settings.json"), "w") as f:
    json.dump(settings, f)

tokens_per_iter = gradient_accumulation_steps * batch_size * block_size
print(f"tokens per iteration will be: {tokens_per_iter:,}")
torch.manual_seed(1337)
# The recipe offsets torch's seed by 1000 x its seed; the stand-in reads it back.
seed = (torch.initial_seed() - 1337) // 1000
data_dir = os.path.join("data", dataset)
train_data = np.memmap(os.path.join(data_dir, "train.bin"), dtype=np.uint16, mode="r")
val_data = np.memmap(os.path.join(data_dir, "val.bin"), dtype=np.uint16, mode="r")
meta_path = os.path.join(data_dir, "meta.pkl")
with open(meta_path, "rb") as f:
    meta_vocab_size = pickle.load(f)["vocab_size"]
print(f"found vocab_size = {meta_vocab_size} (inside {meta_path})")
for data in (train_data, val_data):
    assert len(data) > block_size and int(data.max()) < meta_vocab_size
model = GPT(GPTConfig(n_layer=n_layer, n_head=n_head, n_embd=n_embd, block_size=block_size,
                      bias=bias, vocab_size=meta_vocab_size, dropout=dropout))
torch.zeros(1).to(device)  # where train.py's model.to(device) fails without that device
if compile:
    model = torch.compile(model)  # an AttributeError on torch < 2, as in train.py

iter_num, best_val_loss, arm = 0, 1e9, curve.arm()
while True:
    if iter_num % eval_interval == 0:
        val = curve.loss(arm, seed, iter_num, max_iters)
        losses = {"train": val + 0.05, "val": val}
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        if losses["val"] < best_val_loss or always_save_checkpoint:
            best_val_loss = losses["val"]
            if iter_num > 0:
                print(f"saving checkpoint to {out_dir}")
    if iter_num % log_interval == 0:
        lossf, dt, running_mfu = curve.loss(arm, seed, iter_num, max_iters) + 0.05, 0.001, -1.0
        print(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, "
              f"mfu {running_mfu*100:.2f}%")
    iter_num += 1
    if iter_num > max_iters:
        break
