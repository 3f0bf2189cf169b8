#!/bin/sh
# One preflight run on nanoGPT (karpathy/nanoGPT), launched by a trial, ladder or battery:
#   --trainer cmd --trainer-cmd 'sh /path/to/nanogpt.sh' --curve-format nanogpt
# Reads the run from the PREFLIGHT_* environment (doc/trainers.md). NANOGPT: its checkout;
# PYTHON: a Python with torch and numpy; NANOGPT_DEVICE: cuda (default) or cpu.
# Run here on the CPU with torch 1.13 through `preflight trial --trainer cmd` (README, "Run the
# arms on your own trainer"); not yet run on a GPU.
set -e
NANOGPT=${NANOGPT:-$HOME/nanoGPT}
PY=${PYTHON:-python3}
DEVICE=${NANOGPT_DEVICE:-cuda}
COMPILE=$([ "$DEVICE" = cuda ] && echo True || echo False)
# nanoGPT reads DATA/train.bin and DATA/val.bin (uint16 tokens: preflight's tokens.bin as it is)
# and DATA/meta.pkl for the vocabulary (257: 256 bytes and the document boundary).
D="$PREFLIGHT_RUN_DIR/data"
mkdir -p "$D"
ln -sf "$PREFLIGHT_TRAIN_BIN" "$D/train.bin"
ln -sf "$PREFLIGHT_EVAL_BIN" "$D/val.bin"
"$PY" -c 'import pickle, sys; pickle.dump({"vocab_size": 257}, open(sys.argv[1], "wb"))' \
  "$D/meta.pkl"
cd "$NANOGPT"  # its train.py reads configurator.py from the working directory
# run.json: the parameter count of the model nanoGPT builds (FLOPs per step = 6 N x tokens).
"$PY" -c 'import json, os
from model import GPT, GPTConfig
e = os.environ
m = GPT(GPTConfig(n_layer=int(e["PREFLIGHT_LAYERS"]), n_head=int(e["PREFLIGHT_HEADS"]),
                  n_embd=int(e["PREFLIGHT_D_MODEL"]), block_size=int(e["PREFLIGHT_CONTEXT"]),
                  vocab_size=257, bias=False, dropout=0.0))
json.dump({"params": sum(p.numel() for p in m.parameters()),
           "tokens_per_step": int(e["PREFLIGHT_TOKENS_PER_STEP"])},
          open(os.path.join(e["PREFLIGHT_RUN_DIR"], "run.json"), "w"))' > /dev/null
MIN_LR=$("$PY" -c "print($PREFLIGHT_LR * $PREFLIGHT_MIN_LR_RATIO)")
# nanoGPT seeds torch with 1337 (+ its rank) and has no seed flag: offset it by the preflight
# seed so that the paired seeds differ, without editing nanoGPT.
exec "$PY" -c 'import os, runpy, sys, torch
seed = torch.manual_seed
torch.manual_seed = lambda s: seed(s + 1000 * int(os.environ["PREFLIGHT_SEED"]))
sys.argv = ["train.py"] + sys.argv[1:]
runpy.run_path("train.py", run_name="__main__")' \
  --dataset="$D" --out_dir="$PREFLIGHT_RUN_DIR/out" --device="$DEVICE" --compile="$COMPILE" \
  --n_layer="$PREFLIGHT_LAYERS" --n_head="$PREFLIGHT_HEADS" --n_embd="$PREFLIGHT_D_MODEL" \
  --block_size="$PREFLIGHT_CONTEXT" --batch_size="$PREFLIGHT_BATCH" \
  --gradient_accumulation_steps=1 --max_iters="$PREFLIGHT_STEPS" \
  --lr_decay_iters="$PREFLIGHT_STEPS" --eval_interval="$PREFLIGHT_EVAL_EVERY" --eval_iters=20 \
  --learning_rate="$PREFLIGHT_LR" --min_lr="$MIN_LR" --warmup_iters="$PREFLIGHT_WARMUP_STEPS" \
  --beta2=0.95 --dropout=0.0 --bias=False --always_save_checkpoint=False
