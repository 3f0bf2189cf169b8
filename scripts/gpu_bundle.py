#!/usr/bin/env python3
"""Assembles the GPU bundle; scripts/gpu-bundle.sh builds its binary, then runs this.

The folder (OUT):
  preflight            the binary (stripped; linked by cmake/Bundle.cmake, rpath $ORIGIN/lib)
  lib/                 every shared library ldd says it needs, glibc's excepted
  trainer/torch/       the PyTorch trainer (found beside the binary: src/trainer/torch_trainer.h)
  cost/hardware.json   the GPUs' peaks that train.py reports MFU against
  data/brown/          the demo target cj: its pool and targets, .jsonl.zst
  data/calibration/    battery.json: the calibration battery's targets on its most shared pool
                       (the mixed pool: 33 of 73 targets, 9 kinds), in the spec's order, with
                       that pool and their targets, .jsonl.zst
  bundle.json          the commit, the libraries, the glibc they need at least, and each
                       file's bytes and SHA-256

Make-like: a file is made again only when it is missing or its source is newer; files that are
no longer part of the bundle are removed. Exits 1 when the folder would exceed --max-mib.
Python 3 standard library; needs strip, ldd, objdump and zstd.
"""
import argparse
import collections
import hashlib
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The C runtime every Linux has: never copied (the bare machine's own must be used).
GLIBC = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2",
         "librt.so.1", "libresolv.so.2", "ld-linux-x86-64.so.2", "libutil.so.1", "libanl.so.1"}
TRAINER_DIR = os.path.join(ROOT, "src", "trainer", "torch")
ZSTD_LEVEL = "12"  # 15.7 MB of mixed pool: 4.0 MB in a few seconds (19: 3.8 MB in 52 s)


def fail(message, code=1):
    print("gpu-bundle: " + message, file=sys.stderr)
    sys.exit(code)


def shared_libraries(binary):
    """{soname: path} of every library ldd resolves for binary (recursively), glibc's excepted;
    exit 1 naming any it cannot find."""
    text = subprocess.run(["ldd", binary], check=True, capture_output=True, text=True).stdout
    libs, missing = {}, []
    for line in text.splitlines():
        parts = line.split()
        if "=>" not in parts:
            continue
        name, target = parts[0], parts[parts.index("=>") + 1]
        if os.path.basename(name) in GLIBC:
            continue
        if target == "not":
            missing.append(name)
        else:
            libs[name] = os.path.realpath(target)
    if missing:
        fail("%s needs %s, which ldd cannot find" % (binary, ", ".join(missing)))
    return libs


def battery_subset(battery_dir):
    """The spec's targets on its most shared pool, paths rewritten to .zst; and the files
    (relative to battery_dir) they read."""
    with open(os.path.join(battery_dir, "battery.json")) as f:
        spec = json.load(f)
    pool = collections.Counter(t["pool"] for t in spec["targets"]).most_common(1)[0][0]
    targets, files = [], [pool]
    for t in spec["targets"]:
        if t["pool"] != pool:
            continue
        t = dict(t)
        for key in ("pool", "target_select", "target_eval"):
            files.append(t[key])
            t[key] += ".zst"
        targets.append(t)
    spec["targets"] = targets
    spec["description"] = ("The GPU bundle's subset (scripts/gpu_bundle.py): the %d targets on "
                           "%s, in the full battery's order. " % (len(targets), pool)
                           + spec.get("description", ""))
    spec.pop("pools", None)
    return spec, sorted(set(files))


def plan(a):
    """[(path in the bundle, source, how)]; how: strip, copy or zstd."""
    items = [("preflight", a.binary, "strip")]
    items += [("lib/" + name, path, "copy") for name, path in shared_libraries(a.binary).items()]
    items += [("trainer/torch/" + f, os.path.join(TRAINER_DIR, f), "copy")
              for f in sorted(os.listdir(TRAINER_DIR)) if f.endswith(".py")]
    items.append(("cost/hardware.json", os.path.join(ROOT, "src", "cost", "hardware.json"),
                  "copy"))
    for f in ("pools/cj.jsonl", "targets/cj.select.jsonl", "targets/cj.eval.jsonl"):
        items.append(("data/brown/%s.zst" % f, os.path.join(a.brown, f), "zstd"))
    spec, files = battery_subset(a.battery)
    items += [("data/calibration/%s.zst" % f, os.path.join(a.battery, f), "zstd") for f in files]
    return items, spec


def make(dest, source, how):
    """Makes dest from source unless it is newer already; True when it did."""
    if os.path.exists(dest) and os.path.getmtime(dest) >= os.path.getmtime(source):
        return False
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = dest + ".tmp"
    if how == "strip":
        subprocess.run(["strip", "-o", tmp, source], check=True)
    elif how == "zstd":
        subprocess.run(["zstd", "-q", "-f", "-T0", "-" + ZSTD_LEVEL, "-o", tmp, source],
                       check=True)
    else:
        with open(source, "rb") as src, open(tmp, "wb") as out:
            out.write(src.read())
    os.chmod(tmp, 0o755 if how == "strip" else 0o644)
    os.replace(tmp, dest)
    return True


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return False
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    return True


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def remove_stale(out, keep):
    for base, _, names in os.walk(out, topdown=False):
        for name in names:
            path = os.path.join(base, name)
            if os.path.relpath(path, out) not in keep:
                os.remove(path)
        if base != out and not os.listdir(base):
            os.rmdir(base)


def glibc_needed(paths):
    """The newest GLIBC_x.y symbol version the binary and its libraries ask for, as "x.y"."""
    newest = (0,)
    for path in paths:
        dump = subprocess.run(["objdump", "-T", path], check=True, capture_output=True,
                              text=True).stdout
        for version in re.findall(r"\bGLIBC_([0-9]+(?:\.[0-9]+)*)\b", dump):
            newest = max(newest, tuple(int(x) for x in version.split(".")))
    return ".".join(map(str, newest))


def manifest(out, items, spec):
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    files = {rel: {"bytes": os.path.getsize(os.path.join(out, rel)),
                   "sha256": sha256(os.path.join(out, rel))} for rel, _, _ in items}
    files["data/calibration/battery.json"] = {
        "bytes": os.path.getsize(os.path.join(out, "data/calibration/battery.json"))}
    return {"format": "preflight-gpu-bundle-1", "commit": commit,
            "libraries": sorted(rel[4:] for rel, _, how in items if rel.startswith("lib/")),
            "glibc_needed": glibc_needed([os.path.join(out, rel) for rel, _, how in items
                                          if how == "strip" or rel.startswith("lib/")]),
            "calibration_targets": [t["name"] for t in spec["targets"]],
            "bytes": sum(f["bytes"] for f in files.values()), "files": files}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", required=True, help="build/preflight-bundle")
    ap.add_argument("--out", required=True)
    ap.add_argument("--battery", required=True, help="a built calibration battery's folder")
    ap.add_argument("--brown", required=True, help="data/brown")
    ap.add_argument("--max-mib", type=float, default=48)
    a = ap.parse_args(argv)
    items, spec = plan(a)
    os.makedirs(os.path.join(a.out, "data", "calibration"), exist_ok=True)
    made = sum(make(os.path.join(a.out, rel), src, how) for rel, src, how in items)
    made += write_if_changed(os.path.join(a.out, "data", "calibration", "battery.json"),
                             json.dumps(spec, indent=1) + "\n")
    keep = {rel for rel, _, _ in items} | {"data/calibration/battery.json", "bundle.json"}
    remove_stale(a.out, keep)
    info = manifest(a.out, items, spec)
    write_if_changed(os.path.join(a.out, "bundle.json"), json.dumps(info, indent=1) + "\n")
    mib = (info["bytes"] + os.path.getsize(os.path.join(a.out, "bundle.json"))) / 2**20
    largest = sorted(info["files"].items(), key=lambda kv: -kv[1]["bytes"])[:3]
    print("gpu-bundle: %s: %.1f MiB, %d files (%d made, the rest up to date); largest: %s" % (
        a.out, mib, len(info["files"]) + 1, made,
        ", ".join("%s %.1f MiB" % (k, v["bytes"] / 2**20) for k, v in largest)))
    if mib > a.max_mib:
        fail("%s is %.1f MiB, over the %.0f MiB a device call can carry beside the tree"
             % (a.out, mib, a.max_mib))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
