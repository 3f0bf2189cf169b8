#!/usr/bin/env python3
"""preflight's PyTorch trainer (`preflight trial --trainer torch`; doc/torch-trainer.md).

The engine's training run, step for step: the same GPT (torch_model.py), initial weights (the
engine's RNG, or --init), training windows, eval windows and eval loss, learning-rate schedule,
AdamW and clipping (engine.py), on a CPU in float32 or a CUDA GPU in bfloat16 autocast, under
torchrun as DDP. Writes the curve ({"step","tokens","eval_bpb"} per line) and run.json, and
resumes from RUN_DIR/checkpoint.pt. Any error: one line on stderr, exit 2 (bad input, usage,
divergence) or 1 (anything else).

    /usr/bin/python3 src/trainer/torch/train.py --train A/tokens.bin --eval E/tokens.bin \\
        --run-dir RUN --model tiny --steps 300 --seed 1 --device cpu
"""
import argparse
import hashlib
import json
import math
import os
import sys
import time

# OpenMP reads its wait policy once, when it loads (with numpy or torch, below). Spinning waits
# make CPU training collapse on a shared machine (src/cli/main.cc, which sets the same for the
# engine and, through the environment, for this script when preflight launches it).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import engine  # noqa: E402
import torch_compat  # noqa: E402
from engine import InputError  # noqa: E402

PROG = "train.py"
COMPILE_CHOICES = ("auto", "on", "off")
CHECKPOINT_FORMAT = "preflight-torch-checkpoint-1"


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        raise InputError(message + " (see --help)")


def parse_args(argv):
    ap = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", help="the arm's tokens.bin (uint16 byte tokens)")
    ap.add_argument("--eval", help="T_eval's tokens.bin")
    ap.add_argument("--run-dir", help="run folder: checkpoint.pt, run.json (created)")
    ap.add_argument("--curve", help="the curve's path (default RUN_DIR/curve.jsonl)")
    ap.add_argument("--model", choices=sorted(engine.NAMED_MODELS), default="small",
                    help="a named shape; the flags below override its parts")
    for flag in ("layers", "d-model", "heads", "context", "batch"):
        ap.add_argument("--" + flag, type=int)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup-steps", type=int, default=-1, help="-1: min(100, steps/10)")
    ap.add_argument("--min-lr-ratio", type=float, default=0.1)
    ap.add_argument("--eval-every", type=int, default=0, help="0: max(1, steps/20)")
    ap.add_argument("--eval-windows", type=int, default=0, help="0: every window of the eval set")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--compile", choices=COMPILE_CHOICES,
                    default=os.environ.get("PREFLIGHT_TORCH_COMPILE") or "auto",
                    help="torch.compile (torch 2.x); auto: on for cuda; the default comes from "
                         "$PREFLIGHT_TORCH_COMPILE when set (bench/gpu/run.sh decides it)")
    ap.add_argument("--init", help="initial weights, a PFINIT01 file (doc/trainers.md)")
    ap.add_argument("--dump-init", metavar="PATH",
                    help="write the engine's initial weights for the model and seed as a "
                         "PFINIT01 file, and exit")
    a = ap.parse_args(argv)
    if a.compile not in COMPILE_CHOICES:  # argparse checks the flag, not the default
        raise InputError("PREFLIGHT_TORCH_COMPILE is %r: auto, on or off" % a.compile)
    shape = dict(zip(("layers", "d_model", "heads", "context", "batch"),
                     engine.NAMED_MODELS[a.model]))
    for key in shape:
        if getattr(a, key) is not None:
            shape[key] = getattr(a, key)
    for key, value in shape.items():
        if value <= 0:
            raise InputError("--%s must be positive, got %d" % (key.replace("_", "-"), value))
        setattr(a, key, value)
    if a.d_model % a.heads:
        raise InputError("--d-model %d is not divisible by --heads %d" % (a.d_model, a.heads))
    if a.steps < 0 or a.eval_every < 0 or a.eval_windows < 0 or a.threads < 0:
        raise InputError("--steps, --eval-every, --eval-windows and --threads must be >= 0")
    if not (a.lr > 0 and math.isfinite(a.lr)):
        raise InputError("--lr must be a positive number")
    a.eval_every = a.eval_every or max(1, a.steps // 20)
    if a.warmup_steps < 0:
        a.warmup_steps = min(100, a.steps // 10)
    if a.dump_init is None:
        for flag in ("train", "eval", "run_dir"):
            if not getattr(a, flag):
                raise InputError("--%s is required" % flag.replace("_", "-"))
        a.curve = a.curve or os.path.join(a.run_dir, "curve.jsonl")
    return a


def import_torch():
    try:
        import torch
    except ImportError as e:
        raise InputError("PyTorch is not importable (%s): install python3-torch (Debian) or "
                         "torch, or launch with a Python that has it" % e)
    return torch


class Dist:
    """torchrun's environment: this process's rank and the world size (1 without torchrun)."""

    def __init__(self, batch):
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        if self.world < 1 or not 0 <= self.rank < self.world:
            raise InputError("RANK %d, WORLD_SIZE %d: not a valid torchrun environment"
                             % (self.rank, self.world))
        if batch % self.world:
            raise InputError("--batch %d does not divide among %d processes (WORLD_SIZE); give "
                             "a batch that is a multiple of the process count"
                             % (batch, self.world))
        self.main = self.rank == 0

    def start(self, torch, device):
        if self.world > 1:
            torch.distributed.init_process_group("nccl" if device == "cuda" else "gloo")

    def stop(self, torch):
        if self.world > 1 and torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()


def write_atomically(path, data):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fingerprint(a):
    """Everything that determines the curve (the engine's rule: trainer.cc Fingerprint)."""
    return {"model": [a.layers, a.d_model, a.heads, a.context, a.batch, engine.VOCAB],
            "steps": a.steps, "seed": a.seed, "lr": float(np.float32(a.lr)),
            "warmup_steps": a.warmup_steps, "min_lr_ratio": float(np.float32(a.min_lr_ratio)),
            "eval_every": a.eval_every, "eval_windows": a.eval_windows,
            "train_sha256": sha256_file(a.train), "eval_sha256": sha256_file(a.eval)}


def gpu_peak(torch):
    """(dense bf16 FLOP/s, source) of this GPU from the project's catalogue
    (src/cost/hardware.json, each figure with its data sheet), or (None, why)."""
    name = torch.cuda.get_device_name().upper()
    if "H200" in name:
        key = "H200"
    elif "H100" in name:
        key = None if "NVL" in name else "H100-PCIe" if "PCIE" in name else "H100-SXM"
    elif "A100" in name:
        key = "A100-80GB" if "80G" in name else "A100-40GB"
    else:
        key = None
    path = os.path.join(HERE, "..", "..", "cost", "hardware.json")
    if key is None or not os.path.isfile(path):
        return None, "no peak known for %s" % name
    with open(path) as f:
        for gpu in json.load(f)["gpus"]:
            if gpu["name"] == key:
                return gpu["bf16_dense_tflops"] * 1e12, key + ": " + gpu["source"]
    return None, "no peak known for %s" % name


class Inputs:
    """The run's files, read with numpy alone: the token files, and the --init weights unless the
    run resumes from its checkpoint (which holds its weights)."""

    def __init__(self, a):
        self.train_tokens = engine.read_tokens(a.train, "--train", a.context + 1)
        self.eval_tokens = engine.read_tokens(a.eval, "--eval", a.context + 1)
        self.init = None
        if a.init and not os.path.exists(os.path.join(a.run_dir, "checkpoint.pt")):
            self.init = engine.read_init(a.init, a.layers, a.d_model, a.heads, a.context, a.seed)


class Run:
    """One training run: the model, optimizer, sampler, eval set, curve and clocks."""

    def __init__(self, a, dist, torch, inputs):
        self.a, self.dist, self.torch = a, dist, torch
        self.cuda = a.device == "cuda"
        self.device = torch.device("cuda", dist.local_rank) if self.cuda else torch.device("cpu")
        self.T, self.B = a.context, a.batch
        self.train_tokens, self.eval_tokens = inputs.train_tokens, inputs.eval_tokens
        self.init = inputs.init
        self.windows = engine.make_eval_windows(len(self.eval_tokens), a.context, a.eval_windows)
        self.sampler = engine.WindowSampler(self.train_tokens, a.context, a.seed)
        self.print = (lambda msg: print("%s: %s" % (PROG, msg), file=sys.stderr, flush=True)) \
            if dist.main else (lambda msg: None)
        self.fingerprint = fingerprint(a)
        self.ckpt_path = os.path.join(a.run_dir, "checkpoint.pt")
        self.step, self.curve, self.prior_seconds, self.resumed = 0, [], 0.0, False
        self.last_saved, self.pending, self.last_loss = -1, [], float("nan")
        self.seconds, self.eval_seconds, self.first_step = 0.0, 0.0, 0
        self.warmup_seconds = 0.0

    def autocast(self):
        return torch_compat.autocast(self.torch, self.cuda)

    def build(self, params):
        """The module on the device, the optimizer, and the training callable (compiled, DDP)."""
        torch, a = self.torch, self.a
        import torch_model
        self.fused_attention = self.cuda and torch_compat.has_sdpa(torch)
        self.model = torch_model.Gpt(params, a.layers, a.heads,
                                     self.fused_attention).to(self.device)
        self.adamw = torch_compat.adamw_options(torch, self.cuda)
        self.opt = torch_model.make_optimizer(self.model.p, a.lr, **self.adamw)
        self.compiled = a.compile == "on" or (a.compile == "auto" and self.cuda)
        can, why = torch_compat.can_compile(torch)
        if self.compiled and not can:
            if a.compile == "on":
                raise InputError("--compile on: " + why)
            self.compiled = False
        step_model = self.model
        if self.dist.world > 1:
            from torch.nn.parallel import DistributedDataParallel
            step_model = DistributedDataParallel(
                self.model, device_ids=[self.dist.local_rank] if self.cuda else None)
        self.step_model = torch.compile(step_model) if self.compiled else step_model

    def initial_params(self):
        a = self.a
        if self.init is not None:
            return engine.unflatten(self.init, a.layers, a.d_model, a.context)
        return engine.init_weights(a.layers, a.d_model, a.context, a.seed)

    def load_or_init(self):
        torch = self.torch
        if not os.path.exists(self.ckpt_path):
            self.build(self.initial_params())
            return
        try:
            ck = torch_compat.load_checkpoint(torch, self.ckpt_path)
        except Exception as e:  # a damaged file: say which
            raise InputError("%s: unreadable checkpoint (%s); delete it to start over"
                             % (self.ckpt_path, e))
        if not isinstance(ck, dict) or ck.get("format") != CHECKPOINT_FORMAT:
            raise InputError("%s: not a checkpoint of this trainer" % self.ckpt_path)
        if ck["fingerprint"] != self.fingerprint:
            diff = sorted(k for k in self.fingerprint if ck["fingerprint"].get(k) !=
                          self.fingerprint[k])
            raise InputError("%s: a checkpoint of a different run (%s differ); use a new run "
                             "folder, or delete it to start over"
                             % (self.ckpt_path, ", ".join(diff)))
        self.build(ck["params"])
        self.opt.load_state_dict(ck["optimizer"])
        self.sampler.rng.state = [int(x) for x in ck["rng"]]
        self.step = self.last_saved = ck["step"]
        self.curve = ck["curve"]
        self.prior_seconds = ck["train_seconds"]
        self.resumed = True
        if self.dist.main:  # the checkpoint rules over a curve written after it
            self.write_curve()

    def save_checkpoint(self):
        if not self.dist.main or self.last_saved == self.step:
            return
        import io
        buf = io.BytesIO()
        self.torch.save({"format": CHECKPOINT_FORMAT, "fingerprint": self.fingerprint,
                         "step": self.step, "rng": list(self.sampler.rng.state),
                         "params": {n: t.detach().cpu() for n, t in self.model.p.items()},
                         "optimizer": self.opt.state_dict(), "curve": self.curve,
                         "train_seconds": self.train_seconds()}, buf)
        write_atomically(self.ckpt_path, buf.getvalue())
        self.last_saved = self.step

    def write_curve(self):
        lines = "".join(json.dumps({"step": p["step"], "tokens": p["tokens"],
                                    "eval_bpb": p["eval_bpb"]}) + "\n" for p in self.curve)
        write_atomically(self.a.curve, lines.encode())

    def evaluate(self):
        """trainer.cc Evaluate: the mean loss over the counted positions, in bits."""
        torch, T, B = self.torch, self.T, self.B
        offsets = np.arange(T + 1)
        total, count = 0.0, 0
        with torch.no_grad(), self.autocast():
            for w0 in range(0, len(self.windows), B):
                chunk = self.windows[w0:w0 + B]
                starts = [w[0] for w in chunk] + [chunk[-1][0]] * (B - len(chunk))
                rows = np.asarray(self.eval_tokens[np.array(starts)[:, None] + offsets], np.int64)
                batch = torch.from_numpy(rows).to(self.device)
                losses = self.model(batch[:, :T], batch[:, 1:], reduction="none")
                losses = losses.float().cpu().numpy().astype(np.float64)
                for b, (_, first) in enumerate(chunk):
                    total += float(losses[b, first:].sum())
                    count += T - first
        return total / count / math.log(2.0)

    def diverged(self, step, what, value):
        kept = ("the last good checkpoint (step %d) is kept in %s" % (self.last_saved,
                                                                      self.ckpt_path)
                if self.last_saved >= 0 else "no checkpoint was written")
        return InputError("training diverged at step %d: %s is %s; %s; lower --lr"
                          % (step, what, "NaN" if math.isnan(value) else "infinite", kept))

    def check_pending(self):
        """Each step's loss and gradient norm must be finite (read back in one transfer)."""
        if not self.pending:
            return
        steps = [s for s, _, _ in self.pending]
        values = self.torch.stack([v for _, l, n in self.pending for v in (l, n)]).cpu().tolist()
        self.pending = []
        for i, step in enumerate(steps):
            loss, norm = values[2 * i], values[2 * i + 1]
            if not math.isfinite(loss):
                raise self.diverged(step, "the training loss", loss)
            if not math.isfinite(norm):
                raise self.diverged(step, "the gradient norm", norm)
            self.last_loss = loss

    def train_step(self):
        """One optimizer step as optimizer.cc TrainStep takes it; every rank draws all B
        windows and trains on its slice of them."""
        torch, a = self.torch, self.a
        lr = engine.learning_rate(self.step, a.steps, a.warmup_steps, a.lr, a.min_lr_ratio)
        for group in self.opt.param_groups:
            group["lr"] = lr
        rows = self.sampler.next(self.B)
        per_rank = self.B // self.dist.world
        rows = rows[self.dist.rank * per_rank:(self.dist.rank + 1) * per_rank]
        batch = torch.from_numpy(rows).to(self.device, non_blocking=True)
        with self.autocast():
            loss = self.step_model(batch[:, :self.T], batch[:, 1:])
        if not self.cuda and not math.isfinite(loss.item()):  # stop before the backward
            raise self.diverged(self.step + 1, "the training loss", loss.item())
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(list(self.model.parameters()), 1.0)
        self.pending.append((self.step + 1, loss.detach().float(), norm.detach().float()))
        if not self.cuda:
            self.check_pending()  # before the update, as the engine
        self.opt.step()
        self.step += 1
        if len(self.pending) >= 100:
            self.check_pending()

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize(self.device)

    def train_seconds(self):
        """Wall seconds of training steps and evals over every invocation (doc/trainers.md)."""
        return self.prior_seconds + self.seconds + self.eval_seconds

    def loop(self):
        """trainer.cc RunLoop: eval at step 0, every eval_every and at the end, a checkpoint at
        each eval. self.seconds times the steps, self.eval_seconds the evals and checkpoints."""
        a = self.a
        self.seconds, self.eval_seconds, self.first_step = 0.0, 0.0, self.step
        started = time.perf_counter()
        while True:
            due = self.step % a.eval_every == 0 or self.step == a.steps
            if due and (not self.curve or self.curve[-1]["step"] != self.step):
                self.check_pending()
                self.sync()
                now = time.perf_counter()
                self.seconds += now - started
                if self.dist.main:
                    self.eval_and_save()
                started = time.perf_counter()
                self.eval_seconds += started - now
            if self.step >= a.steps:
                break
            if self.step == self.first_step:  # compilation and warm-up: timed apart
                warmup = time.perf_counter()
                self.train_step()
                self.sync()
                self.warmup_seconds = time.perf_counter() - warmup
            else:
                self.train_step()
        self.check_pending()
        self.sync()
        self.seconds += time.perf_counter() - started
        self.save_checkpoint()

    def step_rate(self):
        """Training tokens per second of this invocation's steps after its first (evals, and the
        first step's compilation and warm-up, excluded); None before two steps."""
        steps = self.step - self.first_step - 1
        if steps < 1:
            return None
        return steps * self.B * self.T / max(self.seconds - self.warmup_seconds, 1e-9)

    def eval_and_save(self):
        bpb = self.evaluate()
        if not math.isfinite(bpb):
            raise self.diverged(self.step, "the eval loss", bpb)
        self.curve.append({"step": self.step, "tokens": self.step * self.B * self.T,
                           "eval_bpb": bpb})
        self.write_curve()
        self.save_checkpoint()
        rate = self.step_rate()
        self.print("step %d/%d  eval %.4f bpb  train loss %s  %s tok/s" % (
            self.step, self.a.steps, bpb, "-" if math.isnan(self.last_loss) else
            "%.4f" % self.last_loss, "-" if rate is None else "%.0f" % rate))

    def report(self):
        """run.json (doc/trainers.md) and the closing line on stderr. tokens_per_second is the
        contract's (over train_seconds, evals included); step_tokens_per_second and MFU are of
        this invocation's training steps alone."""
        torch, a = self.torch, self.a
        tokens_per_step = a.batch * a.context
        per_token = engine.flops_per_token(a.layers, a.d_model, a.context)
        seconds = self.train_seconds()
        step_rate = self.step_rate()
        out = {"params": engine.param_count(a.layers, a.d_model, a.context),
               "flops_per_step": per_token * tokens_per_step, "tokens_per_step": tokens_per_step,
               "device": a.device, "dtype": "bfloat16" if self.cuda else "float32",
               "world_size": self.dist.world, "torch": torch.__version__,
               "compiled": self.compiled, "train_seconds": seconds,
               "attention": "sdpa" if self.fused_attention else "explicit",
               "adamw": "fused" if self.adamw.get("fused") else "default",
               "tokens_per_second": self.step * tokens_per_step / seconds if seconds else 0.0,
               "step_seconds": self.seconds, "eval_seconds": self.eval_seconds,
               "first_step_seconds": self.warmup_seconds,
               "step_tokens_per_second": step_rate, "steps": self.step,
               "resumed": self.resumed, "threads": torch.get_num_threads(),
               "model": {"layers": a.layers, "d_model": a.d_model, "heads": a.heads,
                         "context": a.context, "batch": a.batch}}
        line = "done: %d steps" % self.step
        if step_rate:
            line += ", %.0f tokens/s in training steps" % step_rate
        if self.cuda:
            out["device_name"] = torch.cuda.get_device_name()
            peak, source = gpu_peak(torch)
            if peak and step_rate:
                out["mfu"] = step_rate * per_token / (peak * self.dist.world)
                out["peak_flops"], out["peak_source"] = peak, source
                line += ", MFU %.1f%% of %s bf16 dense" % (100 * out["mfu"], source.split(":")[0])
            elif not peak:
                line += " (MFU: %s)" % source
        write_atomically(os.path.join(a.run_dir, "run.json"),
                         (json.dumps(out, indent=1) + "\n").encode())
        self.print(line)


def run(argv):
    a = parse_args(argv)
    if a.dump_init:
        params = engine.init_weights(a.layers, a.d_model, a.context, a.seed)
        engine.write_init(a.dump_init, a.layers, a.d_model, a.heads, a.context, a.seed,
                          engine.flatten(params, a.layers, a.d_model, a.context))
        return
    dist = Dist(a.batch)
    inputs = Inputs(a)  # read and checked before torch is imported: a bad file fails at once
    torch = import_torch()
    if a.device == "cuda" and not torch.cuda.is_available():
        raise InputError("--device cuda: no CUDA device is visible to torch %s (no GPU, no "
                         "driver, or a CPU-only build)" % torch.__version__)
    if a.threads:
        torch.set_num_threads(a.threads)
    if a.device == "cuda":
        torch.cuda.set_device(dist.local_rank)
        torch_compat.enable_tf32(torch)
    os.makedirs(a.run_dir, exist_ok=True)
    r = Run(a, dist, torch, inputs)
    dist.start(torch, a.device)
    try:
        r.load_or_init()
        r.print("model %d layers, d_model %d, %d heads, context %d, batch %d: %d params, %.3g "
                "FLOPs/token; %s %s, %d process(es), torch %s%s%s" % (
                    a.layers, a.d_model, a.heads, a.context, a.batch,
                    engine.param_count(a.layers, a.d_model, a.context),
                    engine.flops_per_token(a.layers, a.d_model, a.context), a.device,
                    "bfloat16 autocast" if r.cuda else "float32", dist.world, torch.__version__,
                    ", compiled" if r.compiled else "",
                    ", resumed at step %d" % r.step if r.resumed else ""))
        r.loop()
        if dist.main:
            r.report()
    finally:
        dist.stop(torch)


def main(argv=None):
    try:
        run(sys.argv[1:] if argv is None else argv)
    except InputError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 2
    except Exception as e:  # one line, as the protocol asks; PREFLIGHT_DEBUG=1 for the trace
        if os.environ.get("PREFLIGHT_DEBUG"):
            raise
        print("%s: %s: %s" % (PROG, type(e).__name__, str(e).splitlines()[0] if str(e) else ""),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
