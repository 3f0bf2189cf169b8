#!/bin/sh
# One preflight run on nanoGPT (karpathy/nanoGPT), launched by a trial, ladder or battery:
#   --trainer cmd --trainer-cmd 'sh doc/recipes/nanogpt.sh' --curve-format nanogpt
# Reads the run from the PREFLIGHT_* environment (doc/trainers.md). NANOGPT: its checkout;
# PYTHON: a Python with torch and numpy; NANOGPT_DEVICE: cuda (default) or cpu; NANOGPT_COMPILE:
# True or False (default: True on cuda where torch has torch.compile, i.e. torch >= 2). Relative
# paths in them are taken from the folder the trial was started in.
# Run here on the CPU with torch 1.13 through `preflight trial --trainer cmd` (README, "Run the
# arms on your own trainer"); tested in CI against a stand-in (tests/recipes/); not yet on a GPU.
set -e
in_start() { case "$1" in /*) echo "$1" ;; *) echo "$PREFLIGHT_START_DIR/$1" ;; esac; }
NANOGPT=$(in_start "${NANOGPT:-$HOME/nanoGPT}")
PY=${PYTHON:-python3}
case "$PY" in */*) PY=$(in_start "$PY") ;; esac
DEVICE=${NANOGPT_DEVICE:-cuda}
COMPILE=${NANOGPT_COMPILE:-False}
if [ -z "$NANOGPT_COMPILE" ] && [ "$DEVICE" = cuda ] &&
   "$PY" -c 'import sys, torch; sys.exit(not hasattr(torch, "compile"))'; then
  COMPILE=True
fi
# nanoGPT evaluates at the multiples of its eval_interval up to max_iters, so the last step has
# an eval only when the interval divides the steps: take the largest divisor of the steps up to
# the trial's eval interval, and refuse (exit 2) when that would more than double the evals.
S=$PREFLIGHT_STEPS E=$PREFLIGHT_EVAL_EVERY
I=$E
while [ $((S % I)) -ne 0 ]; do I=$((I - 1)); done
if [ $((2 * I)) -lt "$E" ]; then
  echo "nanogpt.sh: nanoGPT evaluates only at multiples of its eval_interval, and no interval" \
       "from $(((E + 1) / 2)) to $E divides --steps $S: give --steps a multiple of $E" \
       "(e.g. $((S / E * E + E))) or an --eval-every that divides $S" >&2
  exit 2
fi
[ "$I" -eq "$E" ] || echo "nanogpt.sh: eval_interval $I (not $E): the largest that divides $S" >&2
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
# Written as floats: nanoGPT's configurator refuses a value whose type differs from the default's.
LR=$("$PY" -c "print(float($PREFLIGHT_LR))")
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
  --gradient_accumulation_steps=1 --max_iters="$S" --lr_decay_iters="$S" \
  --eval_interval="$I" --eval_iters=20 --learning_rate="$LR" --min_lr="$MIN_LR" \
  --warmup_iters="$PREFLIGHT_WARMUP_STEPS" --beta2=0.95 --dropout=0.0 --bias=False \
  --always_save_checkpoint=False
