"""The engine's arithmetic in Python, number for number: its RNG, initial weights, training
windows, eval windows, learning-rate schedule, model shapes and FLOP convention.

Each function names the C++ it mirrors; tests/trainer_torch/ holds them to the engine bit for
bit. Standard library and numpy only (no torch), so it can be read and tested on its own.
"""
import math
import os
import struct

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15  # src/base/rng.h kGoldenGamma
SAMPLER_SALT = 0xD1B54A32D192ED03  # src/engine/train.cc kSamplerSalt
VOCAB = 257
BOUNDARY = 256

# src/engine/config.cc's named models, and the larger shapes of issue 23 (10m is nanoGPT's
# shakespeare_char shape). (layers, d_model, heads, context, batch)
NAMED_MODELS = {
    "tiny": (2, 64, 2, 64, 16),
    "small": (4, 128, 4, 128, 32),
    "medium": (6, 256, 8, 256, 16),
    "10m": (6, 384, 6, 256, 32),
    "40m": (8, 640, 10, 256, 32),
}


def mix64(x):
    """src/base/rng.h Mix64: SplitMix64's output function applied to x + gamma."""
    x = (x + GOLDEN_GAMMA) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


class Rng:
    """src/engine/xoshiro.h: xoshiro256** seeded through SplitMix64."""

    def __init__(self, seed=0):
        state, s = [], seed & MASK64
        for _ in range(4):
            state.append(mix64(s))
            s = (s + GOLDEN_GAMMA) & MASK64
        self.state = state

    def next(self):
        s0, s1, s2, s3 = self.state
        x = (s1 * 5) & MASK64
        result = ((((x << 7) | (x >> 57)) & MASK64) * 9) & MASK64
        t = (s1 << 17) & MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & MASK64
        self.state = [s0, s1, s2, s3]
        return result

    def below(self, n):
        """Uniform in [0, n) by rejection on the top bits (no modulo bias)."""
        limit = MASK64 - MASK64 % n
        while True:
            x = self.next()
            if x < limit:
                return x % n

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53

    def normal(self):
        """Box-Muller; the sine half is discarded."""
        u1 = ((self.next() >> 11) + 1.0) * 2.0 ** -53
        u2 = (self.next() >> 11) * 2.0 ** -53
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(6.283185307179586 * u2)


def param_shapes(L, C, T, V=VOCAB):
    """(name, shape, decayed) in the engine's tensor order (src/engine/model.h ParamIndex)."""
    return [("wte", (V, C), True), ("wpe", (T, C), True), ("ln1w", (L, C), False),
            ("ln1b", (L, C), False), ("qkvw", (L, 3 * C, C), True), ("qkvb", (L, 3 * C), False),
            ("attprojw", (L, C, C), True), ("attprojb", (L, C), False), ("ln2w", (L, C), False),
            ("ln2b", (L, C), False), ("fcw", (L, 4 * C, C), True), ("fcb", (L, 4 * C), False),
            ("fcprojw", (L, C, 4 * C), True), ("fcprojb", (L, C), False), ("lnfw", (C,), False),
            ("lnfb", (C,), False)]


def param_count(L, C, T, V=VOCAB):
    """src/engine/config.cc ParamCount."""
    return L * (12 * C * C + 13 * C) + 2 * C + V * C + T * C


def flops_per_token(L, C, T, V=VOCAB):
    """src/engine/config.cc FlopsPerToken: 6 (non-embedding + V C) + 12 L T C."""
    return 6.0 * (L * (12 * C * C + 13 * C) + 2 * C + V * C) + 12.0 * L * T * C


def init_weights(L, C, T, seed):
    """src/engine/model.cc Gpt::InitWeights: {name: float32 array}, drawn from Rng(seed) in
    tensor order. Pure Python, about 10 s per million parameters here: --init exists for big
    models."""
    rng = Rng(seed)
    residual_std = 0.02 / math.sqrt(2.0 * L)
    out = {}
    for name, shape, decay in param_shapes(L, C, T):
        size = int(np.prod(shape))
        if name in ("ln1w", "ln2w", "lnfw"):
            w = np.ones(size, np.float32)
        elif not decay:
            w = np.zeros(size, np.float32)
        else:
            std = residual_std if name in ("attprojw", "fcprojw") else 0.02
            normal = rng.normal
            w = np.fromiter((normal() * std for _ in range(size)), np.float64, size)
            w = w.astype(np.float32)
        out[name] = w.reshape(shape)
    return out


def flatten(params, L, C, T):
    return np.concatenate([params[n].reshape(-1) for n, _, _ in param_shapes(L, C, T)])


def unflatten(flat, L, C, T):
    out, at = {}, 0
    for name, shape, _ in param_shapes(L, C, T):
        size = int(np.prod(shape))
        out[name] = np.asarray(flat[at:at + size], np.float32).reshape(shape)
        at += size
    return out


class WindowSampler:
    """src/engine/data.cc WindowSampler: B windows of T+1 tokens per batch, starts from
    Rng(seed ^ salt).below(n - T). Its whole state is the Rng's."""

    def __init__(self, tokens, T, seed):
        self.tokens, self.T = tokens, T
        self.rng = Rng((seed ^ SAMPLER_SALT) & MASK64)

    def next(self, B):
        """(B, T+1) int64: inputs are [:, :T], targets [:, 1:]."""
        starts = len(self.tokens) - self.T
        s = np.array([self.rng.below(starts) for _ in range(B)], np.int64)
        return np.asarray(self.tokens[s[:, None] + np.arange(self.T + 1)], np.int64)


def make_eval_windows(n, T, max_windows):
    """src/engine/data.cc MakeEvalWindows: [(start, first_counted)]."""
    windows, start = [], 0
    while start + T + 1 <= n:
        windows.append((start, 0))
        start += T
    if start < n - 1:
        last = n - T - 1
        windows.append((last, start - last))
    if max_windows <= 0 or len(windows) <= max_windows:
        return windows
    count = len(windows)
    return [windows[k * count // max_windows] for k in range(max_windows)]


def learning_rate(step, steps, warmup, max_lr, min_ratio):
    """src/engine/optimizer.cc LearningRate, in its float and double arithmetic."""
    f32 = np.float32
    max_lr, min_ratio = f32(max_lr), f32(min_ratio)
    if step < warmup:
        return float(f32(max_lr * f32(step + 1)) / f32(warmup))
    min_lr = float(max_lr) * float(min_ratio)
    span = max(1, steps - warmup)
    progress = min(1.0, (step - warmup) / span)
    return float(f32(min_lr + 0.5 * (float(max_lr) - min_lr) * (1.0 + math.cos(math.pi *
                                                                               progress))))


def read_tokens(path, what, min_tokens):
    """tokens.bin (headerless little-endian uint16, doc/trainers.md) by memory map, checked."""
    if not os.path.isfile(path):
        raise InputError("%s: %s: no such file" % (what, path))
    size = os.path.getsize(path)
    if size % 2:
        raise InputError("%s: %s: %d bytes, not a whole number of uint16 tokens" % (what, path,
                                                                                   size))
    if size // 2 < min_tokens:
        raise InputError("%s: %s: %d tokens, fewer than one context window of %d; give more data "
                         "or a smaller --context" % (what, path, size // 2, min_tokens))
    tokens = np.memmap(path, dtype="<u2", mode="r")
    top = int(tokens.max())
    if top > BOUNDARY:
        at = int(np.argmax(tokens > BOUNDARY))
        raise InputError("%s: %s: token %d at index %d is outside the byte vocabulary (0..256)"
                         % (what, path, top, at))
    return tokens


class InputError(Exception):
    """Bad input or usage: the trainer exits 2 with the message."""


INIT_MAGIC = b"PFINIT01"
INIT_FIELDS = ("layers", "d_model", "heads", "context", "vocab", "seed", "count")


def write_init(path, L, C, NH, T, seed, flat):
    """The PFINIT01 file of doc/trainers.md, written atomically."""
    flat = np.asarray(flat, "<f4")
    header = INIT_MAGIC + struct.pack("<7Q", L, C, NH, T, VOCAB, seed, flat.size)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header)
        f.write(flat.tobytes())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_init(path, L, C, NH, T, seed):
    """A PFINIT01 file's parameters (flat float32), its header checked against the shape."""
    if not os.path.isfile(path):
        raise InputError("--init %s: no such file" % path)
    with open(path, "rb") as f:
        head = f.read(64)
        if len(head) < 64 or head[:8] != INIT_MAGIC:
            raise InputError("--init %s: not a PFINIT01 file (bad magic or shorter than its "
                             "64-byte header)" % path)
        values = dict(zip(INIT_FIELDS, struct.unpack("<7Q", head[8:])))
        want = {"layers": L, "d_model": C, "heads": NH, "context": T, "vocab": VOCAB,
                "seed": seed, "count": param_count(L, C, T)}
        for key in INIT_FIELDS:
            if values[key] != want[key]:
                raise InputError("--init %s: header says %s %d, this run has %d; write the "
                                 "file for this model and seed" % (path, key, values[key],
                                                                   want[key]))
        flat = np.frombuffer(f.read(), "<f4")
    if flat.size != want["count"]:
        raise InputError("--init %s: %d floats after the header, the header says %d (truncated?)"
                         % (path, flat.size, want["count"]))
    return flat.astype(np.float32)


def tokenize(texts):
    """src/engine/data.cc Tokenize: for each document the boundary token, then its UTF-8 bytes."""
    out = []
    for text in texts:
        out.append(BOUNDARY)
        out.extend(text.encode("utf-8"))
    return np.array(out, "<u2")
