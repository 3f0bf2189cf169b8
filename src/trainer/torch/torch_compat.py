"""What differs between the torch versions the trainer runs on: Debian's 1.13 (CI and CPUs) and
2.x (the lent GPU machine has 2.11). Every call that only one of them has goes through here,
with the check that picks it; tests/trainer_torch/torch_compat_test.py drives both sides of each
check with a stand-in module.

  what                       torch 2.x                              torch 1.13
  torch.compile              there                                  absent: eager
  scaled_dot_product_attn.   there (flash attention on a GPU)       absent: softmax(QK^T)V
  TF32 for float32 matmuls   matmul.fp32_precision (2.9+, where     allow_tf32; reading
                             setting allow_tf32 warns)              fp32_precision raises
                                                                    AssertionError, not
                                                                    AttributeError
  autocast                   torch.autocast (torch.cuda.amp's is    torch.autocast
                             deprecated since 2.4)
  torch.load(weights_only)   True by default since 2.6: asked for   there, but its unpickler
                                                                    cannot read a float: not
                                                                    asked for
  AdamW(fused=True)          there: one kernel per step on a GPU    absent: torch's default
"""
import contextlib
import inspect


def has(obj, name):
    """Whether obj.name exists. torch 1.13's backends modules raise AssertionError for an unknown
    name, which hasattr() lets through."""
    try:
        getattr(obj, name)
    except (AttributeError, AssertionError):
        return False
    return True


def accepts(function, parameter):
    """Whether function takes a parameter of that name (False where it has no signature)."""
    try:
        return parameter in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def can_compile(torch):
    """(True, "") where torch.compile exists, else (False, why)."""
    if has(torch, "compile"):
        return True, ""
    return False, "torch %s has no torch.compile (2.x has)" % torch.__version__


def has_sdpa(torch):
    """Whether F.scaled_dot_product_attention exists (torch 2.x)."""
    return has(torch.nn.functional, "scaled_dot_product_attention")


def enable_tf32(torch):
    """Lets float32 matmuls on a GPU use TF32; returns the switch it set."""
    matmul = torch.backends.cuda.matmul
    if has(matmul, "fp32_precision"):
        matmul.fp32_precision = "tf32"
        return "fp32_precision"
    matmul.allow_tf32 = True
    return "allow_tf32"


def autocast(torch, cuda):
    """bfloat16 autocast on a GPU; on the CPU nothing (float32)."""
    if not cuda:
        return contextlib.nullcontext()
    if has(torch, "autocast"):
        return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
    return torch.cuda.amp.autocast(dtype=torch.bfloat16)


def major_version(torch):
    """torch's major version number (0 where __version__ does not start with one)."""
    head = str(getattr(torch, "__version__", "0")).split(".")[0]
    return int(head) if head.isdigit() else 0


def load_checkpoint(torch, path):
    """torch.load onto the CPU. On 2.x with the restricted unpickler (tensors, numbers, strings,
    lists, dicts: what train.py writes), its default since 2.6, asked for so that every 2.x reads
    the same way; 1.13 has the argument, but its unpickler stops at the first float
    ("Unsupported operand 71"), so there the checkpoint, the run's own file, loads in full."""
    if major_version(torch) >= 2 and accepts(torch.load, "weights_only"):
        return torch.load(path, map_location="cpu", weights_only=True)
    return torch.load(path, map_location="cpu")


def adamw_options(torch, cuda):
    """AdamW's extra arguments: fused=True on a GPU where AdamW has it, else none."""
    if cuda and accepts(torch.optim.AdamW, "fused"):
        return {"fused": True}
    return {}
