#!/usr/bin/env python3
"""One preflight run on the Hugging Face Trainer (transformers >= 4.41):
    --trainer cmd --trainer-cmd 'python3 doc/recipes/hf_trainer.py' --curve-format hf

Written against the transformers documentation and source (trainer.py, trainer_callback.py);
tested in CI against a stand-in (tests/recipes/); not run with transformers itself. Reads the
run from the PREFLIGHT_* environment (doc/trainers.md).

A GPT-2 of the trial's shape over the byte vocabulary (257 tokens, no dropout), trained on
random windows of the arm's tokens.bin and evaluated on T_eval's windows at step 0 (transformers
>= 4.38's eval_on_start), every {eval_every} steps and at the last; trainer_state.json in the
run folder holds the log_history preflight reads (eval_loss, step, num_input_tokens_seen), and
run.json the parameter count. Its windows, initial weights, scheduler and eval differ from the
engine's; what a trial compares is two arms trained the same way.
"""
import json
import os

import numpy as np
import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

env = os.environ
RUN, T, B = env["PREFLIGHT_RUN_DIR"], int(env["PREFLIGHT_CONTEXT"]), int(env["PREFLIGHT_BATCH"])
STEPS, SEED = int(env["PREFLIGHT_STEPS"]), int(env["PREFLIGHT_SEED"])


class Windows(torch.utils.data.Dataset):
    """count windows of T tokens: random starts (train) or tiles at stride T (eval)."""

    def __init__(self, path, count=None, seed=0):
        self.tokens = np.memmap(path, dtype="<u2", mode="r")
        last = len(self.tokens) - T
        self.starts = (np.random.default_rng(seed).integers(0, last, count) if count
                       else np.arange(0, last, T))

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, i):
        ids = torch.from_numpy(self.tokens[self.starts[i]:self.starts[i] + T].astype(np.int64))
        return {"input_ids": ids, "labels": ids}


model = GPT2LMHeadModel(GPT2Config(
    vocab_size=257, n_positions=T, n_embd=int(env["PREFLIGHT_D_MODEL"]),
    n_layer=int(env["PREFLIGHT_LAYERS"]), n_head=int(env["PREFLIGHT_HEADS"]),
    resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=256, eos_token_id=256))
with open(os.path.join(RUN, "run.json"), "w") as f:
    json.dump({"params": model.num_parameters(), "tokens_per_step": B * T}, f)
args = TrainingArguments(
    output_dir=os.path.join(RUN, "out"), max_steps=STEPS, per_device_train_batch_size=B,
    per_device_eval_batch_size=B, learning_rate=float(env["PREFLIGHT_LR"]),
    warmup_steps=int(env["PREFLIGHT_WARMUP_STEPS"]), lr_scheduler_type="cosine_with_min_lr",
    lr_scheduler_kwargs={"min_lr_rate": float(env["PREFLIGHT_MIN_LR_RATIO"])},
    weight_decay=0.1, adam_beta1=0.9, adam_beta2=0.95, max_grad_norm=1.0,
    eval_strategy="steps", eval_steps=int(env["PREFLIGHT_EVAL_EVERY"]), eval_on_start=True,
    logging_steps=int(env["PREFLIGHT_EVAL_EVERY"]), save_strategy="no", report_to=[],
    seed=SEED, include_num_input_tokens_seen=True, bf16=torch.cuda.is_available())
trainer = Trainer(model=model, args=args,
                  train_dataset=Windows(env["PREFLIGHT_TRAIN_BIN"], STEPS * B, SEED),
                  eval_dataset=Windows(env["PREFLIGHT_EVAL_BIN"]))
trainer.train()
if not any(e.get("step") == STEPS and "eval_loss" in e for e in trainer.state.log_history):
    trainer.evaluate()  # the last step's eval, when eval_every does not divide the steps
trainer.state.save_to_json(os.path.join(RUN, "trainer_state.json"))
