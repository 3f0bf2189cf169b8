#!/usr/bin/env python3
"""scripts/check-layering against uses planted where its table forbids them.

    layering_test.py CHECK_LAYERING ROOT

A small made-up tree (three modules and a sub-library with its own row) passes, then fails once
for each planted use (an upward #include, an upward link, a header of a sub-library used by a
module its row does not allow, a folder with no row, a table naming a row below), each time naming
the planted file and line. Then a copy of ROOT's table and src/ fails on one upward #include
planted in src/base. Python 3 standard library only.
"""

import os
import shutil
import subprocess
import sys
import tempfile

TABLE = """# made up

## Modules

| module | owns | uses |
|---|---|---|
| `low` | the bottom | — |
| `mid_maths` | `preflight_mid_maths` in `src/mid/` | low |
| `mid` | the rest of `src/mid/` | low, mid_maths (remark, with a comma) |
| `top` | the jobs | every module above |

## Next section

| `ignored` | not a module row | nothing |
"""

FILES = {
    "src/low/CMakeLists.txt": "add_library(preflight_low low.cc)\n",
    "src/low/low.h": "#pragma once\n",
    "src/low/low.cc": '#include "low/low.h"\n',
    "src/mid/CMakeLists.txt": (
        "add_library(preflight_mid_maths maths.cc)  # the arithmetic\n"
        "target_link_libraries(preflight_mid_maths PUBLIC preflight_low)\n"
        "add_library(preflight_mid\n  mid.cc)\n"
        "target_link_libraries(preflight_mid PUBLIC preflight_low\n"
        "                      PRIVATE preflight_mid_maths fmt::fmt)\n"),
    "src/mid/maths.h": "#pragma once\n#include <vector>\n",
    "src/mid/maths.cc": '#include "mid/maths.h"\n#include "low/low.h"\n',
    "src/mid/plain.h": "#pragma once\n",
    "src/mid/mid.cc": '#include "mid/maths.h"\n#include "mid/plain.h"\n#include "low/low.h"\n',
    "src/top/CMakeLists.txt": (
        "add_executable(preflight main.cc)\n"
        "target_link_libraries(preflight PRIVATE preflight_mid\n"
        '  "$<IF:${_preflight_x},preflight_low,preflight_mid_maths>")\n'),
    "src/top/main.cc": '#include "mid/mid.h"\n#include "mid/maths.h"\n#include "low/low.h"\n',
}


def write_tree(root):
    with open(os.path.join(root, "doc", "design.md"), "w", encoding="utf-8") as f:
        f.write(TABLE)
    for path, text in FILES.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def run(check, root):
    r = subprocess.run([sys.executable, check, root], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def append(root, path, text):
    with open(os.path.join(root, path), "a", encoding="utf-8") as f:
        f.write(text)


def expect(failures, name, got, code, *needles):
    rc, out = got
    missing = [n for n in needles if n not in out]
    if rc != code or missing:
        failures.append(f"{name}: exit {rc} (want {code}), missing {missing}; output:\n{out}")


def planted_cases(check, base, failures):
    """Each case: a fresh copy of the made-up tree, one plant, the exit and words expected."""
    cases = [
        ("an upward #include", "src/low/low.cc", '#include "mid/plain.h"\n', 1,
         ["src/low/low.cc:2: low uses mid", '#include "mid/plain.h"', "allows low: nothing"]),
        ("a sub-library's header above its row", "src/mid/maths.h", '#include "mid/plain.h"\n', 1,
         ["src/mid/maths.h:3: mid_maths uses mid", "allows mid_maths: low"]),
        ("an upward link", "src/low/CMakeLists.txt",
         "target_link_libraries(preflight_low\n  PRIVATE preflight_mid)\n", 1,
         ["src/low/CMakeLists.txt:3: low uses mid (preflight_low links preflight_mid)"]),
        ("a folder with no row", "src/extra/extra.cc", "int x;\n", 2,
         ["src/extra/ has no row"]),
        ("a row using one below it", "doc/design.md",
         "", 2, ["doc/design.md:7: `low` uses `top`, below it"]),
    ]
    for name, path, text, code, needles in cases:
        root = os.path.join(base, name.replace(" ", "-").replace("'", ""))
        os.makedirs(os.path.join(root, "doc"))
        write_tree(root)
        if path == "doc/design.md":
            table = os.path.join(root, path)
            with open(table, encoding="utf-8") as f:
                text = f.read().replace("| `low` | the bottom | — |", "| `low` | the bottom | top |")
            with open(table, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            append(root, path, text)
        expect(failures, name, run(check, root), code, *needles)


def main():
    check, real = sys.argv[1], sys.argv[2]
    scratch = os.environ.get("PREFLIGHT_TEST_TMP") or None
    if scratch:
        os.makedirs(scratch, exist_ok=True)
    failures = []
    with tempfile.TemporaryDirectory(dir=scratch) as base:
        clean = os.path.join(base, "clean")
        os.makedirs(os.path.join(clean, "doc"))
        write_tree(clean)
        expect(failures, "the made-up tree as written", run(check, clean), 0)
        planted_cases(check, base, failures)

        # The real table and src/, with one upward include planted in base.
        copy = os.path.join(base, "real")
        os.makedirs(os.path.join(copy, "doc"))
        shutil.copy(os.path.join(real, "doc", "design.md"), os.path.join(copy, "doc"))
        shutil.copytree(os.path.join(real, "src"), os.path.join(copy, "src"),
                        ignore=shutil.ignore_patterns("*.py", "*.json", "*.in", "torch"))
        expect(failures, "a copy of the tree", run(check, copy), 0)
        target = os.path.join(copy, "src", "base", "file.cc")
        with open(target, encoding="utf-8") as f:
            lines = f.read().split("\n")
        lines.insert(1, '#include "trial/spec.h"')
        with open(target, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        expect(failures, "the tree with base including trial", run(check, copy), 1,
               "src/base/file.cc:2: base uses trial", '#include "trial/spec.h"')
    for failure in failures:
        print("FAIL " + failure)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
