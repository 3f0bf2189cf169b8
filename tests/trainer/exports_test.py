#!/usr/bin/python3
"""The arms' exports read back by an independent reader (doc/trainers.md, "Arms exported once").

Runs a small trial with --trainer cmd (a fake trainer that writes a flat curve), then reads every
export of RUN/exports/ without preflight's code: tokens.bin by numpy memmap (little-endian uint16),
llmc.bin's header fields (256 little-endian int32: magic 20240520, version 1, the token count) and
its tokens, text.jsonl line by line, and manifest.json's counts and SHA-256 of each file, all
against the arm's JSONL file tokenised here (per document: 256, then its UTF-8 bytes).
Needs PREFLIGHT_BINARY and PREFLIGHT_TEST_TMP (CTest sets them) and numpy.
"""
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys

import numpy as np

BINARY = os.environ["PREFLIGHT_BINARY"]
TMP = os.path.join(os.environ["PREFLIGHT_TEST_TMP"], "exports_py.%d" % os.getpid())

FAKE = r'''
import json, os
E = os.environ
steps, every = int(E["PREFLIGHT_STEPS"]), int(E["PREFLIGHT_EVAL_EVERY"])
grid = list(range(0, steps, every)) + [steps]
bonus = 1.0 if E["PREFLIGHT_ARM"] == "curated" else 0.0
with open(E["PREFLIGHT_CURVE"], "w") as f:
    for s in grid:
        f.write(json.dumps({"step": s, "eval_bpb": 6.0 - (0.05 + 0.05 * bonus) * s}) + "\n")
'''


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def write_data():
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "d\u00e9lta", "\u00e9psilon", "zeta", "eta", "theta"]
    def doc(n):
        return " ".join(rng.choice(words) for _ in range(n)) + ' "quoted"\n\ttab'
    with open(os.path.join(TMP, "pool.jsonl"), "w") as f:
        for i in range(60):
            f.write(json.dumps({"id": "p%d" % i, "text": doc(60 + i % 40)}) + "\n")
    for name, n in (("target.jsonl", 10), ("eval.jsonl", 6)):
        with open(os.path.join(TMP, name), "w") as f:
            for i in range(n):
                f.write(json.dumps({"text": doc(80)}) + "\n")
    with open(os.path.join(TMP, "fake.py"), "w") as f:
        f.write(FAKE)


def run_trial():
    out = os.path.join(TMP, "trial")
    cmd = [BINARY, "trial", "--pool", os.path.join(TMP, "pool.jsonl"),
           "--target-select", os.path.join(TMP, "target.jsonl"),
           "--target-eval", os.path.join(TMP, "eval.jsonl"), "--selector", "dsir",
           "--seeds", "1", "--steps", "20", "--eval-every", "5", "--layers", "1", "--d-model", "16",
           "--heads", "2", "--context", "16", "--batch", "2", "--threads", "1", "--quiet",
           "--ledger", os.path.join(TMP, "ledger.jsonl"), "--out", out,
           "--trainer", "cmd", "--trainer-cmd", "/usr/bin/python3 " + os.path.join(TMP, "fake.py")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    check(r.returncode == 0, "trial exited %d: %s" % (r.returncode, r.stderr))
    return out


def expected_tokens(texts):
    tokens = []
    for t in texts:
        tokens.append(256)
        tokens.extend(t.encode("utf-8"))
    return np.array(tokens, dtype=np.uint16)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check_export(folder, source):
    with open(source, encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    want = expected_tokens(texts)

    tokens = np.memmap(os.path.join(folder, "tokens.bin"), dtype="<u2", mode="r")
    check(np.array_equal(tokens, want), folder + "/tokens.bin differs from the documents' bytes")

    header = np.fromfile(os.path.join(folder, "llmc.bin"), dtype="<i4", count=256)
    check(header[0] == 20240520, "llm.c magic %d" % header[0])
    check(header[1] == 1, "llm.c version %d" % header[1])
    check(header[2] == len(want), "llm.c token count %d, want %d" % (header[2], len(want)))
    check(not header[3:].any(), "llm.c header's unused ints are not zero")
    shard = np.memmap(os.path.join(folder, "llmc.bin"), dtype="<u2", mode="r", offset=1024)
    check(np.array_equal(shard, want), folder + "/llmc.bin's tokens differ")

    with open(os.path.join(folder, "text.jsonl"), encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    check([l["text"] for l in lines] == texts, folder + "/text.jsonl differs")
    check(all(list(l) == ["text"] for l in lines), "text.jsonl holds fields other than text")

    with open(os.path.join(folder, "manifest.json")) as f:
        m = json.load(f)
    check(m["tokenizer"] == "bytes" and m["vocab"] == 257 and m["boundary"] == 256,
          "manifest tokenizer fields: %r" % m)
    check(m["documents"] == len(texts), "manifest documents")
    check(m["bytes"] == sum(len(t.encode("utf-8")) for t in texts), "manifest bytes")
    check(m["tokens"] == len(want) == m["bytes"] + m["documents"], "manifest tokens")
    check(m["source"]["sha256"] == sha256(source), "manifest source sha256")
    for name in ("text.jsonl", "tokens.bin", "llmc.bin"):
        path = os.path.join(folder, name)
        check(m["files"][name]["sha256"] == sha256(path), name + " sha256")
        check(m["files"][name]["bytes"] == os.path.getsize(path), name + " bytes")


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    write_data()
    out = run_trial()
    for arm in ("random", "curated"):
        check_export(os.path.join(out, "exports", arm), os.path.join(out, "arms", arm + ".jsonl"))
    check_export(os.path.join(out, "exports", "eval"), os.path.join(TMP, "eval.jsonl"))
    print("ok: exports of random, curated and eval read back")


if __name__ == "__main__":
    main()
