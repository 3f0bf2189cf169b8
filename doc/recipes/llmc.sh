#!/bin/sh
# One preflight run on llm.c (karpathy/llm.c, train_gpt2cu built with `make train_gpt2cu`):
#   --trainer cmd --trainer-cmd 'sh doc/recipes/llmc.sh' --curve-format llmc --params N
#   --params N: the "num_parameters" line of its output (it writes no run.json)
# Written from llm.c's train_gpt2.cu (f1e2ace, 2025-05); tested in CI against a stand-in
# (tests/recipes/); not run on a GPU. Reads the run from the PREFLIGHT_* environment
# (doc/trainers.md); LLMC: the built checkout (a relative path is taken from the folder the trial
# was started in). What differs from the engine, and what to know:
# - `-e dL` builds llm.c's GPT-2 of depth L, whose width and heads are fixed by L: the trial's
#   model must be one of those shapes (below; `--model 10m` is d6), else this exits 2;
# - it uses GPT-2's 50,257-token vocabulary: byte tokens are valid ids, the unused embedding
#   rows cost parameters and FLOPs (count them in --params);
# - its eval averages -m batches of the val shard, not the whole eval set;
# - it takes no seed flag: every seed of a trial repeats the same run unless you patch its
#   seed, and a trial of identical seeds has no interval worth reading.
set -e
case "${LLMC:=$HOME/llm.c}" in /*) ;; *) LLMC="${PREFLIGHT_START_DIR:-$PWD}/$LLMC" ;; esac
# train_gpt2.cu, gpt2_set_hyperparameters: depth -> (channels, heads), max_seq_len 1024.
case "$PREFLIGHT_LAYERS/$PREFLIGHT_D_MODEL/$PREFLIGHT_HEADS" in
  6/384/6 | 12/768/12 | 24/1024/16 | 36/1280/20 | 48/1600/25 | 60/1920/30 | 72/2880/30 | \
    84/3456/36) ;;
  *) echo "llmc.sh: llm.c builds GPT-2 depths 6, 12, 24, 36, 48, 60, 72 and 84 only, each of" \
          "its own width and heads (layers/width/heads: 6/384/6 (--model 10m), 12/768/12," \
          "24/1024/16, 36/1280/20, 48/1600/25, 60/1920/30, 72/2880/30, 84/3456/36); this" \
          "trial's model is $PREFLIGHT_LAYERS/$PREFLIGHT_D_MODEL/$PREFLIGHT_HEADS" >&2
     exit 2 ;;
esac
if [ "$PREFLIGHT_CONTEXT" -gt 1024 ]; then
  echo "llmc.sh: llm.c's GPT-2 takes a context of at most 1024, not $PREFLIGHT_CONTEXT" >&2
  exit 2
fi
exec "$LLMC/train_gpt2cu" -i "$PREFLIGHT_TRAIN_LLMC" -j "$PREFLIGHT_EVAL_LLMC" \
  -o "$PREFLIGHT_RUN_DIR" -e "d$PREFLIGHT_LAYERS" -b "$PREFLIGHT_BATCH" -t "$PREFLIGHT_CONTEXT" \
  -x "$PREFLIGHT_STEPS" -v "$PREFLIGHT_EVAL_EVERY" -m 20 -l "$PREFLIGHT_LR" \
  -u "$PREFLIGHT_WARMUP_STEPS" -q "$PREFLIGHT_MIN_LR_RATIO" -c 0.1 -s 0 -h 0
