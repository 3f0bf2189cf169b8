#!/usr/bin/env python3
"""Builds the supply battery (issue 33): what the pool can and cannot supply.

Targets from nine corpora that neither the calibration battery (scripts/calibration_battery.py)
nor the hold-out battery (bench/holdout/) holds, cut, pooled and drawn by the same rules and code,
weighted to the cases the forecast got wrong: absent targets unlike anything in the pool, absent
targets whose related neighbours stay (another language in the same page layout, a related
programming language, another part of the same book), rare targets, dominant ones, broad
mixtures and single-corpus pools. Which of them pay is measured by the trials, not designed.

  python3 bench/supply/supply_battery.py --out DIR        # DIR/battery.json and its files
  python3 bench/supply/supply_battery.py --plan           # the targets as JSON; reads nothing
"""

import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import calibration_battery as cb  # noqa: E402  (the cutting, pooling and drawing rules)

SEED = "preflight-supply-v1"
BLOCK_BYTES = 8192  # a unit of a corpus that is one long list (word lists, Unicode tables)


def blocks(text, size=BLOCK_BYTES):
    """Consecutive lines, cut into runs of about `size` bytes."""
    out, block, n = [], [], 0
    for line in text.splitlines(keepends=True):
        block.append(line)
        n += len(line.encode())
        if n >= size:
            out.append("".join(block))
            block, n = [], 0
    if block:
        out.append("".join(block))
    return out


MAN_LANGS = ("de", "fr", "es", "it", "pl")


def read_manl10n(src):
    for lang in MAN_LANGS:
        for rel, path in src.deb_files(["manpages-" + lang], "/usr/share/man/%s/" % lang):
            if not re.match(r"man\d[a-z]*/", rel):
                continue
            text = cb.read_text(path)
            if text.startswith(".so ") and len(text) < 256:
                continue  # a redirect
            yield "%s/%s" % (lang, rel[:-3] if rel.endswith(".gz") else rel), "man-" + lang, text


KJV_BOOKS = [  # (the `bible` program's name, section)
    *[(b, "kjv-law") for b in ("Gen", "Exo", "Lev", "Num", "Deu")],
    *[(b, "kjv-history") for b in ("Jos", "Jdg", "Rut", "1Sa", "2Sa", "1Ki", "2Ki", "1Ch",
                                   "2Ch", "Ezr", "Neh", "Est")],
    *[(b, "kjv-poetry") for b in ("Job", "Psa", "Pro", "Ecc", "Song")],
    *[(b, "kjv-prophets") for b in ("Isa", "Jer", "Lam", "Eze", "Dan", "Hos", "Joel", "Amos",
                                    "Obad", "Jonah", "Mic", "Nah", "Hab", "Zep", "Hag", "Zec",
                                    "Mal")],
    *[(b, "kjv-gospels") for b in ("Mat", "Mark", "Luke", "John", "Acts")],
    *[(b, "kjv-letters") for b in ("Rom", "1Co", "2Co", "Gal", "Eph", "Phil", "Col", "1Th",
                                   "2Th", "1Ti", "2Ti", "Tit", "Phm", "Heb", "Jas", "1Pe",
                                   "2Pe", "1Jo", "2Jo", "3Jo", "Jude", "Rev")],
]


def read_kjv(src):
    """A unit is a chapter: its verses, one a line, "<chapter>:<verse> <text>"."""
    if src.root is not None:
        for rel, path in src.deb_files(["bible-kjv"], "/kjv/"):
            yield rel, rel.split("_")[0], cb.read_text(path)
        return
    for book, section in KJV_BOOKS:
        out = subprocess.run(["bible", "-f", book + "1:1-999:999"], check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
        chapters = {}
        for line in out.decode("utf-8", "replace").splitlines():
            m = re.match(r"\S*?(\d+):(\d+) (.*)", line)
            if m:
                chapters.setdefault(int(m.group(1)), []).append(
                    "%s:%s %s" % (m.group(1), m.group(2), m.group(3).strip()))
        for ch in sorted(chapters):
            yield "%s%03d" % (book, ch), section, "\n".join(chapters[ch]) + "\n"


def read_ruby(src):
    for rel, path in src.deb_files(["libruby3.1"], "/usr/lib/ruby/3.1.0/"):
        if not rel.endswith(".rb"):
            continue
        top = rel.split("/")[0]
        domain = ("ruby-top" if "/" not in rel else
                  "ruby-gems" if top in ("rubygems", "bundler") else
                  "ruby-net" if top in ("net", "uri", "open-uri", "openssl", "resolv") else
                  "ruby-other")
        yield rel, domain, cb.read_text(path)


def read_shell(src):
    for rel, path in src.deb_files(["bash-completion"], "/usr/share/bash-completion/"):
        name = rel.split("/")[-1]
        if not rel.startswith("completions/"):
            domain = "sh-other"  # the main script and its helpers
        else:
            domain = "sh-a-f" if name[:1] < "g" else "sh-g-o" if name[:1] < "p" else "sh-p-z"
        yield rel, domain, cb.read_text(path)


WORD_LISTS = {"wamerican": ("american-english", "words-en"), "wngerman": ("ngerman", "words-de"),
              "wfrench": ("french", "words-fr"), "wspanish": ("spanish", "words-es"),
              "witalian": ("italian", "words-it")}


def read_words(src):
    for package, (name, domain) in WORD_LISTS.items():
        for rel, path in src.deb_files([package], "/usr/share/dict/"):
            if rel != name:
                continue
            for k, block in enumerate(blocks(cb.read_text(path))):
                yield "%s#%04d" % (name, k), domain, block


def read_unicode(src):
    for rel, path in src.deb_files(["unicode-data"], "/usr/share/unicode/"):
        if not rel.endswith(".txt"):
            continue
        domain = ("ucd-names" if rel.endswith("NamesList.txt") else
                  "ucd-tests" if "Test" in rel else "ucd-tables")
        for k, block in enumerate(blocks(cb.read_text(path))):
            yield "%s#%04d" % (rel[:-4], k), domain, block


def read_vim(src):
    for rel, path in src.deb_files(["vim-runtime"], "/usr/share/vim/vim90/"):
        if rel.startswith("doc/") and rel.endswith(".txt"):
            domain = "vim-doc"
        elif rel.endswith(".vim"):
            domain = "vim-syntax" if rel.startswith("syntax/") else "vim-script"
        else:
            continue
        yield rel, domain, cb.read_text(path)


FORTUNE_LANGS = {"fortunes-de": "fort-de", "fortunes-it": "fort-it", "fortunes-es": "fort-es",
                 "fortunes-ru": "fort-ru"}


def read_fortl10n(src):
    """A unit is a run of consecutive fortunes of one file, about 8 kB (as the calibration
    battery cuts the English ones)."""
    for package, domain in FORTUNE_LANGS.items():
        for rel, path in src.deb_files([package], "/usr/share/games/fortunes/"):
            if rel.endswith((".dat", ".u8")) or os.path.islink(path):
                continue
            block, size, k = [], 0, 0
            for fortune in re.split(r"\n%\n", cb.read_text(path)):
                fortune = fortune.strip("\n%")
                if not fortune.strip():
                    continue
                block.append(fortune)
                size += len(fortune.encode()) + 3
                if size >= BLOCK_BYTES:
                    yield "%s#%03d" % (rel, k), domain, "\n%\n".join(block) + "\n"
                    block, size, k = [], 0, k + 1
            if block:
                yield "%s#%03d" % (rel, k), domain, "\n%\n".join(block) + "\n"


def read_tcl(src):
    for rel, path in src.deb_files(["libtcl8.6"], "/usr/share/tcltk/tcl8.6/"):
        if rel.endswith(".tcl"):
            domain = "tcl-msgs" if rel.startswith("msgs/") else "tcl-script"
        elif rel.endswith(".enc"):
            domain = "tcl-enc"  # encoding tables: rows of hex
        else:
            continue
        yield rel, domain, cb.read_text(path)


def deb(*names):
    return [("deb", n, None) for n in names]


CORPORA = [
    cb.Corpus("manl10n", "reference, roff markup, five languages",
              "Translated Linux man pages (German, French, Spanish, Italian, Polish)",
              deb(*("manpages-" + lang for lang in MAN_LANGS)), "GPL-3+ and the pages' own",
              read_manl10n),
    cb.Corpus("kjv", "prose (the King James Bible, 1611)", "The KJV, chapter by chapter",
              deb("bible-kjv", "bible-kjv-text"), "public domain", read_kjv),
    cb.Corpus("ruby", "code (Ruby)", "Ruby 3.1's standard library, .rb files",
              deb("libruby3.1"), "Ruby or BSD-2-Clause", read_ruby),
    cb.Corpus("shell", "code (bash)", "bash-completion's completion scripts",
              deb("bash-completion"), "GPL-2+", read_shell),
    cb.Corpus("words", "word lists, five languages", "Spelling word lists, one word a line",
              deb(*WORD_LISTS), "per list (GPL-2, LGPL, public domain)", read_words),
    cb.Corpus("unicode", "structured data (Unicode Character Database)",
              "The UCD's text files, in blocks of lines", deb("unicode-data"), "Unicode-DFS",
              read_unicode),
    cb.Corpus("vim", "documentation and code (Vim help, Vim script)",
              "Vim 9.0's runtime: help files and scripts", deb("vim-runtime"), "Vim",
              read_vim),
    cb.Corpus("fortl10n", "quotations and jokes, four languages",
              "fortune cookies in German, Italian, Spanish and Russian", deb(*FORTUNE_LANGS),
              "per file (GPL, BSD)", read_fortl10n),
    cb.Corpus("tcl", "code (Tcl) and encoding tables", "Tcl 8.6's library",
              deb("libtcl8.6"), "Tcl/Tk (BSD-like)", read_tcl),
]

DOMAINS = {
    "manl10n": ["man-" + lang for lang in MAN_LANGS],
    "kjv": ["kjv-law", "kjv-history", "kjv-poetry", "kjv-prophets", "kjv-gospels",
            "kjv-letters"],
    "ruby": ["ruby-top", "ruby-gems", "ruby-net", "ruby-other"],
    "shell": ["sh-a-f", "sh-g-o", "sh-p-z", "sh-other"],
    "words": [d for _, d in WORD_LISTS.values()],
    "unicode": ["ucd-names", "ucd-tests", "ucd-tables"],
    "vim": ["vim-doc", "vim-syntax", "vim-script"],
    "fortl10n": list(FORTUNE_LANGS.values()),
    "tcl": ["tcl-script", "tcl-msgs", "tcl-enc"],
}
KINDS = ("present", "absent", "absent_related", "pool_like_target", "pool_mixture", "broad",
         "rare", "dominant", "mixture", "near_neighbour")
RUN_ORDER = ("absent", "absent_related", "rare", "dominant", "broad", "pool_like_target",
             "present", "pool_mixture", "mixture", "near_neighbour")


def plan():
    """Built after cb's globals point at these corpora (cb._broad and the others read them)."""
    t, P, U = cb._t, cb.P, cb.U
    near = "its related neighbours stay"

    def related(name, label, domains, pool="gone", why=near):
        return t(name, label, "absent_related", U, domains, pool=pool, why=why)

    return [
        t("man-de", "German man pages", "present", P, ["man-de"]),
        t("kjv-gospels", "KJV: the gospels and Acts", "present", P, ["kjv-gospels"]),
        t("ruby-net", "Ruby: net, uri, openssl", "present", P, ["ruby-net"]),
        t("vim-doc", "Vim help files", "present", P, ["vim-doc"]),
        t("fort-ru", "Russian fortunes", "present", P, ["fort-ru"]),
        # absent, nothing near left (the pool without the corpus, or one unrelated corpus)
        t("absent-words-en", "English word list, no word lists in the pool", "absent", U,
          ["words-en"], pool="without:words", why="nothing else is one word a line"),
        t("absent-kjv", "KJV law, no KJV in the pool", "absent", U, ["kjv-law"],
          pool="without:kjv", why="the only archaic prose"),
        t("absent-unicode", "Unicode tables, no UCD in the pool", "absent", U, ["ucd-tables"],
          pool="without:unicode", why="Tcl's hex tables are the nearest"),
        t("far-kjv-in-unicode", "KJV prophets, a pool of UCD only", "absent", U,
          ["kjv-prophets"], pool="only:unicode", why="nothing near"),
        t("far-ruby-in-words", "Ruby, a pool of word lists only", "absent", U, ["ruby-other"],
          pool="only:words", why="nothing near"),
        t("far-words-in-kjv", "German word list, a pool of KJV only", "absent", U,
          ["words-de"], pool="only:kjv", why="nothing near"),
        t("far-man-fr-in-ruby", "French man pages, a pool of Ruby only", "absent", U,
          ["man-fr"], pool="only:ruby", why="nothing near"),
        # absent, related neighbours stay
        related("nb-man-de", "German man pages gone, four languages stay", ["man-de"]),
        related("nb-man-pl", "Polish man pages gone, four languages stay", ["man-pl"]),
        related("nb-words-de", "German word list gone, four lists stay", ["words-de"]),
        related("nb-words-fr", "French word list gone, four lists stay", ["words-fr"]),
        related("nb-ruby", "Ruby gone; bash, Tcl and Vim script stay", ["ruby-top"],
                pool="without:ruby", why="related programming languages stay"),
        related("nb-tcl", "Tcl gone; Ruby, bash and Vim script stay", ["tcl-script"],
                pool="without:tcl", why="related programming languages stay"),
        related("nb-kjv-letters", "KJV letters gone; the rest of the book stays",
                ["kjv-letters"]),
        related("nb-fort-de", "German fortunes gone; three languages stay", ["fort-de"]),
        # rare: the domain or the whole corpus thinned to a trace
        t("rare-man-it", "Italian man pages, a trace", "rare", U, ["man-it"], pool="rare"),
        t("rare-words-es", "Spanish word list, a trace", "rare", U, ["words-es"], pool="rare"),
        t("rare-kjv-poetry", "KJV poetry, a trace", "rare", U, ["kjv-poetry"], pool="rare"),
        t("rarecorpus-ruby", "Ruby, the corpus a trace", "rare", U, ["ruby-gems"],
          pool="rare_corpus:ruby"),
        t("rarecorpus-vim", "Vim help, the corpus a trace", "rare", U, ["vim-doc"],
          pool="rare_corpus:vim"),
        t("rarecorpus-words", "English words, the corpus a trace", "rare", U, ["words-en"],
          pool="rare_corpus:words"),
        # dominant
        t("dominant-manl10n", "all man pages, a pool mostly man pages", "dominant", U,
          DOMAINS["manl10n"], pool="dominant:manl10n"),
        t("dominant-kjv", "all of the KJV, a pool mostly KJV", "dominant", U, DOMAINS["kjv"],
          pool="dominant:kjv"),
        t("dominant-ruby", "all of Ruby, a pool mostly Ruby", "dominant", U, DOMAINS["ruby"],
          pool="dominant:ruby"),
        t("dominant-words", "all word lists, a pool mostly word lists", "dominant", U,
          DOMAINS["words"], pool="dominant:words"),
        # broad
        cb._broad("broad-no-words-ucd", "7 of 9 (no word lists, no UCD)", ["words", "unicode"]),
        cb._broad("broad-no-code", "6 of 9 (no Ruby, bash, Tcl)", ["ruby", "shell", "tcl"]),
        cb._broad("broad-no-kjv", "8 of 9 (no KJV)", ["kjv"]),
        cb._broad("broad-no-man-fort", "7 of 9 (no man pages, no fortunes)",
                  ["manl10n", "fortl10n"]),
        cb._broad("broad-no-vim", "8 of 9 (no Vim)", ["vim"]),
        # single-corpus pools
        cb._like("manl10n", "all man pages, pool of man pages only"),
        cb._like("kjv", "all of the KJV, pool of KJV only"),
        cb._like("ruby", "all of Ruby, pool of Ruby only"),
        cb._like("words", "all word lists, pool of word lists only"),
        cb._like("vim", "all of Vim, pool of Vim only"),
        # the pool's own mixture
        cb._pool_mixture("mixpool-1", "the pool's own mixture", "mixed", 1),
        cb._pool_mixture("mixpool-2", "the pool's own mixture, another draw", "mixed", 2),
        cb._pool_mixture("mixpool-no-words", "the mixture of the pool without word lists",
                         "without:words", 1),
        cb._pool_mixture("mixpool-dominant-kjv", "the mixture of a pool that is mostly KJV",
                         "dominant:kjv", 1),
        t("mix-code", "Ruby, bash and Tcl together", "mixture", U,
          ["ruby-other", "sh-g-o", "tcl-script"]),
        t("mix-german", "German man pages, words and fortunes", "mixture", U,
          ["man-de", "words-de", "fort-de"]),
        t("nn-man-fr-for-es", "select with French man pages, judged on Spanish",
          "near_neighbour", U, ["man-fr"], ["man-es"]),
        t("nn-words-de-for-en", "select with the German list, judged on the English",
          "near_neighbour", U, ["words-de"], ["words-en"]),
    ]


def use_this_battery():
    """Points the calibration battery's rules at these corpora (they read module globals)."""
    cb.SEED = SEED
    cb.CORPORA = CORPORA
    cb.CORPUS_BY_NAME = {c.name: c for c in CORPORA}
    cb.ALL_DOMAINS = DOMAINS
    cb.DOMAIN_CORPUS = {d: c for c, ds in DOMAINS.items() for d in ds}
    cb.KINDS = KINDS
    cb.RUN_ORDER = RUN_ORDER
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
    needed = [name for c in CORPORA for _, name, _ in c.packages]
    missing = [name for name in needed if src.deb_version(name) == "missing"]
    if missing:
        raise SystemExit("supply-battery: not installed: %s (sudo apt-get install %s)"
                         % (", ".join(missing), " ".join(missing)))
    spec = cb.build(src, args.out, dict(cb.DEFAULTS),
                    lambda msg: print(msg, file=sys.stderr, flush=True))
    # cb.build wrote battery.json under the calibration battery's name; rewritten here, whole
    # and atomically, under this one's.
    spec["name"] = "supply"
    spec["description"] = ("The supply battery (bench/supply/): %d targets over %d corpora "
                           "neither other battery holds." % (len(spec["targets"]), len(CORPORA)))
    spec["default_target"] = spec["targets"][0]["name"]
    path = os.path.join(args.out, "battery.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
