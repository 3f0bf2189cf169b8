#!/bin/sh
# One preflight run on litgpt (Lightning-AI/litgpt, `pip install 'litgpt[all]'`):
#   --trainer cmd --trainer-cmd 'sh /path/to/litgpt.sh' --curve-format jsonl
#   --params N   (its "Total parameters" line; it writes no run.json)
# NOT RUN HERE: written from litgpt's pretrain.py (2024-2025) on a machine without litgpt or a
# GPU. Reads the run from the PREFLIGHT_* environment (doc/trainers.md). LITGPT_MODEL: a litgpt
# config name (default pythia-14m); LITGPT_TOKENIZER: its tokenizer folder.
# litgpt tokenizes with its own tokenizer, so the curve gives eval_loss in nats per litgpt token
# with eval_tokens (T_eval's length in those tokens), and preflight turns that into bits per
# byte; {batch} x {context} are then litgpt tokens per step, not bytes. litgpt logs a
# validation after step k on the CSV row of step k - 1: the last lines turn its metrics.csv into
# preflight's jsonl with the steps put right.
set -e
PY=${PYTHON:-python3}
MODEL=${LITGPT_MODEL:-pythia-14m}
TOK=${LITGPT_TOKENIZER:-checkpoints/EleutherAI/pythia-14m}
R="$PREFLIGHT_RUN_DIR"
mkdir -p "$R/text/train" "$R/text/val"
"$PY" -c 'import json, os, sys
for src, dst in zip(sys.argv[1:3], sys.argv[3:5]):
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        out.write("\n\n".join(json.loads(line)["text"] for line in f if line.strip()))' \
  "$PREFLIGHT_TRAIN_JSONL" "$PREFLIGHT_EVAL_JSONL" "$R/text/train/arm.txt" "$R/text/val/eval.txt"
litgpt pretrain "$MODEL" --tokenizer_dir "$TOK" --out_dir "$R/out" --seed "$PREFLIGHT_SEED" \
  --data TextFiles --data.train_data_path "$R/text/train" --data.val_data_path "$R/text/val" \
  --train.micro_batch_size "$PREFLIGHT_BATCH" --train.global_batch_size "$PREFLIGHT_BATCH" \
  --train.max_seq_length "$PREFLIGHT_CONTEXT" --train.lr_warmup_steps "$PREFLIGHT_WARMUP_STEPS" \
  --train.max_tokens $((PREFLIGHT_STEPS * PREFLIGHT_TOKENS_PER_STEP)) \
  --eval.interval "$PREFLIGHT_EVAL_EVERY" --logger_name csv
"$PY" -c 'import csv, glob, json, os, sys
from litgpt import Tokenizer
e = os.environ
run, per_step = e["PREFLIGHT_RUN_DIR"], int(e["PREFLIGHT_TOKENS_PER_STEP"])
with open(os.path.join(run, "text", "val", "eval.txt"), encoding="utf-8") as f:
    eval_tokens = len(Tokenizer(sys.argv[1]).encode(f.read()))
points = {}
for path in glob.glob(os.path.join(run, "out", "logs", "csv", "*", "metrics.csv")):
    for row in csv.DictReader(open(path)):
        if row.get("val_loss"):
            step = int(row["step"]) + 1
            points[step] = {"step": step, "tokens": step * per_step,
                            "eval_loss": float(row["val_loss"]), "eval_tokens": eval_tokens}
with open(e["PREFLIGHT_CURVE"] + ".tmp", "w") as out:
    for step in sorted(points):
        out.write(json.dumps(points[step]) + "\n")
os.replace(e["PREFLIGHT_CURVE"] + ".tmp", e["PREFLIGHT_CURVE"])' "$TOK"
