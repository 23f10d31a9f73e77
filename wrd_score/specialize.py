"""Specialising a static embedding for method names (``wrdscore specialize``): counter-fitting to linguistic
constraints, role-aware verb masses in the norms, one negation direction (:func:`specialize_file`).

Mrkšić et al. (NAACL 2016), "Counter-fitting Word Vectors to Linguistic Constraints": on unit
vectors, with the cosine distance ``d(u, v) = 1 - cos(u, v)`` and ``τ(x) = max(0, x)``, minimise

* antonym repel ``AR = Σ_(u,w) in A τ(δ - d(u', w'))``: opposites pushed to distance ``δ`` (1.0: a
  cosine of 0 or less, which the scorer clips to 0);
* synonym attract ``SA = Σ_(u,w) in S τ(d(u', w') - γ)``: synonyms pulled to distance ``γ``;
* vector space preservation ``VSP = Σ_i Σ_(j in N(i)) τ(d(v'_i, v'_j) - d(v_i, v_j))``: each word's
  neighbours within distance ``ρ`` in the original space stay at least as close as they were;

weighted ``k_A AR + k_S SA + k_V VSP``, by the paper's update: every step moves each word by the mean of
its terms' gradients (``u <- u - k ∂/∂u``, ``∂ cos(u, v)/∂u = v - (u·v) u`` for unit vectors), then
renormalises. As in the paper, only words in a constraint and their original neighbours move.

Post-specialisation (Vulić et al., NAACL 2018, "Post-Specialisation: Retrofitting Vectors of Words Unseen in
Lexical Resources"), optional: a global map ``f`` is fitted from the original directions of the words that
counter-fitting moved by a constraint to their counter-fitted directions, and every word in no constraint takes the
direction ``f(original direction)`` (:func:`post_specialize`; ``linear``: least squares with a bias, float64).

WRDScore's ``norm`` mass is the vector's length: each row keeps its length, only its direction moves.
Deterministic: float64 throughout, a fixed number of full-batch steps (no sampling, no seed to set),
pairs in sorted order and gradients summed with ``np.add.at`` in that order; the neighbour search is a
matrix product per block of rows, in float64, whose result is compared with a threshold only.
"""
from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .checks import check_choice, check_int, check_needs, check_number
from .constraints import Constraint
from .distill import corpus_documents, document_frequency_table
from .embeddings import StaticEmbedding, unit_rows
from .train import check_embedding_output
from .tokenize import split_identifier

__all__ = ["CounterFitStats", "counter_fit", "neighbour_pairs", "POST_SPECIALIZE", "linear_map", "post_specialize",
           "NEGATORS", "verb_shares", "verb_norms", "negation_rows", "specialize_file", "check_steps", "STEP_NEEDS",
           "COUNTER_FIT_DEFAULTS", "MAX_ITERATIONS", "MAX_NEIGHBOUR_PAIRS", "MAX_VERB_WEIGHT"]

#: The paper's settings (Mrkšić et al. 2016), the defaults of :func:`counter_fit` and of ``wrdscore specialize``.
COUNTER_FIT_DEFAULTS: Dict[str, float] = {"delta": 1.0, "gamma": 0.0, "rho": 0.2, "k_antonym": 0.1, "k_synonym": 0.1,
                                          "k_vsp": 0.1, "iterations": 20}
#: The input each optional parameter's step needs: given without it, the parameter is refused, not ignored.
STEP_NEEDS: Dict[str, str] = {**{name: "constraints" for name in COUNTER_FIT_DEFAULTS}, "post": "constraints",
                              "verb_weight": "verb_corpus", "negators": "verb_corpus"}
#: Most full-batch steps (each about 0.04 s on the 38,937-word MiniLM files; the paper's 20 converge).
MAX_ITERATIONS = 1000
#: Most neighbour pairs the preservation term may hold: each is a Python dict entry while searching and a row of
#: every step after (``rho`` 0.2 finds 3,425 on the MiniLM files; ``rho`` 1 would find tens of millions).
MAX_NEIGHBOUR_PAIRS = 2_000_000
#: Largest verb-mass scale: 1 makes a verb weigh like a median object word.
MAX_VERB_WEIGHT = 10.0


@dataclass
class CounterFitStats:
    antonyms: int
    synonyms: int
    neighbour_pairs: int
    words_moved: int
    antonyms_apart: float  # share of antonym pairs at distance >= delta after fitting
    synonyms_together: float  # mean cosine of the synonym pairs after fitting

    def as_dict(self) -> Dict[str, float]:
        return dict(self.__dict__)


def _pairs(constraints: Sequence[Constraint], index: Dict[str, int], relation: str) -> np.ndarray:
    rows = sorted({(index[c.a], index[c.b]) for c in constraints
                   if c.relation == relation and c.a in index and c.b in index})
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def neighbour_pairs(units: np.ndarray, rows: np.ndarray, rho: float, block: int = 1024) -> Tuple[np.ndarray, np.ndarray]:
    """Pairs ``(i, j)``, ``i`` in ``rows``, ``j != i`` any row, with cosine distance below ``rho`` in
    ``units``; and those distances. Sorted, each unordered pair once."""
    found: Dict[Tuple[int, int], float] = {}
    for start in range(0, len(rows), block):
        chunk = rows[start:start + block]
        sims = units[chunk] @ units.T
        for k, i in enumerate(chunk.tolist()):
            for j in np.flatnonzero(sims[k] > 1.0 - rho).tolist():
                if len(found) >= MAX_NEIGHBOUR_PAIRS:
                    raise ValueError(f"rho={rho} makes more than {MAX_NEIGHBOUR_PAIRS:,} neighbour pairs to preserve "
                                     "(memory and time grow with them); lower rho (the paper's is 0.2)")
                if j != i:
                    # The distance of the pair from the row of its smaller index: the same number whichever
                    # end was searched from.
                    a, b = min(i, j), max(i, j)
                    found.setdefault((a, b), 1.0 - float(units[a] @ units[b]))
    items = sorted(found.items())
    pairs = np.array([p for p, _ in items], dtype=np.int64).reshape(-1, 2)
    return pairs, np.array([d for _, d in items], dtype=np.float64)


def _grad(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Gradient of cos(u, v) with respect to unit u (row-wise)."""
    dots = np.einsum("ij,ij->i", u, v)
    return v - dots[:, None] * u


def counter_fit(words: Sequence[str], vectors: np.ndarray, constraints: Sequence[Constraint], *,
                delta: float = COUNTER_FIT_DEFAULTS["delta"], gamma: float = COUNTER_FIT_DEFAULTS["gamma"],
                rho: float = COUNTER_FIT_DEFAULTS["rho"], k_antonym: float = COUNTER_FIT_DEFAULTS["k_antonym"],
                k_synonym: float = COUNTER_FIT_DEFAULTS["k_synonym"], k_vsp: float = COUNTER_FIT_DEFAULTS["k_vsp"],
                iterations: int = int(COUNTER_FIT_DEFAULTS["iterations"])) -> Tuple[np.ndarray, CounterFitStats]:
    """Counter-fit ``vectors`` (rows of ``words``) to ``constraints``; returns the new vectors (each row
    with its old length) and what was done. Constraints naming a word outside ``words`` are skipped.

    ``delta``, ``gamma`` and ``rho`` are cosine distances, in [0, 2]; the weights ``k_*`` lie in [0, 1] (a step
    moves a unit vector by at most its weight; far larger ones overflowed to NaN vectors); ``iterations`` in
    1..:data:`MAX_ITERATIONS`."""
    for name, value in (("delta", delta), ("gamma", gamma), ("rho", rho)):
        check_number(name, value, 0, 2)
    for name, value in (("k_antonym", k_antonym), ("k_synonym", k_synonym), ("k_vsp", k_vsp)):
        check_number(name, value, 0, 1)
    check_int("iterations", iterations, 1, MAX_ITERATIONS)
    index = {w: i for i, w in enumerate(words)}
    ant = _pairs(constraints, index, "antonym")
    syn = _pairs(constraints, index, "synonym")
    original, norms = unit_rows(np.asarray(vectors, dtype=np.float64))
    constrained = np.unique(np.concatenate([ant.ravel(), syn.ravel()]))
    vsp, vsp_distance = neighbour_pairs(original, constrained, rho) if rho > 0 and len(constrained) else \
        (np.zeros((0, 2), dtype=np.int64), np.zeros(0))
    moving = np.unique(np.concatenate([constrained, vsp.ravel()]))
    # Only the moving rows are fitted, in a compact table: row r of ``current`` is word ``moving[r]``.
    local = {int(w): r for r, w in enumerate(moving.tolist())}
    remap = np.vectorize(local.__getitem__, otypes=[np.int64])
    ant_l, syn_l, vsp_l = (remap(p) if len(p) else p for p in (ant, syn, vsp))
    current = original[moving].copy()
    for _ in range(iterations):
        update = np.zeros_like(current)
        count = np.zeros(len(current))
        for pairs, k, active, sign in (
                (ant_l, k_antonym, lambda d, _: d < delta, -1.0),
                (syn_l, k_synonym, lambda d, _: d > gamma, 1.0),
                (vsp_l, k_vsp, lambda d, d0: d > d0, 1.0)):
            if not len(pairs) or k == 0:
                continue
            u, v = current[pairs[:, 0]], current[pairs[:, 1]]
            dist = 1.0 - np.einsum("ij,ij->i", u, v)
            on = active(dist, vsp_distance) if pairs is vsp_l else active(dist, None)
            if not on.any():
                continue
            a, b = pairs[on, 0], pairs[on, 1]
            # sign +1 pulls together (raises the cosine), -1 pushes apart.
            np.add.at(update, a, sign * k * _grad(u[on], v[on]))
            np.add.at(update, b, sign * k * _grad(v[on], u[on]))
            np.add.at(count, a, 1.0)
            np.add.at(count, b, 1.0)
        moved = count > 0
        current[moved] += update[moved] / count[moved, None]
        current, _ = unit_rows(current)
    out = original.copy()
    out[moving] = current
    # Rows that did not move keep their exact bits (not unit * norm, which rounds).
    fitted = np.asarray(vectors, dtype=np.float64).copy()
    fitted[moving] = current * norms[moving, None]
    cos = lambda p: np.einsum("ij,ij->i", out[p[:, 0]], out[p[:, 1]]) if len(p) else np.zeros(0)  # noqa: E731
    stats = CounterFitStats(antonyms=len(ant), synonyms=len(syn), neighbour_pairs=len(vsp), words_moved=len(moving),
                            antonyms_apart=float(np.mean(1.0 - cos(ant) >= delta - 1e-9)) if len(ant) else 1.0,
                            synonyms_together=float(np.mean(cos(syn))) if len(syn) else 1.0)
    return fitted, stats


def linear_map(x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The affine map ``z -> [z, 1] @ W`` with ``W`` the least-squares fit of rows ``x`` to rows ``y`` (float64)."""
    design = np.hstack([x, np.ones((len(x), 1))])
    w, *_ = np.linalg.lstsq(design, y, rcond=None)
    return lambda z: np.hstack([z, np.ones((len(z), 1))]) @ w


#: Post-specialisation maps by name (``wrdscore specialize --post-specialize``).
POST_SPECIALIZE: Dict[str, Callable] = {"linear": linear_map}


def post_specialize(original: np.ndarray, fitted: np.ndarray, learn: np.ndarray, keep: np.ndarray,
                    fit: Callable = linear_map) -> Tuple[np.ndarray, int]:
    """Give the rows outside ``keep`` the direction ``f(their direction in original)`` and keep their length in
    ``fitted`` (the norm is the mass); ``f = fit(x, y)`` is fitted on the rows ``learn``, from their directions in
    ``original`` to those in ``fitted``. Rows in ``keep``, zero rows and rows that ``f`` maps to zero stay as in
    ``fitted``. Returns the vectors (float64) and how many rows were mapped."""
    learn = np.asarray(learn, dtype=np.int64)
    if not len(learn):
        raise ValueError("post-specialisation needs constrained words to learn its map from")
    x, _ = unit_rows(np.asarray(original, dtype=np.float64))
    out = np.asarray(fitted, dtype=np.float64).copy()
    y, norms = unit_rows(out)
    f = fit(x[learn], y[learn])
    rest = np.setdiff1d(np.flatnonzero(norms > 0), np.asarray(keep, dtype=np.int64))
    mapped, mapped_norms = unit_rows(np.asarray(f(x[rest]), dtype=np.float64))
    rest, mapped = rest[mapped_norms > 0], mapped[mapped_norms > 0]
    out[rest] = mapped * norms[rest, None]
    return out, len(rest)


#: Negating words (a closed class): ``isNotEmpty``, ``hasNoValue``, ``nonNull``, ``canNever``.
NEGATORS = ("not", "no", "non", "never", "none", "nothing", "without", "cannot", "neither", "nor")
#: A word is a leading verb of method names when it is the first word of at least this share of the distinct
#: names holding it, in at least MIN_VERB_NAMES of them.
MIN_VERB_NAMES = 100


def verb_shares(names: Iterable[Sequence[str]], min_names: int = MIN_VERB_NAMES) -> Tuple[Dict[str, float], Counter]:
    """``({word: share of the names holding it that it starts}, object-word occurrences)`` over split names."""
    holding: Counter = Counter()
    leading: Counter = Counter()
    objects: Counter = Counter()
    for tokens in names:
        if not tokens:
            continue
        holding.update(set(tokens))
        leading[tokens[0]] += 1
        objects.update(tokens[1:])
    shares = {w: leading[w] / n for w, n in holding.items() if n >= min_names and leading[w]}
    return shares, objects


def verb_norms(words: Sequence[str], vectors: np.ndarray, shares: Mapping[str, float],
               objects: Mapping[str, int], weight: float = 1.0) -> Tuple[np.ndarray, float, int]:
    """Role-aware masses in the norms: each word's norm becomes ``max(norm, weight * share * R)``, ``share`` the share
    of method names it leads (:func:`verb_shares`) and ``R`` the median norm of an object word's occurrence
    (every word after the first of each name), so that a word that names the operation (``get``, ``set``,
    ``add``) weighs about as much as the object it acts on. Returns the vectors, ``R`` and how many rows grew."""
    out = np.asarray(vectors, dtype=np.float64).copy()
    norms = np.linalg.norm(out, axis=1)
    index = {w: i for i, w in enumerate(words)}
    rows = [(index[w], c) for w, c in sorted(objects.items()) if w in index]
    if not rows:
        return out, 0.0, 0
    order = np.argsort(norms[[r for r, _ in rows]], kind="stable")
    values = norms[[rows[k][0] for k in order]]
    weights = np.cumsum([rows[k][1] for k in order], dtype=np.float64)
    reference = float(values[np.searchsorted(weights, weights[-1] / 2.0)])
    grown = 0
    for word, share in sorted(shares.items()):
        i = index.get(word)
        if i is None or norms[i] == 0:
            continue
        target = weight * share * reference
        if target > norms[i]:
            out[i] *= target / norms[i]
            grown += 1
    return out, reference, grown


def negation_rows(words: Sequence[str], vectors: np.ndarray, negators: Sequence[str],
                  reference: Optional[float] = None) -> Tuple[np.ndarray, List[str]]:
    """Negating words share one direction, opposite to the mean direction of the vocabulary: their cosine with
    a typical word is negative (0 where the scorer clips cosines) and 1 among themselves, so a negation left
    unmatched lowers the score instead of matching ``is`` or ``empty``. Their norm becomes at least
    ``reference`` (a full-weight word). Returns the vectors and the words changed."""
    out = np.asarray(vectors, dtype=np.float64).copy()
    units, norms = unit_rows(out)
    mean = units[norms > 0].mean(axis=0)
    direction = -mean / np.linalg.norm(mean)
    index = {w: i for i, w in enumerate(words)}
    changed = []
    for word in negators:
        i = index.get(word)
        if i is None:
            continue
        out[i] = direction * max(norms[i], reference or 0.0)
        changed.append(word)
    return out, changed


def check_steps(params: Iterable[str], verb_weight: Optional[float], post: Optional[str], *, constraints: bool,
                verbs: bool, negators: bool = False, name: Callable[[str], str] = str) -> None:
    """Refuse a parameter given without the input its step needs (:data:`STEP_NEEDS`): the counter-fitting
    ``params`` and ``post`` without constraints, ``verb_weight`` and ``negators`` (their norm is the verb step's)
    without a verb corpus; ``name`` spells them (the CLI's flags). The CLI calls it before reading any file,
    :func:`specialize_file` again for library callers."""
    given = [*params, *(["verb_weight"] if verb_weight is not None else []), *(["post"] if post is not None else []),
             *(["negators"] if negators else [])]
    check_needs(given, STEP_NEEDS, {"constraints": constraints, "verb_corpus": verbs}, name)


def specialize_file(source: str, output: str, constraints: Mapping[str, Sequence[Constraint]], *, name: str,
                    dtype: str = "float16", command: Optional[str] = None, verb_corpus: Optional[str] = None,
                    negators: Sequence[str] = (), df_corpora: Sequence[Tuple[str, str]] = (),
                    verb_weight: Optional[float] = None, post: Optional[str] = None, **params) -> str:
    """Specialise the embedding ``source`` (a name or ``.npz``) and write it to ``output`` with the same words,
    tokenizer and document-frequency table; returns the new file's sha256. Steps, each optional:

    1. counter-fitting to ``constraints`` (``{file: pairs}``; :func:`counter_fit` with ``params``); with ``post``
       (a name of :data:`POST_SPECIALIZE`), post-specialisation (:func:`post_specialize`): the map is learnt from
       the words of the pairs counter-fitting acted on (antonyms when ``k_antonym > 0``, synonyms when
       ``k_synonym > 0``) and moves every word in no constraint;
    2. ``verb_corpus`` (method names, one per line, ``.gz`` allowed): role-aware norms (:func:`verb_norms`, with
       ``verb_weight``: default 1, at most :data:`MAX_VERB_WEIGHT`);
    3. ``negators``: one shared negation direction (:func:`negation_rows`), norm at least the verb step's ``R``;
    4. ``df_corpora``: a document-frequency table of these ``(path, format)`` corpora in place of the input's
       (:func:`wrd_score.distill.document_frequency_table`, as ``wrdscore distill --df-corpus`` builds it).

    What was done, with the constraint files' sha256 and ``command``, goes to ``meta["specialize"]``. A step's
    parameter given without its step is refused (it would be ignored)."""
    unknown = sorted(set(params) - set(COUNTER_FIT_DEFAULTS))
    if unknown:
        raise TypeError(f"specialize_file() got unknown parameters {unknown}; counter-fitting takes "
                        f"{sorted(COUNTER_FIT_DEFAULTS)}")
    if post is not None:
        check_choice("post", post, sorted(POST_SPECIALIZE))
    check_steps(params, verb_weight, post, constraints=any(constraints.values()), verbs=verb_corpus is not None,
                negators=bool(negators))
    verb_weight = 1.0 if verb_weight is None else check_number("verb_weight", verb_weight, 0, MAX_VERB_WEIGHT)
    check_embedding_output(output, [("source", source), ("verb_corpus", verb_corpus)]
                           + [("constraints", path) for path in constraints]
                           + [("df_corpora", path) for path, _ in df_corpora])
    emb = StaticEmbedding.load(source)
    if emb.has_ngrams:
        raise ValueError(f"embedding {source!r} composes unknown words from fastText n-grams, which these steps "
                         "would not move; specialise a file without n-grams (e.g. a distilled one)")
    vectors = np.asarray(emb.vectors, dtype=np.float64)
    record: Dict[str, object] = {"input": {"name": emb.name, "sha256": emb.checksum}, "command": command}
    pairs = [c for group in constraints.values() for c in group]
    if pairs:
        original = vectors
        vectors, stats = counter_fit(emb.words, vectors, pairs, **params)
        files = []
        for path, group in constraints.items():
            with open(path, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
            files.append({"path": os.path.basename(path), "sha256": digest, "pairs": len(group)})
        record["counterfit"] = {"method": "counter-fitting (Mrksic et al. 2016)", "constraints": files,
                                **COUNTER_FIT_DEFAULTS, **params,
                                **stats.as_dict()}
        if post is not None:
            acting = {r for r, k in (("antonym", "k_antonym"), ("synonym", "k_synonym"))
                      if params.get(k, COUNTER_FIT_DEFAULTS[k]) > 0}
            def rows(cs: Iterable[Constraint]) -> np.ndarray:
                """The embedding rows of the words of ``cs``, sorted."""
                return np.array(sorted({emb.index[w] for c in cs for w in c.pair if w in emb.index}), dtype=np.int64)

            learn = rows(c for c in pairs if c.relation in acting)
            vectors, mapped = post_specialize(original, vectors, learn, rows(pairs), POST_SPECIALIZE[post])
            record["post_specialize"] = {"method": f"{post} (Vulic et al. 2018)", "learnt_from": len(learn),
                                         "relations": sorted(acting), "mapped": mapped}
    reference = None
    if verb_corpus is not None:
        texts, _ = corpus_documents(verb_corpus, "identifiers")
        shares, objects = verb_shares(split_identifier(t) for t in texts)
        vectors, reference, grown = verb_norms(emb.words, vectors, shares, objects, verb_weight)
        record["verbs"] = {"corpus": os.path.basename(verb_corpus), "names": len(texts), "min_names": MIN_VERB_NAMES,
                           "weight": verb_weight, "reference_norm": reference, "grown": grown}
    if negators:
        vectors, changed = negation_rows(emb.words, vectors, negators, reference)
        record["negation"] = {"words": changed}
    df_table, df_documents = emb.df_table, emb.df_documents
    meta = dict(emb.meta, name=name, specialize=record)
    if df_corpora:
        tokens, counts, df_documents = document_frequency_table(df_corpora)
        df_table = dict(zip(tokens.tolist(), counts.tolist()))
        meta["df"] = {"corpora": [{"path": os.path.basename(p), "format": f} for p, f in df_corpora],
                      "min_count": 2, "documents": df_documents, "tokens": len(tokens)}
    out = StaticEmbedding(emb.words, vectors, tokenizer_json=emb.tokenizer_json, name=name, meta=meta,
                          df_table=df_table, df_documents=df_documents)
    return out.save(output, dtype=dtype)
