#!/usr/bin/env python3
"""Builds a large benchmark pool from the Brown corpus, repeated with variation: every copy
shuffles each document's paragraphs and swaps about 5% of its words for words drawn from the
whole corpus (seeded), so no two copies of a document are equal.

Usage: make_pool.py BROWN.jsonl OUT.jsonl TARGET_MB
"""
import json
import random
import sys


def main():
    src, out, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    docs = [json.loads(l) for l in open(src, encoding="utf-8")]
    vocab = sorted({w for d in docs for w in d["text"].split()})
    rng = random.Random(20261129)
    written = 0
    rep = 0
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        while written < target_mb * 1e6:
            for d in docs:
                paras = d["text"].split("\n\n")
                rng.shuffle(paras)
                words = "\n\n".join(paras).split(" ")
                for _ in range(len(words) // 20):
                    words[rng.randrange(len(words))] = rng.choice(vocab)
                line = json.dumps({"id": f"{d['id']}-r{rep}", "genre": d["genre"], "text": " ".join(words)}) + "\n"
                f.write(line)
                written += len(line.encode("utf-8"))
            rep += 1
    import os
    os.replace(out + ".tmp", out)
    print(f"make_pool: {written / 1e6:.0f} MB, {rep} copies of {len(docs)} documents -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
