#!/bin/sh
# One preflight run on llm.c (karpathy/llm.c, train_gpt2cu built with `make train_gpt2cu`):
#   --trainer cmd --trainer-cmd 'sh /path/to/llmc.sh' --curve-format llmc --curve-file main.log
#   --params N   (the "num_parameters" line of its output; it writes no run.json)
# NOT RUN HERE: written from llm.c's usage text (train_gpt2.cu, 2024) on a machine without a GPU.
# Reads the run from the PREFLIGHT_* environment (doc/trainers.md); LLMC: the built checkout.
# What differs from the engine, and what to know:
# - `-e dL` builds a fresh GPT-2 of L layers whose width is 64 x L (d6 is 6 x 384, 6 heads: the
#   `10m` shape) with GPT-2's 50,257-token vocabulary: byte tokens are valid ids, the unused
#   embedding rows cost parameters and FLOPs (count them in --params);
# - its eval averages -m batches of the val shard, not the whole eval set;
# - it takes no seed flag: every seed of a trial repeats the same run unless you patch its
#   seed, and a trial of identical seeds has no interval worth reading.
set -e
LLMC=${LLMC:-$HOME/llm.c}
cd "$PREFLIGHT_RUN_DIR"
exec "$LLMC/train_gpt2cu" -i "$PREFLIGHT_TRAIN_LLMC" -j "$PREFLIGHT_EVAL_LLMC" \
  -o "$PREFLIGHT_RUN_DIR" -e "d$PREFLIGHT_LAYERS" -b "$PREFLIGHT_BATCH" -t "$PREFLIGHT_CONTEXT" \
  -x "$PREFLIGHT_STEPS" -v "$PREFLIGHT_EVAL_EVERY" -m 20 -l "$PREFLIGHT_LR" \
  -u "$PREFLIGHT_WARMUP_STEPS" -q "$PREFLIGHT_MIN_LR_RATIO" -c 0.1 -s 0 -h 0
