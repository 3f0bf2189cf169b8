#!/usr/bin/env python3
"""Builds a pretraining-scale benchmark pool of zstd JSONL shards from the Brown corpus: documents
of 1-8 KB cut from Brown's texts at random, with about 5% of their words swapped for words drawn
from the whole corpus (seeded), so that no two documents are equal and the text stays English.
Each shard is written through `zstd -3` (Debian's zstd) by one of several worker processes.

Usage: make_shards.py BROWN.jsonl OUT_DIR TOTAL_GB SHARDS [WORKERS]
  e.g. make_shards.py data/brown/brown.jsonl data/bench/shards-20g 19.3 40
Writes OUT_DIR/part-00000.jsonl.zst ...; a shard already there is kept (reruns only add).
"""
import json
import os
import random
import subprocess
import sys
from multiprocessing import Pool


def load(src):
    docs = [json.loads(line) for line in open(src, encoding="utf-8")]
    words = [d["text"].split(" ") for d in docs]
    vocab = sorted({w for ws in words for w in ws})
    return docs, words, vocab


def write_shard(args):
    src, path, shard_bytes, seed = args
    if os.path.exists(path):
        return path, 0
    docs, words, vocab = load(src)
    rng = random.Random(seed)
    tmp = path + ".tmp"
    written = 0
    with open(tmp, "wb") as out:
        z = subprocess.Popen(["zstd", "-q", "-3", "-c"], stdin=subprocess.PIPE, stdout=out)
        n = 0
        batch = []
        while written < shard_bytes:
            k = rng.randrange(len(docs))
            ws = words[k]
            length = rng.randrange(200, 1400)  # about 1-8 KB of text
            start = rng.randrange(max(1, len(ws) - length))
            piece = ws[start:start + length]
            for _ in range(len(piece) // 20):
                piece[rng.randrange(len(piece))] = rng.choice(vocab)
            line = json.dumps({"id": f"s{seed}-{n}", "genre": docs[k]["genre"],
                               "text": " ".join(piece)}).encode() + b"\n"
            batch.append(line)
            written += len(line)
            n += 1
            if len(batch) >= 512:
                z.stdin.write(b"".join(batch))
                batch = []
        z.stdin.write(b"".join(batch))
        z.stdin.close()
        if z.wait() != 0:
            raise SystemExit(f"zstd failed on {path}")
    os.replace(tmp, path)
    return path, written


def main():
    src, out_dir, total_gb, shards = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    workers = int(sys.argv[5]) if len(sys.argv) > 5 else os.cpu_count()
    os.makedirs(out_dir, exist_ok=True)
    shard_bytes = int(total_gb * 1e9 / shards)
    jobs = [(src, os.path.join(out_dir, f"part-{i:05d}.jsonl.zst"), shard_bytes, 1000 + i)
            for i in range(shards)]
    with Pool(workers) as pool:
        for path, written in pool.imap_unordered(write_shard, jobs):
            if written:
                print(f"make_shards: {path}: {written / 1e6:.0f} MB of JSONL", file=sys.stderr)


if __name__ == "__main__":
    main()
