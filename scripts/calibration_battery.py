#!/usr/bin/env python3
"""Builds the calibration battery (doc/calibration-battery.md) from installed corpora.

Python 3 standard library only. Reads ten corpora that Debian and npm packages install, cuts
them into units (a source file, a man page, a documentation page, a Brown text, a chapter, an
address, a mail message, a block of fortunes, a WordNet lexicographer file), gives every unit
exactly one side (pool, select or eval), and writes the documents (JSONL: id, text, source,
unit, domain), the pools and the targets' select/eval files, and battery.json for
`preflight battery --spec`. The same installed packages give the same bytes.

  python3 scripts/calibration_battery.py --out data/calibration [--npm data/calibration-npm]
  python3 scripts/calibration_battery.py --out DIR --root FIXTURE/root --npm FIXTURE/npm \
      --pool-corpus-bytes 3000 --side-bytes 2000 --max-doc-bytes 200      (the test's fixture)
  python3 scripts/calibration_battery.py --plan      (the target plan as JSON; reads nothing)
  python3 scripts/calibration_battery.py --by-kind CALIBRATE.json --spec DIR/battery.json
      (`preflight forecast --calibrate --json`'s leave-one-corpus-out figures by kind)
"""

import argparse
import hashlib
import json
import os
import re
import sys

# The corpora and the by-kind report live beside this file; their names are this module's too
# (bench/holdout/holdout_battery.py replaces CORPORA and the rest here to build another battery).
from calibration_by_kind import battery_and_target, by_kind, print_by_kind, target_of  # noqa: F401
from calibration_corpora import (BROWN_GENRES, CORPORA, CORPUS_BY_NAME, Corpus,  # noqa: F401
                                 Sources, read_json, read_text)

SEED = "preflight-calibration-v1"

# Every unit takes exactly one side. Within a domain, in the order of sha256(SEED:corpus:unit),
# the first three units go to select, eval and pool (so that a domain of three units has all
# three sides); each later unit goes to the side furthest below its share of the domain's bytes
# so far (ties: select, eval, pool). Whole units only: all documents of a unit share its side.
SIDE_SHARES = (("select", 0.2), ("eval", 0.2), ("pool", 0.6))


def assign_sides(units):
    """Sets u["side"] for the units of one domain, given in hash order."""
    have = {side: 0 for side, _ in SIDE_SHARES}
    total = 0
    for rank, u in enumerate(units):
        size = sum(d["bytes"] for d in u["docs"])
        total += size
        if rank < len(SIDE_SHARES):
            side = SIDE_SHARES[rank][0]
        else:
            side = max(SIDE_SHARES, key=lambda s: (s[1] * total - have[s[0]],
                                                  -SIDE_SHARES.index(s)))[0]
        u["side"] = side
        have[side] += size


# Sizes (bytes of UTF-8 text). The test passes small ones for its fixture.
DEFAULTS = {
    "max_doc_bytes": 16384,       # a longer unit becomes several documents, all on its side
    "pool_corpus_bytes": 1600000,  # each corpus's share of the mixed pool (10 corpora: ~16 MB)
    "only_bytes": 8000000,         # a single-corpus pool (the pool_like_target cases)
    "side_bytes": 393216,          # each of a target's select and eval files
    "rare_share": 0.001,           # a rare domain's share of its pool (one document at least)
    "rare_corpus_share": 0.005,    # a rare corpus's share of its pool (one document at least)
    "dominant_bytes": 6000000,     # the dominant corpus in a `dominant` pool
    "dominant_other_bytes": 200000,  # each other corpus in a `dominant` pool
    "min_unit_bytes": 32,          # shorter units (empty modules, stubs) are dropped
}




# --------------------------------------------------------------------------------------------
# The targets. kind: present | absent | pool_like_target | pool_mixture | broad | rare |
# dominant | mixture | near_neighbour (doc/calibration-battery.md says what each is).
# pool: "mixed" | "without:<corpus>" | "only:<corpus>" | "rare" (the mixed pool with the
# target's domains thinned to a trace) | "rare_corpus:<corpus>" (the mixed pool with the whole
# corpus thinned to a trace) | "dominant:<corpus>" (the corpus and a little of every other) |
# "gone" (the mixed pool without the target's domains; the rest of its corpus stays).
# select/eval: lists of domains (a mixture lists several; a near neighbour selects with one
# domain and is judged on another). weights "pool": the target's corpora come at their shares of
# the target's pool (a pool_mixture target is drawn with the pool's own mixture), else at equal
# shares. draw: which draw of units (0: the units' hash order; k > 0: another order, salted).

def _t(name, label, kind, expect, select, evaluate=None, pool="mixed", why="", weights="equal",
       draw=0):
    return {"name": name, "label": label, "kind": kind, "expect": expect,
            "select": list(select), "eval": list(evaluate if evaluate is not None else select),
            "pool": pool, "why": why, "weights": weights, "draw": draw}


ALL_DOMAINS = {
    "python": ["py-asyncio", "py-email", "py-encodings", "py-modules", "py-packages"],
    "cxx": ["cxx-bits", "cxx-ext", "cxx-std", "cxx-other"],
    "man": ["man-syscalls", "man-libc", "man-overview", "man-other"],
    "pydoc": ["doc-library", "doc-capi", "doc-whatsnew", "doc-guides"],
    "brown": ["brown-" + g for g in BROWN_GENRES],
    "moby": ["moby"],
    "sotu": ["sotu-early", "sotu-middle", "sotu-modern"],
    "mail": ["mail-ham", "mail-hardham", "mail-spam"],
    "fortunes": ["fortunes-tech", "fortunes-misc"],
    "wordnet": ["wn-noun", "wn-verb", "wn-adj"],
}
BROWN_FICTION = ["brown-ck", "brown-cl", "brown-cm", "brown-cn", "brown-cp", "brown-cr"]
P, DNP, U = "pays", "does_not_pay", "unclear"


def _domains(corpora):
    return [d for c in CORPORA if c.name in corpora for d in ALL_DOMAINS[c.name]]


def _pool_corpora(pool):
    """The corpora a pool holds (the rare pools hold every corpus, one of them as a trace)."""
    every = [c.name for c in CORPORA]
    if pool.startswith("without:"):
        return [c for c in every if c != pool.split(":", 1)[1]]
    if pool.startswith("only:"):
        return [pool.split(":", 1)[1]]
    return every


def _pool_mixture(name, label, pool, draw, why=""):
    """A target drawn with the pool's own mixture: every domain of every corpus the pool holds,
    each corpus at its share of the pool's bytes."""
    return _t(name, label, "pool_mixture", DNP, _domains(_pool_corpora(pool)), pool=pool,
              weights="pool", draw=draw, why=why or "the target reads like the pool itself")


def _broad(name, label, without):
    """A broad mixture: every domain of most of the mixed pool's corpora, at equal shares."""
    keep = [c.name for c in CORPORA if c.name not in without]
    return _t(name, label, "broad", U, _domains(keep),
              why="most of the pool's sources: a random quarter already holds most of it")


def _like(corpus, label):
    """A pool of one corpus, and a target that samples all of that corpus."""
    return _t("like-" + corpus, label, "pool_like_target", DNP, ALL_DOMAINS[corpus],
              pool="only:" + corpus)


PLAN = [
    # present: the target's domain is in the mixed pool at its natural share.
    _t("py-asyncio", "Python: asyncio package", "present", P, ["py-asyncio"]),
    _t("brown-ca", "Brown: press reportage", "present", P, ["brown-ca"]),
    _t("mail-spam", "mail: spam", "present", P, ["mail-spam"]),
    _t("cxx-bits", "libstdc++: bits/ (implementation)", "present", P, ["cxx-bits"]),
    _t("wn-verb", "WordNet: verb glosses", "present", P, ["wn-verb"]),
    _t("sotu-early", "State of the Union, 1790-1860", "present", P, ["sotu-early"]),
    _t("man-syscalls", "man pages: system calls (2)", "present", P, ["man-syscalls"]),
    _t("moby", "Moby-Dick", "present", P, ["moby"]),
    _t("doc-library", "Python docs: library reference", "present", P, ["doc-library"]),
    _t("fortunes-tech", "fortunes: computers, Linux, Perl, Debian", "present", P,
       ["fortunes-tech"]),
    _t("py-modules", "Python: top-level modules", "present", P, ["py-modules"]),
    _t("brown-fiction", "Brown: the six fiction genres", "present", P, BROWN_FICTION),
    _t("doc-capi", "Python docs: C API", "present", P, ["doc-capi"]),
    # absent: the target's whole corpus is taken out of the pool.
    _t("absent-mail-ham", "mail, no mail in the pool", "absent", DNP, ["mail-ham"],
       pool="without:mail", why="nothing like mail headers is left"),
    _t("far-wn-in-python", "WordNet nouns, a pool of Python only", "absent", U, ["wn-noun"],
       pool="only:python", why="nothing near: the pool is one unrelated corpus"),
    _t("absent-py-modules", "Python modules, no Python in the pool", "absent", U,
       ["py-modules"], pool="without:python",
       why="C++ headers and the Python docs' code samples stay: a neighbour may still help"),
    _t("absent-sotu-modern", "modern addresses, no addresses in the pool", "absent", U,
       ["sotu-modern"], pool="without:sotu", why="Brown's press and government texts stay"),
    _t("far-mail-in-cxx", "mail, a pool of C++ headers only", "absent", U, ["mail-ham"],
       pool="only:cxx", why="nothing near: the pool is one unrelated corpus"),
    _t("absent-man-libc", "man(3), no man pages in the pool", "absent", U, ["man-libc"],
       pool="without:man", why="C headers and the C-API docs stay in the pool"),
    _t("absent-wn-noun", "WordNet nouns, no WordNet in the pool", "absent", DNP, ["wn-noun"],
       pool="without:wordnet", why="nothing like a list of glosses is left"),
    _t("far-python-in-brown", "Python modules, a pool of Brown only", "absent", U,
       ["py-modules"], pool="only:brown", why="nothing near: the pool is one unrelated corpus"),
    _t("absent-moby", "Moby-Dick, not in the pool", "absent", U, ["moby"],
       pool="without:moby", why="Brown's fiction stays"),
    _t("absent-doc-library", "Python library docs, no docs in the pool", "absent", U,
       ["doc-library"], pool="without:pydoc", why="Python source (docstrings) stays"),
    _t("absent-fortunes-misc", "fortunes, none in the pool", "absent", DNP, ["fortunes-misc"],
       pool="without:fortunes", why="short quips: prose is near but unlike"),
    # pool_like_target: the pool is the target's own corpus; the target samples all of it.
    _like("brown", "all of Brown, pool of Brown only"),
    _like("python", "all of Python, pool of Python only"),
    _like("sotu", "all addresses, pool of addresses only"),
    _like("mail", "all mail, pool of mail only"),
    _like("man", "all man pages, pool of man pages only"),
    _like("wordnet", "all WordNet, pool of WordNet only"),
    _like("cxx", "all of libstdc++, pool of C++ headers only"),
    _like("pydoc", "all Python docs, pool of Python docs only"),
    _like("fortunes", "all fortunes, pool of fortunes only"),
    # pool_mixture: the target is drawn with its pool's own mixture (several draws, pools).
    _pool_mixture("mix-all", "the mixed pool's mixture, draw 0", "mixed", 0),
    _pool_mixture("mixpool-no-python", "the mixture of the pool without Python",
                  "without:python", 1),
    _pool_mixture("mixpool-dominant-mail", "the mixture of a pool that is mostly mail",
                  "dominant:mail", 1),
    _pool_mixture("mixpool-1", "the mixed pool's mixture, draw 1", "mixed", 1),
    _pool_mixture("mixpool-no-brown", "the mixture of the pool without Brown",
                  "without:brown", 2),
    _pool_mixture("mixpool-2", "the mixed pool's mixture, draw 2", "mixed", 2),
    _pool_mixture("mixpool-3", "the mixed pool's mixture, draw 3", "mixed", 3),
    _pool_mixture("mixpool-4", "the mixed pool's mixture, draw 4", "mixed", 4),
    _pool_mixture("mixpool-no-cxx", "the mixture of the pool without C++", "without:cxx", 1),
    _pool_mixture("mixpool-no-mail", "the mixture of the pool without mail", "without:mail", 2),
    _pool_mixture("mixpool-dominant-python", "the mixture of a pool that is mostly Python",
                  "dominant:python", 1),
    _pool_mixture("mixpool-no-wordnet", "the mixture of the pool without WordNet",
                  "without:wordnet", 3),
    _pool_mixture("mixpool-no-sotu", "the mixture of the pool without the addresses",
                  "without:sotu", 4),
    # broad: most of the pool's sources, at equal shares.
    _broad("broad-no-wn-mail", "8 of the 10 corpora (no WordNet, no mail)", ["wordnet", "mail"]),
    _broad("broad-no-code", "7 of 10 (no Python, C++, man pages)", ["python", "cxx", "man"]),
    _broad("broad-no-prose", "7 of 10 (no Brown, Moby-Dick, addresses)",
           ["brown", "moby", "sotu"]),
    _broad("broad-no-docs-fortunes", "8 of 10 (no Python docs, no fortunes)",
           ["pydoc", "fortunes"]),
    _broad("broad-no-cxx", "9 of 10 (no C++)", ["cxx"]),
    _broad("broad-no-python-sotu", "8 of 10 (no Python, no addresses)", ["python", "sotu"]),
    _broad("broad-no-man-moby", "8 of 10 (no man pages, no Moby-Dick)", ["man", "moby"]),
    _broad("broad-no-brown-wordnet", "8 of 10 (no Brown, no WordNet)", ["brown", "wordnet"]),
    _broad("broad-no-mail", "9 of 10 (no mail)", ["mail"]),
    # rare: the mixed pool with the target's domain (or its whole corpus) thinned to a trace.
    _t("rarecorpus-mail-ham", "mail, a trace of all mail in the pool", "rare", U, ["mail-ham"],
       pool="rare_corpus:mail", why="the whole corpus is a trace: nothing near in bulk"),
    _t("rare-py-asyncio", "asyncio, a trace of it in the pool", "rare", U, ["py-asyncio"],
       pool="rare"),
    _t("rarecorpus-wn-noun", "WordNet nouns, a trace of WordNet in the pool", "rare", U,
       ["wn-noun"], pool="rare_corpus:wordnet",
       why="the whole corpus is a trace: nothing near in bulk"),
    _t("rare-brown-cj", "Brown learned, a trace of it in the pool", "rare", U, ["brown-cj"],
       pool="rare"),
    _t("rarecorpus-sotu-modern", "modern addresses, a trace of addresses in the pool", "rare",
       U, ["sotu-modern"], pool="rare_corpus:sotu",
       why="the whole corpus is a trace; Brown's press stays"),
    _t("rare-man-syscalls", "man(2), a trace of it in the pool", "rare", U, ["man-syscalls"],
       pool="rare"),
    _t("rarecorpus-py-modules", "Python modules, a trace of Python in the pool", "rare", U,
       ["py-modules"], pool="rare_corpus:python",
       why="the whole corpus is a trace; C++ and the docs' samples stay"),
    _t("rare-mail-spam", "spam, a trace of it in the pool", "rare", U, ["mail-spam"],
       pool="rare"),
    # dominant: the target's corpus is most of the pool; a random quarter holds plenty of it.
    _t("dominant-python", "all of Python, a pool mostly Python", "dominant", U,
       ALL_DOMAINS["python"], pool="dominant:python"),
    _t("dominant-mail", "all mail, a pool mostly mail", "dominant", U, ALL_DOMAINS["mail"],
       pool="dominant:mail"),
    _t("dominant-brown", "all of Brown, a pool mostly Brown", "dominant", U,
       ALL_DOMAINS["brown"], pool="dominant:brown"),
    _t("dominant-sotu", "all addresses, a pool mostly addresses", "dominant", U,
       ALL_DOMAINS["sotu"], pool="dominant:sotu"),
    # mixture: the target is itself a mixture of some of the pool's corpora.
    _t("mix-text", "prose, fiction, speech, mail and fortunes", "mixture", U,
       _domains(("brown", "moby", "sotu", "mail", "fortunes"))),
    _t("mix-tech", "code, man pages and docs", "mixture", U,
       _domains(("python", "cxx", "man", "pydoc"))),
    _t("mix-far", "Python, Brown and WordNet together", "mixture", U,
       _domains(("python", "brown", "wordnet"))),
    # near_neighbour: select with a neighbour, judged on the target.
    _t("nn-cxx-for-python", "select with libstdc++ bits/, judged on Python modules",
       "near_neighbour", DNP, ["cxx-bits"], ["py-modules"]),
    _t("nn-moby-for-fiction", "select with Moby-Dick, judged on Brown fiction",
       "near_neighbour", U, ["moby"], BROWN_FICTION),
    _t("nn-early-for-modern", "select with 1790-1860 addresses, judged on 1933-",
       "near_neighbour", U, ["sotu-early"], ["sotu-modern"]),
]

DOMAIN_CORPUS = {d: c for c, ds in ALL_DOMAINS.items() for d in ds}
KINDS = ("present", "absent", "pool_like_target", "pool_mixture", "broad", "rare", "dominant",
         "mixture", "near_neighbour")
# The order the spec lists (and `preflight battery` runs) the targets: one of each kind in turn,
# so that a run stopped early has tried every kind on several corpora.
RUN_ORDER = ("present", "pool_mixture", "rare", "absent", "broad", "dominant", "pool_like_target",
             "mixture", "near_neighbour")


def run_order(plan):
    queues = {k: [t for t in plan if t["kind"] == k] for k in RUN_ORDER}
    out = []
    while any(queues.values()):
        for k in RUN_ORDER:
            if queues[k]:
                out.append(queues[k].pop(0))
    return out


def plan_summary():
    by_kind = {k: sum(1 for t in PLAN if t["kind"] == k) for k in KINDS}
    by_expect = {e: sum(1 for t in PLAN if t["expect"] == e) for e in (P, DNP, U)}
    negatives = len(PLAN) - by_kind["present"]
    return {"targets": len(PLAN), "by_kind": by_kind, "by_expect": by_expect,
            "not_present_share": negatives / len(PLAN),
            "corpora": [c.name for c in CORPORA],
            "text_kinds": sorted({c.text_kind for c in CORPORA})}


# --------------------------------------------------------------------------------------------
# Building.

def unit_hash(corpus, unit):
    return hashlib.sha256(("%s:%s:%s" % (SEED, corpus, unit)).encode()).hexdigest()


def split_text(text, max_bytes):
    """Cuts text into pieces of at most max_bytes of UTF-8: at line ends, else after a
    sentence's full stop, else at a character boundary."""
    pieces, current, size = [], [], 0

    def atoms(line):
        if len(line.encode()) <= max_bytes:
            yield line
            return
        for sentence in re.split(r"(?<=[.!?] )", line):
            b = sentence.encode()
            while len(b) > max_bytes:
                cut = max_bytes
                while cut > 0 and (b[cut] & 0xC0) == 0x80:
                    cut -= 1
                yield b[:cut].decode()
                b = b[cut:]
            if b:
                yield b.decode()

    for line in text.splitlines(keepends=True):
        for atom in atoms(line):
            n = len(atom.encode())
            if current and size + n > max_bytes:
                pieces.append("".join(current))
                current, size = [], 0
            current.append(atom)
            size += n
    if current:
        pieces.append("".join(current))
    return [p for p in pieces if p.strip()]


def clean(text):
    # Valid UTF-8 without lone surrogates (a JSON escape can carry one), and no NULs.
    return text.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")


def load_corpora(src, cfg, log):
    """{corpus: [unit dict]} with each unit's side, domain, hash and documents."""
    corpora = {}
    for corpus in CORPORA:
        units = []
        for unit, domain, text in corpus.read(src):
            text = clean(text)
            if len(text.strip().encode()) < cfg["min_unit_bytes"]:
                continue
            docs = split_text(text, cfg["max_doc_bytes"])
            units.append({"unit": unit, "domain": domain, "hash": unit_hash(corpus.name, unit),
                          "docs": [{"id": "%s/%s#%d" % (corpus.name, unit, k), "text": d,
                                    "source": corpus.name, "unit": unit, "domain": domain,
                                    "bytes": len(d.encode())} for k, d in enumerate(docs)]})
        if not units:
            raise SystemExit("calibration-battery: no units in corpus %s (is it installed?)"
                             % corpus.name)
        seen = set()
        for u in units:
            if u["unit"] in seen:
                raise SystemExit("calibration-battery: unit %s/%s twice" % (corpus.name,
                                                                           u["unit"]))
            seen.add(u["unit"])
        by_domain = {}
        for u in sorted(units, key=lambda u: u["hash"]):
            by_domain.setdefault(u["domain"], []).append(u)
        for domain_units in by_domain.values():
            assign_sides(domain_units)
        corpora[corpus.name] = sorted(units, key=lambda u: u["hash"])
        log("  %-9s %5d units %7d docs %11d bytes" % (
            corpus.name, len(units), sum(len(u["docs"]) for u in units),
            sum(d["bytes"] for u in units for d in u["docs"])))
    return corpora


def fill(units, cap):
    """Documents of the units, in the units' hash order, while they fit in cap bytes (a
    document that does not fit is passed over; the next may)."""
    out, size = [], 0
    for u in units:
        for d in u["docs"]:
            if size + d["bytes"] <= cap:
                out.append(d)
                size += d["bytes"]
    return out


def corpus_bytes(docs):
    out = {}
    for d in docs:
        out[d["source"]] = out.get(d["source"], 0) + d["bytes"]
    return out


def shuffled(docs):
    return sorted(docs, key=lambda d: hashlib.sha256(("order:" + d["id"]).encode()).digest())


def doc_line(d):
    return json.dumps({"id": d["id"], "text": d["text"], "source": d["source"],
                       "unit": d["unit"], "domain": d["domain"]},
                      ensure_ascii=False, separators=(",", ":")) + "\n"


def write_jsonl(path, docs):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        for d in docs:
            f.write(doc_line(d))
    os.replace(tmp, path)
    return {"docs": len(docs), "bytes": sum(d["bytes"] for d in docs),
            "units": len({(d["source"], d["unit"]) for d in docs})}


def drawn(units, draw):
    """The units in the order of draw `draw`: their hash order for 0, another order (the hash of
    the draw and the unit's hash) for k > 0."""
    if draw == 0:
        return units
    return sorted(units, key=lambda u: hashlib.sha256(("draw%d:%s" % (draw, u["hash"]))
                                                      .encode()).digest())


def side_docs(corpora, domains, side, cap, weights=None, draw=0):
    """A target's select or eval documents: from each corpus its domains come from, a share of
    cap (equal shares, or each corpus's share of `weights`, bytes by corpus); within a corpus, its
    units of those domains on this side in the order of draw `draw`, so that several domains of
    one corpus come at their natural shares."""
    by_corpus = {}
    for d in domains:
        by_corpus.setdefault(DOMAIN_CORPUS[d], set()).add(d)
    total = sum(weights.get(c, 0) for c in by_corpus) if weights else 0
    out = []
    for corpus in sorted(by_corpus):
        share = (cap // len(by_corpus) if not weights else
                 int(cap * weights.get(corpus, 0) / total) if total else 0)
        out += fill(drawn([u for u in corpora[corpus] if u["domain"] in by_corpus[corpus] and
                           u["side"] == side], draw), share)
    return out


def trace_of(mixed, keep, share_bytes):
    """The documents of `mixed` for which keep(d) holds, thinned to share_bytes in the pool's
    order (one document at least: the kind is rare, not absent)."""
    inside = [d for d in mixed if keep(d)]
    trace = fill([{"docs": inside}], share_bytes)
    return trace if trace else inside[:1]


def build(src, out_dir, cfg, log):
    log("calibration-battery: reading the corpora")
    corpora = load_corpora(src, cfg, log)
    os.makedirs(out_dir, exist_ok=True)

    # The mixed pool: each corpus's pool-side units, in hash order, up to its share.
    pool_by_corpus = {c.name: fill([u for u in corpora[c.name] if u["side"] == "pool"],
                                   cfg["pool_corpus_bytes"]) for c in CORPORA}
    mixed = shuffled([d for c in CORPORA for d in pool_by_corpus[c.name]])
    mixed_bytes = sum(d["bytes"] for d in mixed)

    pools = {}  # pool key -> (relative path, docs)

    def pool_for(t):
        key = t["pool"] if t["pool"] not in ("rare", "gone") else t["pool"] + ":" + t["name"]
        if key in pools:
            return key
        if key == "mixed":
            docs = mixed
            path = "pools/mixed.jsonl"
        elif key.startswith("without:"):
            gone = key.split(":", 1)[1]
            docs = [d for d in mixed if d["source"] != gone]
            path = "pools/without-%s.jsonl" % gone
        elif key.startswith("only:"):
            only = key.split(":", 1)[1]
            docs = shuffled(fill([u for u in corpora[only] if u["side"] == "pool"],
                                 cfg["only_bytes"]))
            path = "pools/only-%s.jsonl" % only
        elif key.startswith("rare_corpus:"):
            thin = key.split(":", 1)[1]
            keep = {d["id"] for d in trace_of(mixed, lambda d: d["source"] == thin,
                                              int(mixed_bytes * cfg["rare_corpus_share"]))}
            docs = [d for d in mixed if d["source"] != thin or d["id"] in keep]
            path = "pools/rare-corpus-%s.jsonl" % thin
        elif key.startswith("dominant:"):
            big = key.split(":", 1)[1]
            docs = shuffled(fill([u for u in corpora[big] if u["side"] == "pool"],
                                 cfg["dominant_bytes"]) +
                            [d for c in CORPORA if c.name != big
                             for d in fill([u for u in corpora[c.name] if u["side"] == "pool"],
                                           cfg["dominant_other_bytes"])])
            path = "pools/dominant-%s.jsonl" % big
        elif key.startswith("gone:"):
            # The mixed pool without the target's own domains: the rest of its corpus stays
            # (bench/supply: an absent target with related neighbours).
            gone = set(t["eval"])
            docs = [d for d in mixed if d["domain"] not in gone]
            path = "pools/%s.jsonl" % t["name"]
        else:
            thin = set(t["eval"])
            keep = {d["id"] for d in trace_of(mixed, lambda d: d["domain"] in thin,
                                              int(mixed_bytes * cfg["rare_share"]))}
            docs = [d for d in mixed if d["domain"] not in thin or d["id"] in keep]
            path = "pools/%s.jsonl" % t["name"]
        pools[key] = (path, docs)
        return key

    targets = []
    for t in run_order(PLAN):
        key = pool_for(t)
        pool_path, pool_docs = pools[key]
        weights = corpus_bytes(pool_docs) if t["weights"] == "pool" else None
        sel = side_docs(corpora, t["select"], "select", cfg["side_bytes"], weights, t["draw"])
        ev = side_docs(corpora, t["eval"], "eval", cfg["side_bytes"], weights, t["draw"])
        if not sel or not ev:
            raise SystemExit("calibration-battery: target %s has an empty %s side" %
                             (t["name"], "select" if not sel else "eval"))
        s_stats = write_jsonl(os.path.join(out_dir, "targets", t["name"] + ".select.jsonl"), sel)
        e_stats = write_jsonl(os.path.join(out_dir, "targets", t["name"] + ".eval.jsonl"), ev)
        pool_bytes = sum(d["bytes"] for d in pool_docs)
        eval_domains = set(t["eval"])
        share = sum(d["bytes"] for d in pool_docs if d["domain"] in eval_domains)
        sel_corpora = sorted({DOMAIN_CORPUS[d] for d in t["select"]})
        eval_corpora = sorted({DOMAIN_CORPUS[d] for d in t["eval"]})
        all_corpora = sorted(set(sel_corpora) | set(eval_corpora))
        targets.append({
            "name": t["name"],
            "label": t["label"],
            "kind": t["kind"],
            "expect": t["expect"],
            "why": t["why"],
            # The corpus a leave-one-corpus-out evaluation leaves the target out with: its
            # eval's corpus; a mixture of several corpora is "mixture".
            "corpus": eval_corpora[0] if len(eval_corpora) == 1 else "mixture",
            "corpora": all_corpora,
            "genre": "+".join(t["eval"]) if len(t["eval"]) <= 6 else "%d domains" % len(
                t["eval"]),
            "select_domains": t["select"],
            "eval_domains": t["eval"],
            "absent": t["kind"] == "absent",
            "draw": t["draw"],
            "weights": t["weights"],
            "pool_corpus_shares": {c: round(w / pool_bytes, 6)
                                   for c, w in sorted(corpus_bytes(pool_docs).items())},
            "pool": pool_path,
            "target_select": "targets/%s.select.jsonl" % t["name"],
            "target_eval": "targets/%s.eval.jsonl" % t["name"],
            "pool_docs": len(pool_docs),
            "pool_bytes": pool_bytes,
            "target_share_of_pool": round(share / pool_bytes, 6) if pool_bytes else 0.0,
            "select_docs": s_stats["docs"],
            "select_bytes": s_stats["bytes"],
            "select_units": s_stats["units"],
            "eval_docs": e_stats["docs"],
            "eval_bytes": e_stats["bytes"],
            "eval_units": e_stats["units"],
            "text_field": "text",
            "id_field": "id",
        })

    pool_stats = {}
    for key in sorted(pools, key=lambda k: pools[k][0]):
        path, docs = pools[key]
        pool_stats[path] = write_jsonl(os.path.join(out_dir, path), docs)

    corpora_meta = []
    for c in CORPORA:
        units = corpora[c.name]
        corpora_meta.append({
            "name": c.name, "text": c.text_kind, "description": c.description,
            "licence": c.licence,
            "packages": [{"registry": reg, "name": name,
                          "version": (src.deb_version(name) if reg == "deb"
                                      else src.npm_version(name)),
                          "pinned": pin} for reg, name, pin in c.packages],
            "units": len(units),
            "docs": sum(len(u["docs"]) for u in units),
            "bytes": sum(d["bytes"] for u in units for d in u["docs"]),
            "domains": {d: sum(1 for u in units if u["domain"] == d)
                        for d in sorted({u["domain"] for u in units})},
            "sides": {s: sum(1 for u in units if u["side"] == s)
                      for s in ("pool", "select", "eval")},
        })
    summary = plan_summary()
    spec = {
        "name": "calibration",
        "description": ("The calibration battery (doc/calibration-battery.md): %d targets "
                        "over %d corpora of different kinds of text; every unit (file, page, "
                        "chapter, message) on one side only (pool, select or eval)."
                        % (len(targets), len(CORPORA))),
        "seed": SEED,
        "default_target": "py-asyncio",
        "config": cfg,
        "summary": summary,
        "corpora": corpora_meta,
        "pools": pool_stats,
        "targets": targets,
    }
    tmp = os.path.join(out_dir, "battery.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, os.path.join(out_dir, "battery.json"))
    log("calibration-battery: %d targets (%s), %d pools -> %s/battery.json" % (
        len(targets), ", ".join("%s %d" % kv for kv in summary["by_kind"].items()),
        len(pools), out_dir))
    return spec


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output folder")
    ap.add_argument("--npm", default="data/calibration-npm",
                    help="npm prefix holding node_modules/ (default data/calibration-npm)")
    ap.add_argument("--root", help="read Debian files under this folder instead of via dpkg "
                                   "(the test's fixture)")
    ap.add_argument("--plan", action="store_true", help="print the target plan and exit")
    ap.add_argument("--by-kind", metavar="CALIBRATE_JSON",
                    help="print the leave-one-corpus-out figures of `preflight forecast "
                         "--calibrate --json` by kind (with --spec) and exit")
    ap.add_argument("--spec", action="append",
                    help="the battery.json the calibration's trials ran (--by-kind; once per "
                         "battery when the ledger holds several)")
    for key, value in DEFAULTS.items():
        ap.add_argument("--" + key.replace("_", "-"), type=type(value), default=value)
    args = ap.parse_args(argv)
    if args.plan:
        json.dump({"summary": plan_summary(), "targets": PLAN}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if args.by_kind:
        if not args.spec:
            ap.error("--by-kind needs --spec")
        return print_by_kind(args.spec, args.by_kind, KINDS)
    if not args.out:
        ap.error("--out is required")
    cfg = {key: getattr(args, key) for key in DEFAULTS}
    build(Sources(args.root, args.npm), args.out, cfg,
          lambda msg: print(msg, file=sys.stderr, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
