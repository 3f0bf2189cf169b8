#!/usr/bin/env python3
"""The smoke step of bench/gpu/run.sh, run with the trainer's Python: what this torch and device
are, and what one training step of the pilot's shape costs eager and compiled.

    python3 bench/gpu/smoke.py --trainer-dir gpu-bundle/trainer/torch --device cuda \\
        --layers 6 --d-model 384 --heads 6 --context 256 --batch 32

Prints JSON lines on stdout, flushed one by one, so that a caller that stops it (the compile
probe has a deadline) keeps what came before:
  {"stage": "device", ...}   torch version, device name, bf16, SDPA, torch.compile, and on a GPU
                             the bf16 matmul rate of 8192^3 products (the measured ceiling)
  {"stage": "eager", ...}    seconds per training step, eager (the median of --steps)
  {"stage": "compiled", ...} with --compile-steps S: the first compiled step's seconds (the
                             compilation) and then seconds per step; or, when that has not
                             finished after S x the eager step (compiling cannot pay by then) or
                             --compile-limit seconds, {"stage": "compiled", "timeout": ...}, and
                             the process exits at once
The step is train.py's: the trainer's own GPT (torch_model.py), bf16 autocast on a GPU, SDPA and
fused AdamW where torch has them (torch_compat.py), gradient clipping; random weights and tokens
(the cost does not depend on them).
"""
import argparse
import json
import os
import statistics
import sys
import threading
import time


def emit(record):
    print(json.dumps(record), flush=True)


def sync(torch, cuda):
    if cuda:
        torch.cuda.synchronize()


def device_info(torch, compat, cuda):
    info = {"stage": "device", "torch": torch.__version__, "cuda": bool(cuda),
            "compile_available": compat.can_compile(torch)[0],
            "sdpa_available": compat.has_sdpa(torch)}
    if not cuda:
        return info
    info.update(device_name=torch.cuda.get_device_name(),
                capability=".".join(map(str, torch.cuda.get_device_capability())),
                bf16=bool(torch.cuda.is_bf16_supported()),
                memory_gib=torch.cuda.get_device_properties(0).total_memory / 2**30)
    # The matmul ceiling, measured (H200.md: datasheet rates are leads): random operands, three
    # warm-ups, the median of ten timed products.
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    times = []
    for i in range(13):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        a @ b
        end.record()
        end.synchronize()
        if i >= 3:
            times.append(start.elapsed_time(end) / 1e3)
    info["matmul_bf16_tflops"] = 2 * n ** 3 / statistics.median(times) / 1e12
    return info


class Step:
    """One optimizer step of the pilot's shape, as train.py takes it."""

    def __init__(self, torch, compat, model, a, cuda):
        self.torch, self.compat, self.a, self.cuda = torch, compat, a, cuda
        self.device = torch.device("cuda" if cuda else "cpu")
        g = torch.Generator().manual_seed(1)
        params = model.init_params(a.layers, a.d_model, a.context, g)
        self.model = model.Gpt(params, a.layers, a.heads,
                               cuda and compat.has_sdpa(torch)).to(self.device)
        self.opt = model.make_optimizer(self.model.p, 1e-3, **compat.adamw_options(torch, cuda))
        self.tokens = torch.randint(0, 257, (a.batch, a.context + 1), generator=g)
        self.call = self.model

    def __call__(self):
        torch = self.torch
        batch = self.tokens.to(self.device, non_blocking=True)
        with self.compat.autocast(torch, self.cuda):
            loss = self.call(batch[:, :-1], batch[:, 1:])
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(self.model.parameters()), 1.0)
        self.opt.step()

    def timed(self, steps):
        """The median seconds of `steps` steps, each synchronised."""
        times = []
        for _ in range(steps):
            start = time.perf_counter()
            self()
            sync(self.torch, self.cuda)
            times.append(time.perf_counter() - start)
        return statistics.median(times)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trainer-dir", required=True, help="the folder of train.py")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cuda")
    for flag in ("layers", "d-model", "heads", "context", "batch"):
        ap.add_argument("--" + flag, type=int, required=True)
    ap.add_argument("--steps", type=int, default=20, help="timed steps, after 3 warm-ups")
    ap.add_argument("--compile-steps", type=int, default=0,
                    help="the run's steps: also time the compiled step, for at most that many "
                         "eager steps' time (0: not)")
    ap.add_argument("--compile-limit", type=float, default=90, help="seconds, at most")
    a = ap.parse_args(argv)
    sys.path.insert(0, a.trainer_dir)
    import torch
    import torch_compat as compat
    import torch_model as model
    cuda = a.device == "cuda"
    if cuda and not torch.cuda.is_available():
        print("smoke: --device cuda: no CUDA device is visible to torch %s" % torch.__version__,
              file=sys.stderr)
        return 2
    if cuda:
        compat.enable_tf32(torch)
    emit(device_info(torch, compat, cuda))
    step = Step(torch, compat, model, a, cuda)
    step.timed(3)
    eager = step.timed(a.steps)
    emit({"stage": "eager", "step_seconds": eager, "tokens_per_step": a.batch * a.context})
    if a.compile_steps and compat.can_compile(torch)[0]:
        compiled(torch, step, a, eager)
    return 0


def compiled(torch, step, a, eager):
    """Times the compiled step; a watchdog ends the process once compiling cannot pay."""
    deadline = min(a.compile_steps * eager, a.compile_limit)

    def give_up():
        emit({"stage": "compiled", "timeout": deadline})
        os._exit(0)

    watchdog = threading.Timer(deadline, give_up)
    watchdog.start()
    step.call = torch.compile(step.model)
    start = time.perf_counter()
    step()
    sync(torch, step.cuda)
    first = time.perf_counter() - start
    per_step = step.timed(a.steps)
    watchdog.cancel()
    emit({"stage": "compiled", "first_step_seconds": first, "step_seconds": per_step})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
