#!/usr/bin/env python3
"""A plain, faithful Python implementation of the DSIR scoring pass that preflight runs:
lower-case, \\w+|[^\\w\\s]+ tokens, unigrams and bigrams hashed into 10,000 buckets, log weight =
mean log ratio x 255 (preflight's "normalize" length rule). Hashing uses blake2b (stdlib) where
preflight uses XXH3; the work per token is the same kind. numpy holds the log-ratio table.

Usage: dsir_reference.py POOL.jsonl TARGET.jsonl MAX_MB  -> one JSON line with MB/s (1 process).
"""
import hashlib
import json
import re
import sys
import time

import numpy as np

TOKEN = re.compile(r"\w+|[^\w\s]+")
BUCKETS = 10000


def bucket(s):
    return int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest(), "little") % BUCKETS


def features(text):
    words = TOKEN.findall(text.lower())
    out = [bucket(w) for w in words]
    out += [bucket(a + " " + b) for a, b in zip(words, words[1:])]
    return out


def counts(path, max_bytes):
    c = np.zeros(BUCKETS, dtype=np.int64)
    seen = 0
    with open(path, "rb") as f:
        for line in f:
            seen += len(line)
            for b in features(json.loads(line)["text"]):
                c[b] += 1
            if seen >= max_bytes:
                break
    return c


def main():
    pool, target, max_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    max_bytes = int(max_mb * 1e6)
    t = counts(target, 1 << 62)
    p = counts(pool, max_bytes)
    log_ratio = np.log((t + 1) / (t.sum() + BUCKETS)) - np.log((p + 1) / (p.sum() + BUCKETS))
    start = time.process_time()  # CPU seconds: a busy machine does not slow the figure
    seen = 0
    checksum = 0.0
    with open(pool, "rb") as f:
        for line in f:
            seen += len(line)
            feats = features(json.loads(line)["text"])
            if feats:
                checksum += float(log_ratio[feats].mean() * 255)
            if seen >= max_bytes:
                break
    wall = time.process_time() - start
    print(json.dumps({"peer": "python-reference", "threads": 1, "pool_mb": seen / 1e6, "wall_s": round(wall, 3),
                      "mb_per_s_per_core": round(seen / 1e6 / wall, 3), "checksum": checksum}))


if __name__ == "__main__":
    main()
