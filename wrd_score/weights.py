"""Step 3 of the pipeline: tokens and vectors -> transport masses.

The paper's mass is the embedding norm (a token's norm grows with how specific it is), normalised to
sum to 1 on each side.  ``idf`` uses a smoothed inverse document frequency,
``idf(w) = ln((1 + N) / (1 + df(w))) + 1``, as scikit-learn's default: it is at least 1, so a
corpus of one document (or a word found in every document) never yields a zero or NaN mass, and
a word unseen in the corpus gets the largest weight, ``ln(1 + N) + 1``.

Where the document frequencies come from is the IDF policy: ``idf``/``norm*idf`` fit them on the
references of the call (or take the user's ``idf=`` table), so a pair's score depends on the other
pairs of the call; ``corpus-idf``/``norm*corpus-idf`` read the fixed table an embedding file ships
(``df_tokens``/``df_counts``/``df_documents``), so every pair gets the same masses in any call.
"""
from __future__ import annotations

import hashlib
import json
import math
import numbers
import operator
import threading
import weakref
from collections import Counter
from itertools import repeat
from typing import Any, Callable, Dict, Iterable, Literal, Mapping, Optional, Sequence, Tuple

import numpy as np

from .checks import check_int, unknown_message
from .signature import pinned

__all__ = ["WEIGHTS", "WeightsName", "IDF_WEIGHTS", "CORPUS_IDF_WEIGHTS", "uses_idf", "uses_corpus_idf", "document_frequencies",
           "fit_idf", "corpus_idf", "shared_idf", "IDFTable", "token_masses", "normalise", "normalise_texts",
           "table_digest", "MAX_IDF_WEIGHT"]

WEIGHTS = {
    "norm": "embedding norm (the paper)",
    "idf": "inverse document frequency (fit on the references of the call unless idf= is given)",
    "norm*idf": "their product",
    "corpus-idf": "inverse document frequency from the table shipped in the static embedding file: the "
                  "same masses in every call",
    "norm*corpus-idf": "norm times corpus-idf",
    "uniform": "equal masses",
}
#: A value of ``weights=`` (the keys of :data:`WEIGHTS`).
WeightsName = Literal["norm", "idf", "norm*idf", "corpus-idf", "norm*corpus-idf", "uniform"]
#: The weights that need an IDF table fitted on the call's references (or given as ``idf=``).
IDF_WEIGHTS = ("idf", "norm*idf")
#: The largest weight of an IDF table: times the largest vector norm float32 storage allows (about 1e40) and any
#: number of tokens, a text's total mass stays finite (at 8e307 two weights summed to infinity, and the masses fell
#: back to uniform).  A float64 table's norms can be larger: a mass or a text's sum that overflows is refused
#: (``token_masses``, ``normalise``).
MAX_IDF_WEIGHT = 1e100
#: The weights whose IDF comes from the document-frequency table shipped in the embedding file.
CORPUS_IDF_WEIGHTS = ("corpus-idf", "norm*corpus-idf")


def uses_idf(scheme: WeightsName) -> bool:
    """Whether masses of this ``weights`` scheme need an IDF table: the one IDF policy's question.

    IDF is fit on the references of one call (or given), so scores with these weights depend on the
    other pairs of the call; scoring in parts (chunks, shards, ranks, batches) shares one table fitted
    on all references instead (:func:`shared_idf`).

    >>> uses_idf("norm*idf"), uses_idf("norm")
    (True, False)
    """
    return scheme in IDF_WEIGHTS


def uses_corpus_idf(scheme: WeightsName) -> bool:
    """Whether masses of this ``weights`` scheme read the embedding file's fixed document frequencies.

    Nothing is fitted for these, so chunked, sharded and distributed scoring need no table.

    >>> uses_corpus_idf("norm*corpus-idf"), uses_idf("norm*corpus-idf")
    (True, False)
    """
    return scheme in CORPUS_IDF_WEIGHTS


class IDFTable:
    """Smoothed IDF over a corpus of token lists; callable on a token."""

    def __init__(self, weights: Mapping[str, float], default: float, n_documents: int, source: str) -> None:
        # Floats whatever was given (2, np.float32(1.5)): every way of building a table gives one table.
        self.weights = _checked_weights(weights, "IDFTable weights")
        self.default = _checked_weight("IDFTable default", default)
        self.n_documents = check_int("IDFTable n_documents", n_documents, minimum=-1,
                                     why="how many documents the table was fitted on; -1: a user's table")
        # Recorded in the signature: "refs" (fit on the call), "user@sha256:..." (the user's table, pinned
        # by its content: scores of two tables must never pass for one run) or "emb" (the embedding file's
        # table, pinned by the file's checksum in the signature).
        self.source = source
        # The embedding file's table (corpus_idf) also as an array over the embedding's words, in
        # row order, beside that word list: token_masses reads it by row where the rows are known.
        self.by_word: Optional[Tuple[Sequence[str], np.ndarray]] = None

    def __call__(self, token: str) -> float:
        return self.weights.get(token, self.default)


def document_frequencies(documents: Iterable[Sequence[str]]) -> Tuple[Counter, int]:
    """How many documents hold each token (once per document), and how many documents there are."""
    df: Counter = Counter()
    n = 0
    for doc in documents:
        n += 1
        df.update(set(doc))
    return df, n


def fit_idf(documents: Iterable[Sequence[str]]) -> IDFTable:
    """Fit smoothed IDF on tokenised documents (document frequency counts a token once per document).

    >>> table = fit_idf([["get", "count"], ["get", "size"]])
    >>> round(table("get"), 4), round(table("size"), 4), round(table("unseen"), 4)
    (1.0, 1.4055, 2.0986)
    """
    df, n = document_frequencies(documents)
    return _smoothed_idf(df, n, "refs")


def _smoothed_idf(df: Mapping[str, int], n: int, source: str) -> IDFTable:
    # The one IDF formula (module docstring), for fitted and shipped document frequencies alike.
    weights = {tok: math.log((1 + n) / (1 + count)) + 1.0 for tok, count in df.items()}
    return IDFTable(weights, math.log(1 + n) + 1.0, n, source)


# One table per loaded embedding (a 250k-token dict costs ~0.1 s to build): WRDScorer is made
# per call by score() and per update by the torchmetrics metric.
_CORPUS_TABLES: "weakref.WeakKeyDictionary[Any, IDFTable]" = weakref.WeakKeyDictionary()


def corpus_idf(embedding: Any, scheme: WeightsName = "corpus-idf") -> IDFTable:
    """The smoothed IDF of the document frequencies an embedding file ships (``df_table``,
    ``df_documents`` of a :class:`~wrd_score.embeddings.StaticEmbedding`); the same for every call.

    >>> class Emb: name, df_table, df_documents = "e", {"get": 2, "size": 1}, 2
    >>> table = corpus_idf(Emb())
    >>> round(table("get"), 4), round(table("size"), 4), table.source
    (1.0, 1.4055, 'emb')
    """
    table = _CORPUS_TABLES.get(embedding)
    if table is None:
        df, n = getattr(embedding, "df_table", None), getattr(embedding, "df_documents", None)
        if df is None or n is None:
            raise ValueError(f"weights={scheme!r} reads the document-frequency table of the embedding file, and "
                             f"embedding {getattr(embedding, 'name', '?')!r} has none (arrays df_tokens, df_counts, "
                             "df_documents); use weights='norm', or 'idf'/'norm*idf' fitted on the references")
        table = _smoothed_idf(df, int(n), "emb")
        words = getattr(embedding, "words", None)
        if words is not None:
            table.by_word = (words, _lookup(table, words))
        _CORPUS_TABLES[embedding] = table
    return table


def shared_idf(weights: WeightsName, idf: Any, references: Optional[Callable[[], Iterable[Sequence[Sequence[str]]]]],
               tokenize: Optional[Callable[[str], Sequence[str]]] = None, *, given: str = "idf=",
               part: str = "part") -> Optional[IDFTable]:
    """The one IDF table of a run, shared by every part it is scored in (the IDF policy's one rule).

    ``None`` for weights that fit no IDF (an ``idf`` given for them is refused, as it would change
    nothing); else the user's table (``idf``: a fitted :class:`IDFTable` as it is, a ``{token: weight}``
    dict through :func:`user_idf`); else the table fitted once on every reference, which is what one
    call over all of them fits, so the parts' scores equal that call's. ``references`` is a function
    giving each example's references (called only when a table is fitted), or ``None`` where the
    caller cannot see them all before scoring (a one-pass stream, one rank of many): then ``idf`` is
    required. ``given`` names the ``idf`` argument in messages (``--idf-file``), ``part`` the part.

    >>> shared_idf("norm", None, None) is None
    True
    >>> round(shared_idf("idf", None, lambda: [["get count"], ["get size"]], str.split)("get"), 4)
    1.0
    >>> shared_idf("idf", None, None, part="rank")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: weights='idf' needs idf=: each rank would fit IDF on its own references...
    """
    if not uses_idf(weights):
        if idf is not None:
            why = ("does not use it (it reads the embedding file's fixed table)" if uses_corpus_idf(weights)
                   else "does not use it")
            raise ValueError(f"{given} was given but weights={weights!r} {why}; pass weights='idf' or 'norm*idf'")
        return None
    if isinstance(idf, IDFTable):
        return idf
    if idf is not None:
        return user_idf(idf)
    if references is None or tokenize is None:
        raise ValueError(f"weights={weights!r} needs idf=: each {part} would fit IDF on its own references and "
                         f"scores would depend on how the input is split into {part}s; pass a table fitted once on "
                         f"all references (WRDScorer(weights={weights!r}).idf_table(references)) or a "
                         "{token: weight} dict")
    return fit_idf(tokenize(r) for refs in references() for r in refs)


#: The tables of the last few dicts given as ``idf=`` (:func:`user_idf`), by the dict's ``id``: a training loop passes
#: one dict every call, and checking and pinning 250k tokens cost each call most of a second (docs/benchmarks.md,
#: ``benchmarks/idf_dict_cost.py``).
#: An entry is used only for a dict that holds the very key and weight objects it held, in the same order, each an
#: exact ``str`` and ``float`` or ``int`` (immutable): the same content, whatever was done to the dict in between (a
#: new dict at a dead one's address included: the entry keeps its objects alive).  Each entry keeps its dict's keys
#: and weights alive, and two lists and a dict of its size.
_USER_TABLES: Dict[int, Tuple[list, list, Tuple[Dict[str, float], float, str]]] = {}
_USER_TABLES_MAX = 2
_USER_TABLES_LOCK = threading.Lock()
_IMMUTABLE_WEIGHTS = {float, int}


def user_idf(mapping: Mapping[str, float]) -> IDFTable:
    """Wrap a user's ``{token: weight}`` dict; unknown tokens get the largest weight in it.

    A dict given again that holds the very same key and weight objects in the same order gets a copy of its last
    table instead of being checked and pinned again (:data:`_USER_TABLES`); anything else is read anew."""
    if not isinstance(mapping, Mapping):
        raise TypeError(f"idf must be a dict of token -> weight, got {type(mapping).__name__}")
    # A plain dict alone: a Mapping of the user's own may give other items each time it is read.
    remembered = type(mapping) is dict
    if remembered:
        with _USER_TABLES_LOCK:
            kept = _USER_TABLES.pop(id(mapping), None)
            if kept is not None:
                _USER_TABLES[id(mapping)] = kept  # the most recently used last
        if kept is not None and _holds(mapping, kept[0], kept[1]):
            weights, default, source = kept[2]
            return IDFTable(weights, default, -1, source)  # a copy: its caller may change the table handed out
    given = mapping
    if remembered:
        mapping = dict(mapping)  # one C call: what is checked is what is remembered, whatever another thread does
    weights = _checked_weights(mapping, "idf")
    if not weights:  # every token would take the default weight: uniform masses under an idf:user signature
        raise ValueError("idf is empty: it weighs no token (each would get the same weight, the masses of "
                         "weights='uniform'); give a table, or leave idf unset to fit one on the references")
    default = max(weights.values())
    table = IDFTable(weights, default, -1, pinned("user", table_digest(weights)))
    if remembered and set(map(type, mapping)) <= {str} and set(map(type, mapping.values())) <= _IMMUTABLE_WEIGHTS:
        with _USER_TABLES_LOCK:
            _USER_TABLES.pop(id(given), None)
            _USER_TABLES[id(given)] = (list(mapping), list(mapping.values()), (weights, default, table.source))
            while len(_USER_TABLES) > _USER_TABLES_MAX:
                del _USER_TABLES[next(iter(_USER_TABLES))]
    return table


def _holds(mapping: dict, keys: list, values: list) -> bool:
    """Whether ``mapping`` holds exactly these key and value objects, in this order (C-level passes)."""
    try:
        return (len(mapping) == len(keys) and all(map(operator.is_, mapping, keys))
                and all(map(operator.is_, mapping.values(), values)))
    except RuntimeError:  # changed by another thread while being compared
        return False


def _checked_weight(name: str, value: Any) -> float:
    """One IDF weight as a float in ``[0, MAX_IDF_WEIGHT]``, or an error naming ``name``."""
    # JSON true is no weight, though float(True) is 1.0; nor is a string, though float() reads "5" and "1_0".
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    try:
        value = float(value)
    except OverflowError:  # an int too large for a float, e.g. 400 digits from a JSON file
        raise ValueError(f"{name} must be finite and >= 0, got an integer of {len(str(abs(value)))} digits") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {value}")
    if value > MAX_IDF_WEIGHT:
        raise ValueError(f"{name} must be at most {MAX_IDF_WEIGHT:g} (a text's total mass would overflow to "
                         f"infinity), got {value:g}")
    return value


def _checked_weights(weights: Mapping[str, Any], name: str) -> Dict[str, float]:
    """A copy of a table's weights, each as :func:`_checked_weight` makes it (a float), keys strings.  One pass at C
    speed first: every fitted table (one a call, and the embedding's 250k-token one) is built through here; the
    weights one by one only where one is no float or out of range, to convert or name it."""
    out = dict(weights)
    if not set(map(type, out)) <= {str}:
        for token in out:
            if not isinstance(token, str):
                raise TypeError(f"{name} keys must be strings, got {type(token).__name__} ({token!r})")
    kinds = set(map(type, out.values()))
    ok = False
    if kinds <= {float, int}:  # fromiter would read "5" and True as numbers, and call any object's __float__
        try:
            values = np.fromiter(out.values(), dtype=np.float64, count=len(out))
            ok = bool(((values >= 0) & (values <= MAX_IDF_WEIGHT)).all())  # NaN fails both
        except OverflowError:  # an int too large for a float: named below
            pass
    if not ok or (kinds != {float} and out):
        out = {token: _checked_weight(f"{name}[{token!r}]", value) for token, value in out.items()}
    return out


def table_digest(weights: Mapping[str, float]) -> str:
    """sha256 of a table's canonical content: its (token, float weight) pairs sorted by token, so the
    same table read from JSON or TSV, in any order, with ``2`` or ``2.0``, has one digest.

    >>> table_digest({"b": 2, "a": 1.0}) == table_digest({"a": 1, "b": 2.0})
    True
    """
    canonical = json.dumps(sorted((token, float(value)) for token, value in weights.items()), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def token_masses(norms: np.ndarray, tokens: Sequence[str], scheme: WeightsName, idf: Optional[IDFTable],
                 vocabulary: Optional[Tuple[Sequence[str], np.ndarray]] = None) -> np.ndarray:
    """Unnormalised mass of every row of an :class:`~wrd_score.backends.base.Encoded` table.

    ``vocabulary``: the table's ``vocabulary`` (an embedding's word list, each token's row in it or
    -1), which lets the embedding file's own IDF table be read by row."""
    if scheme == "uniform":
        return np.ones(len(tokens))
    if scheme == "norm":
        masses = np.asarray(norms, dtype=np.float64).copy()
        _check_masses(masses, tokens, norms, None)
        return masses
    if idf is None:
        raise ValueError(f"weights={scheme!r} needs an IDF table")
    if type(idf) is not IDFTable:
        idf_values = np.fromiter(map(idf, tokens), dtype=np.float64, count=len(tokens))
    elif vocabulary is not None and idf.by_word is not None and idf.by_word[0] is vocabulary[0]:
        # A gather by row, and a dict lookup only for tokens outside the vocabulary: after encode
        # the lookups of every token missed the CPU caches (1.8 ms of 6,600 tokens, now 0.6 ms).
        rows = vocabulary[1]
        idf_values = idf.by_word[1][np.maximum(rows, 0)]
        outside = np.flatnonzero(rows < 0)
        idf_values[outside] = _lookup(idf, list(map(tokens.__getitem__, outside.tolist())))
    else:
        idf_values = _lookup(idf, tokens)
    if scheme in ("idf", "corpus-idf"):
        _check_masses(idf_values, tokens, None, idf_values)
        return idf_values
    if scheme in ("norm*idf", "norm*corpus-idf"):
        with np.errstate(over="ignore"):  # an overflow is refused just below, by token
            masses = idf_values * np.asarray(norms, dtype=np.float64)
        _check_masses(masses, tokens, norms, idf_values)
        return masses
    raise ValueError(unknown_message("weights", scheme, WEIGHTS))


def _check_masses(masses: np.ndarray, tokens: Sequence[str], norms: Optional[np.ndarray],
                  idf_values: Optional[np.ndarray]) -> None:
    """Refuse a mass that is not finite and >= 0, naming the token and the factor at fault.

    The tables built here and the embeddings loaded here never give one; an ``IDFTable`` changed after it was
    built, a subclass's own ``__call__``, a custom backend's norms can, and :func:`normalise` would have no
    honest masses to fall back to."""
    ok = np.isfinite(masses) & (masses >= 0)
    if idf_values is not None:
        ok &= idf_values <= MAX_IDF_WEIGHT
    if ok.all():
        return
    i = int(np.flatnonzero(~ok)[0])
    token = tokens[i]
    if norms is not None and not (math.isfinite(norms[i]) and norms[i] >= 0):
        raise ValueError(f"the backend gave token {token!r} the norm {norms[i]}: a vector norm must be finite and "
                         ">= 0 (its vector holds NaN or inf, or overflows)")
    if idf_values is not None and not 0 <= idf_values[i] <= MAX_IDF_WEIGHT:
        raise ValueError(f"idf gave token {token!r} the weight {idf_values[i]}: IDF weights must be finite, >= 0 "
                         f"and at most {MAX_IDF_WEIGHT:g}")
    raise ValueError(f"token {token!r}'s mass, its norm {norms[i]:g} times its IDF weight {idf_values[i]:g}, "
                     "overflows to inf")


def _lookup(idf: IDFTable, tokens: Sequence[str]) -> np.ndarray:
    # idf(t) for each token, as C-level dict lookups (a Python call per token cost more than the rest).
    values = map(idf.weights.get, tokens, repeat(idf.default))
    return np.fromiter(values, dtype=np.float64, count=len(tokens))


def normalise(mass: np.ndarray) -> np.ndarray:
    """One text's masses scaled to sum to 1: :func:`normalise_texts` of one text (``explain()``, the POT path), so a
    text has the masses the batch scorer gives it, to the last bit."""
    return normalise_texts(mass, np.array([len(mass)]))


def normalise_texts(raw: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Each text's masses scaled to sum to 1: the one normalisation rule.  ``raw`` holds the texts' masses end to end,
    ``lengths`` how many each text has (the batch scorer's layout).

    A text's total is its masses summed in token order.  A text whose masses are all zero gets uniform masses (its
    tokens count equally); masses that are not finite and >= 0, or whose sum overflows, are refused: no fallback
    would score them."""
    owner = np.repeat(np.arange(len(lengths)), lengths)
    with np.errstate(over="ignore"):
        totals = np.bincount(owner, weights=raw, minlength=len(lengths))
    _check_totals(totals, raw)
    zero = ~(totals > 0)
    uniform = 1.0 / np.maximum(lengths, 1)
    return np.where(zero[owner], uniform[owner], raw / np.where(zero, 1.0, totals)[owner])


def _check_totals(totals: np.ndarray, masses: np.ndarray) -> None:
    # The last guard: token_masses refuses a bad mass by token, so only a sum that overflows (or a caller's own
    # masses) reach here.  Uniform masses in their place were a score of other masses under this signature.
    if np.isfinite(totals).all() and not (masses < 0).any():
        return
    bad = totals[~np.isfinite(totals)]
    what = f"sum to {bad[0]}" if bad.size else "hold a negative mass"
    raise ValueError(f"a text's token masses {what}: masses must be finite and >= 0 and their sum finite (IDF weights "
                     f"at most {MAX_IDF_WEIGHT:g}, vector norms finite); not falling back to uniform masses, which "
                     "would score other masses")
