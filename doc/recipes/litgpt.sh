#!/bin/sh
# One preflight run on litgpt (Lightning-AI/litgpt, `pip install 'litgpt[all]'`):
#   --trainer cmd --trainer-cmd 'sh doc/recipes/litgpt.sh' --curve-format jsonl --params N
#   --params N: its "Total parameters" line (it writes no run.json)
# Written from litgpt's pretrain.py (26857050, 2026-06); tested in CI against a stand-in
# (tests/recipes/); not run with litgpt itself. Reads the run from the PREFLIGHT_* environment
# (doc/trainers.md). LITGPT_MODEL: a litgpt config name (default pythia-14m); LITGPT_TOKENIZER:
# its tokenizer folder (a relative one is looked for, as litgpt does, as given and under
# checkpoints/, from the folder the trial was started in); PYTHON: the Python litgpt is in.
# litgpt tokenizes with its own tokenizer, so the curve gives eval_loss in nats per litgpt token
# with eval_tokens (T_eval's length in those tokens), and preflight turns that into bits per
# byte; {batch} x {context} are then litgpt tokens per step, not bytes. One device (--devices 1):
# on several, litgpt would split the tokens and the steps would not be the trial's.
set -e
PY=${PYTHON:-python3}
MODEL=${LITGPT_MODEL:-pythia-14m}
TOK=${LITGPT_TOKENIZER:-checkpoints/EleutherAI/pythia-14m}
START=${PREFLIGHT_START_DIR:-$PWD}
case "$TOK" in
  /*) ;;
  *) if [ -d "$START/$TOK" ]; then TOK="$START/$TOK"; else TOK="$START/checkpoints/$TOK"; fi ;;
esac
R="$PREFLIGHT_RUN_DIR"
mkdir -p "$R/text/train" "$R/text/val"
"$PY" -c 'import json, os, sys
for src, dst in zip(sys.argv[1:3], sys.argv[3:5]):
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        out.write("\n\n".join(json.loads(line)["text"] for line in f if line.strip()))' \
  "$PREFLIGHT_TRAIN_JSONL" "$PREFLIGHT_EVAL_JSONL" "$R/text/train/arm.txt" "$R/text/val/eval.txt"
litgpt pretrain "$MODEL" --tokenizer_dir "$TOK" --out_dir "$R/out" --seed "$PREFLIGHT_SEED" \
  --devices 1 --data TextFiles --data.train_data_path "$R/text/train" \
  --data.val_data_path "$R/text/val" --train.micro_batch_size "$PREFLIGHT_BATCH" \
  --train.global_batch_size "$PREFLIGHT_BATCH" --train.max_seq_length "$PREFLIGHT_CONTEXT" \
  --train.lr_warmup_steps "$PREFLIGHT_WARMUP_STEPS" \
  --train.max_tokens $((PREFLIGHT_STEPS * PREFLIGHT_TOKENS_PER_STEP)) \
  --optimizer AdamW --optimizer.lr "$PREFLIGHT_LR" \
  --train.min_lr "$("$PY" -c "print($PREFLIGHT_LR * $PREFLIGHT_MIN_LR_RATIO)")" \
  --eval.interval "$PREFLIGHT_EVAL_EVERY" --logger_name csv
# Its metrics.csv into preflight's jsonl, from the newest version_N (a relaunch starts over).
# pretrain.py (26857050) logs each in-loop validation one row early and the final one on time:
#   fabric.log_dict(metrics, step=state["iter_num"] - 1)   # after step iter_num, in the loop
#   fabric.log_dict(metrics, step=state["iter_num"])       # "Final validation", after the loop
# so a val_loss row at {steps} is the final validation, any other row at s is step s + 1.
"$PY" -c 'import csv, glob, json, os, re, sys
from litgpt import Tokenizer
e = os.environ
run, steps = e["PREFLIGHT_RUN_DIR"], int(e["PREFLIGHT_STEPS"])
per_step = int(e["PREFLIGHT_TOKENS_PER_STEP"])
with open(os.path.join(run, "text", "val", "eval.txt"), encoding="utf-8") as f:
    eval_tokens = len(Tokenizer(sys.argv[1]).encode(f.read().strip(), bos=True, eos=False))
versions = glob.glob(os.path.join(run, "out", "logs", "csv", "version_*", "metrics.csv"))
newest = max(versions, key=lambda p: int(re.findall(r"version_(\d+)", p)[-1]))
points = {}
with open(newest, newline="") as f:
    for row in csv.DictReader(f):
        if row.get("val_loss"):
            step = int(row["step"])
            step = step if step == steps else step + 1
            points[step] = {"step": step, "tokens": step * per_step,
                            "eval_loss": float(row["val_loss"]), "eval_tokens": eval_tokens}
with open(e["PREFLIGHT_CURVE"] + ".tmp", "w") as out:
    for step in sorted(points):
        out.write(json.dumps(points[step]) + "\n")
os.replace(e["PREFLIGHT_CURVE"] + ".tmp", e["PREFLIGHT_CURVE"])' "$TOK"
