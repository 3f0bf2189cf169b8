#!/usr/bin/env python3
"""Builds the hold-out battery: targets from five corpora the calibration battery never saw.

The default calibration (src/forecast/default_calibration.cc) was fitted on the calibration
battery's ten corpora (scripts/calibration_battery.py). This battery cuts, pools and draws its
targets by the same rules and code, from five other kinds of text that Debian packages install:
Perl modules, CMake modules, glibc locale definitions, Linux UAPI headers and GNU Info manuals.
A battery run on it with the default calibration is an out-of-sample test of the forecast as
shipped: neither the fit nor any rule of it saw these corpora.

  python3 bench/holdout/holdout_battery.py --out DIR        # DIR/battery.json and its files
  python3 bench/holdout/holdout_battery.py --plan           # the targets as JSON; reads nothing
"""

import argparse
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import calibration_battery as cb  # noqa: E402  (the cutting, pooling and drawing rules)

SEED = "preflight-holdout-v1"


def domain_of(rel, rules, default):
    """The domain of the first rule (match(top folder, path), domain) that rel meets."""
    top = rel.split("/")[0]
    return next((domain for match, domain in rules if match(top, rel)), default)


PERL_RULES = [
    (lambda top, rel: top in ("Test", "Test2", "TAP"), "perl-test"),
    (lambda top, rel: top in ("ExtUtils", "CPAN", "Module", "App"), "perl-build"),
    (lambda top, rel: top == "Pod" or rel.endswith(".pod"), "perl-pod"),
]
CMAKE_RULES = [
    (lambda top, rel: top.startswith("Find"), "cmake-find"),
    (lambda top, rel: top.startswith("Check"), "cmake-check"),
    (lambda top, rel: top in ("Compiler", "CompilerId", "Platform"), "cmake-platform"),
]


def read_perl(src):
    for rel, path in src.deb_files(["perl-modules-5.36"], "/usr/share/perl/5.36.0/"):
        if rel.endswith((".pm", ".pod")):
            yield rel, domain_of(rel, PERL_RULES, "perl-other"), cb.read_text(path)


def read_cmake(src):
    for rel, path in src.deb_files(["cmake-data"], "/usr/share/cmake-3.25/Modules/"):
        if rel.endswith((".cmake", ".in", ".c", ".cxx", ".h")):
            yield rel, domain_of(rel, CMAKE_RULES, "cmake-other"), cb.read_text(path)


def read_locales(src):
    for rel, path in src.deb_files(["locales"], "/usr/share/i18n/locales/"):
        if rel.startswith("translit_"):
            domain = "loc-translit"
        elif "_" in rel and not rel.startswith("iso"):
            domain = "loc-lang"
        else:
            domain = "loc-other"  # the collation tables, i18n, POSIX and such
        yield rel, domain, cb.read_text(path)


def read_linux(src):
    for rel, path in src.deb_files(["linux-libc-dev"], "/usr/include/linux/"):
        if not rel.endswith(".h"):
            continue
        if "netfilter" in rel:
            domain = "lnx-netfilter"
        elif "/" in rel:
            domain = "lnx-sub"
        elif rel.startswith("if_") or rel.startswith(("tcp", "udp", "ip", "in", "net")):
            # By name only: "in"/"ip" also take input.h, inotify.h, ipmi.h and such. Kept so,
            # because the targets of the committed run were cut this way.
            domain = "lnx-net"
        else:
            domain = "lnx-top"
        yield rel, domain, cb.read_text(path)


INFO_MANUALS = {  # package -> domain; the python3.11 manual is left out (pydoc is calibrated)
    "coreutils": "info-coreutils",
    "grep": "info-text", "sed": "info-text", "diffutils": "info-text", "findutils": "info-text",
    "gzip": "info-text", "ed": "info-text", "bzip2-doc": "info-text",
    "m4": "info-build", "automake": "info-build", "gettext": "info-build",
    "gnupg": "info-crypto", "nettle-dev": "info-crypto", "libtasn1-doc": "info-crypto",
    "libgpg-error-dev": "info-crypto", "wget": "info-other", "readline-common": "info-other",
}


def read_info(src):
    for package, domain in INFO_MANUALS.items():
        if src.root is None and src.deb_version(package) == "missing":
            continue
        for rel, path in src.deb_files([package], "/usr/share/info/"):
            if not rel.endswith(".gz"):
                continue
            with open(path, "rb") as f:
                text = gzip.decompress(f.read()).decode("utf-8", "replace")
            for k, node in enumerate(text.split("\x1f")):  # a node a unit
                yield "%s#%d" % (rel[:-3], k), domain, node


CORPORA = [
    cb.Corpus("perl", "code (Perl, with POD)", "Perl 5.36 core modules, .pm and .pod",
              [("deb", "perl-modules-5.36", None)], "Artistic-1.0 or GPL-1+", read_perl),
    cb.Corpus("cmake", "code (CMake)", "CMake 3.25's modules", [("deb", "cmake-data", None)],
              "BSD-3-Clause", read_cmake),
    cb.Corpus("locales", "structured data (locale definitions)",
              "glibc's locale sources (/usr/share/i18n/locales)", [("deb", "locales", None)],
              "GPL-2+ / LGPL-2.1+, some files public domain", read_locales),
    cb.Corpus("linux", "code (C headers)", "Linux UAPI headers (/usr/include/linux)",
              [("deb", "linux-libc-dev", None)], "GPL-2 with the syscall note", read_linux),
    cb.Corpus("info", "documentation (GNU Info manuals)", "GNU Info manuals, node by node",
              [("deb", p, None) for p in INFO_MANUALS], "GFDL-1.3+ (per manual)", read_info),
]

DOMAINS = {
    "perl": ["perl-test", "perl-build", "perl-pod", "perl-other"],
    "cmake": ["cmake-find", "cmake-check", "cmake-platform", "cmake-other"],
    "locales": ["loc-lang", "loc-translit", "loc-other"],
    "linux": ["lnx-netfilter", "lnx-sub", "lnx-net", "lnx-top"],
    "info": ["info-coreutils", "info-text", "info-build", "info-crypto", "info-other"],
}


def plan():
    """Every kind of the calibration battery, fewer of each. Built after cb's globals point at
    this battery's corpora (cb._pool_mixture and the others read them)."""
    t, P, DNP, U = cb._t, cb.P, cb.DNP, cb.U
    return [
        t("perl-test", "Perl: Test, Test2, TAP", "present", P, ["perl-test"]),
        t("cmake-find", "CMake: Find modules", "present", P, ["cmake-find"]),
        t("loc-lang", "locales: language definitions", "present", P, ["loc-lang"]),
        t("lnx-netfilter", "Linux headers: netfilter", "present", P, ["lnx-netfilter"]),
        t("info-coreutils", "Info: coreutils", "present", P, ["info-coreutils"]),
        cb._pool_mixture("mixpool-1", "the pool's own mixture", "mixed", 1),
        cb._pool_mixture("mixpool-2", "the pool's own mixture, another draw", "mixed", 2),
        cb._pool_mixture("mixpool-no-perl", "the mixture of the pool without Perl",
                         "without:perl", 0),
        cb._pool_mixture("mixpool-dominant-info", "the mixture of a pool that is mostly Info",
                         "dominant:info", 0),
        cb._like("perl", "all of Perl, pool of Perl only"),
        cb._like("cmake", "all of CMake, pool of CMake only"),
        cb._like("locales", "all locales, pool of locales only"),
        cb._like("info", "all Info manuals, pool of Info only"),
        cb._broad("broad-no-perl", "4 of 5 (no Perl)", ["perl"]),
        cb._broad("broad-no-info", "4 of 5 (no Info)", ["info"]),
        t("absent-cmake", "CMake, no CMake in the pool", "absent", U, ["cmake-check"],
          pool="without:cmake", why="Perl and the C headers stay"),
        t("absent-linux", "Linux headers, none in the pool", "absent", U, ["lnx-top"],
          pool="without:linux", why="CMake's C test sources stay"),
        t("far-locales-in-perl", "locales, a pool of Perl only", "absent", U, ["loc-lang"],
          pool="only:perl", why="nothing near: the pool is one unrelated corpus"),
        t("rare-perl-pod", "Perl POD, a trace in the pool", "rare", U, ["perl-pod"], pool="rare"),
        t("rarecorpus-cmake", "CMake, the whole corpus a trace", "rare", U, cb.ALL_DOMAINS["cmake"],
          pool="rare_corpus:cmake"),
        t("dominant-info", "all Info, a pool mostly Info", "dominant", U, DOMAINS["info"],
          pool="dominant:info"),
        t("dominant-perl", "all Perl, a pool mostly Perl", "dominant", U, DOMAINS["perl"],
          pool="dominant:perl"),
        t("mix-build", "CMake and Perl's build modules", "mixture", P,
          ["cmake-other", "perl-build"]),
    ]


def use_this_battery():
    """Points the calibration battery's rules at these corpora (they read module globals)."""
    cb.SEED = SEED
    cb.CORPORA = CORPORA
    cb.CORPUS_BY_NAME = {c.name: c for c in CORPORA}
    cb.ALL_DOMAINS = DOMAINS
    cb.DOMAIN_CORPUS = {d: c for c, ds in DOMAINS.items() for d in ds}
    cb.PLAN = plan()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output folder")
    ap.add_argument("--plan", action="store_true", help="print the target plan and exit")
    args = ap.parse_args(argv)
    use_this_battery()
    if args.plan:
        json.dump({"summary": cb.plan_summary(), "targets": cb.PLAN}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if not args.out:
        ap.error("--out is required")
    src = cb.Sources(None, None)
    needed = [name for c in CORPORA if c.name != "info" for _, name, _ in c.packages]
    missing = [name for name in needed if src.deb_version(name) == "missing"]
    if missing:  # the Info manuals are read from whichever of their packages are installed
        raise SystemExit("holdout-battery: not installed: %s (sudo apt-get install %s)"
                         % (", ".join(missing), " ".join(missing)))
    cfg = dict(cb.DEFAULTS)
    spec = cb.build(src, args.out, cfg,
                    lambda msg: print(msg, file=sys.stderr, flush=True))
    # cb.build has written battery.json under the calibration battery's name; it is rewritten
    # here, whole and atomically, under this one's (an interrupted run leaves the first).
    spec["name"] = "holdout"
    spec["description"] = ("The hold-out battery (bench/holdout/): %d targets over 5 corpora "
                           "the calibration battery never saw." % len(spec["targets"]))
    spec["default_target"] = spec["targets"][0]["name"]
    path = os.path.join(args.out, "battery.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
