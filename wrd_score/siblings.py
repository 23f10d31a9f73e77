"""WRDScore's siblings, computed on the same footing: BERTScore, MoverScore and ROUGE.

One call, :func:`compare`, scores the same predictions/references with any subset of
``{"wrdscore", "bertscore", "moverscore", "rouge"}`` and returns one table.  BERTScore and
MoverScore use the *same backend and embeddings* as WRDScore (``backend="contextual"`` for the
transformer encoder, or the static default), so the differences in the table come from the
matching rule alone:

* **WRDScore**: exact optimal transport, cost ``1 - cos``, precision/recall read off the flow.
* **BERTScore** (Zhang et al. 2020): greedy max-cosine matching, optional IDF weights
  ``ln((N + 1) / (df + 1))`` fit on the references (bert_score's formula), special tokens weigh 0.
* **MoverScore** (``moverscore_v2``, Zhao et al. 2019): IDF masses fit separately on references
  and on predictions, Euclidean cost between unit vectors, ``score = 1 / (1 + cost)`` (``form``
  ``"complement"`` gives ``1 - cost``, as the PyPI release 1.0.3 computes).  Its stop-word,
  sub-word (``##`` pieces) and punctuation removal are explicit options.
* **ROUGE-1/2/L**: the ``rouge-score`` package (F-measure), optionally on identifier subtokens.

>>> table = compare(["getCount"], ["get_count"], metrics=("rouge",))
>>> table["rouge1"]
[0.0]
>>> compare(["getCount"], ["get_count"], metrics=("rouge",), rouge_split_identifiers=True)["rouge1"]
[1.0]
"""
from __future__ import annotations

import math
import string
from dataclasses import fields
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .metric import Options, WRDScorer, _check_references, _check_texts
from .tokenize import split_identifier
from .weights import document_frequencies

__all__ = ["METRICS", "compare", "bertscore", "moverscore", "rouge", "ROUGE_TYPES", "MOVERSCORE_FORMS"]

METRICS = ("wrdscore", "bertscore", "moverscore", "rouge")
ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
MOVERSCORE_FORMS = ("inverse", "complement")
_KEEP_DROP = ("drop", "keep")
_OPTION_NAMES = frozenset(f.name for f in fields(Options))

References = Union[Sequence[str], Sequence[Sequence[str]]]


# --------------------------------------------------------------------------- helpers
def _inputs(predictions: Any, references: Any) -> Tuple[List[str], List[List[str]]]:
    predictions = _check_texts("predictions", predictions)
    return predictions, _check_references(references, len(predictions))


def _backend_for(options: Mapping[str, Any]):
    unknown = set(options) - _OPTION_NAMES
    if unknown:
        raise TypeError(f"unknown option(s) {sorted(unknown)}; known: {sorted(_OPTION_NAMES)}")
    scorer = WRDScorer(**options)
    return scorer.backend, scorer.options


def _distinct(predictions: List[str], refs: List[List[str]]) -> Tuple[List[str], Dict[str, int]]:
    # Same order as WRDScorer.score (predictions first, then references), so a backend that
    # memoises its last forward pass serves every metric of one compare() call from one encoding.
    index: Dict[str, int] = {}
    for text in predictions:
        index.setdefault(text, len(index))
    for group in refs:
        for text in group:
            index.setdefault(text, len(index))
    return list(index), index


def _encode(backend, texts: List[str], keep_special: bool):
    if keep_special and getattr(backend, "kind", "") == "contextual":
        return backend.encode(texts, keep_special=True)
    return backend.encode(texts)


def _special_mask(enc) -> np.ndarray:
    special = getattr(enc, "special", None)
    return np.zeros(len(enc.tokens), dtype=bool) if special is None else np.asarray(special, dtype=bool)


def _fit_log_idf(documents: Iterable[Sequence[str]]) -> Tuple[Dict[str, float], float]:
    """IDF as bert_score and moverscore_v2 define it: ``ln((N + 1) / (df + 1))``; unseen: ``ln(N + 1)``.

    >>> table, unseen = _fit_log_idf([["a", "b"], ["a"]])
    >>> round(table["a"], 4), round(table["b"], 4), round(unseen, 4)
    (0.0, 0.4055, 1.0986)
    """
    df, n = document_frequencies(documents)
    return {tok: math.log((n + 1) / (c + 1)) for tok, c in df.items()}, math.log(n + 1)


def _idf_weights(idf: Union[bool, Mapping[str, float]], enc, docs: Iterable[Sequence[str]]) -> Tuple[np.ndarray, str]:
    tokens = enc.tokens
    if idf is False or idf is None:
        weights = np.ones(len(tokens))
        source = "no"
    elif idf is True:
        table, unseen = _fit_log_idf(docs)
        weights = np.fromiter((table.get(t, unseen) for t in tokens), dtype=np.float64, count=len(tokens))
        source = "refs"
    elif isinstance(idf, Mapping):
        from .weights import user_idf

        table = user_idf(idf)  # validates keys and values
        weights = np.fromiter((table(t) for t in tokens), dtype=np.float64, count=len(tokens))
        source = "user"
    else:
        raise TypeError(f"idf must be True, False or a dict of token -> weight, got {type(idf).__name__}")
    weights[_special_mask(enc)] = 0.0  # special tokens never carry mass (bert_score zeroes them too)
    return weights, source


def _empty_pair(text_p: str, text_r: str) -> float:
    # Same convention as the WRDScore scorer: two texts without tokens are equal if their text is.
    return 1.0 if text_p.strip() == text_r.strip() else 0.0


def _best(values: np.ndarray, refs: List[List[str]]) -> Tuple[List[int], List[int]]:
    """Index (into the flat pair list) and reference index of the best pair of each example."""
    flat, best = [], []
    start = 0
    for group in refs:
        stop = start + len(group)
        k = start + int(np.argmax(values[start:stop]))
        flat.append(k)
        best.append(k - start)
        start = stop
    return flat, best


def _backend_signature(backend) -> str:
    return "|".join(f"{k}:{v}" for k, v in backend.signature_fields().items())


# --------------------------------------------------------------------------- ROUGE
class _IdentifierTokenizer:
    """rouge-score tokenizer over :func:`split_identifier` (``getCount`` -> ``get count``)."""

    def __init__(self, use_stemmer: bool) -> None:
        self.stemmer = None
        if use_stemmer:
            from nltk.stem import porter  # rouge-score depends on nltk

            self.stemmer = porter.PorterStemmer()

    def tokenize(self, text: str) -> List[str]:
        tokens = split_identifier(text)
        if self.stemmer is not None:
            # Same rule as rouge_score.tokenize: only tokens longer than 3 characters are stemmed.
            tokens = [self.stemmer.stem(t) if len(t) > 3 else t for t in tokens]
        return tokens


def rouge(predictions: Sequence[str], references: References, *,
          rouge_types: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
          split_identifiers: bool = False, use_stemmer: bool = False) -> Dict[str, Any]:
    """ROUGE F-measures through ``rouge-score``; with several references, the best one per type.

    ``split_identifiers=True`` tokenises with :func:`~wrd_score.tokenize.split_identifier` (rouge-score
    alone keeps ``getCount`` as the single token ``getcount``, and drops non-ASCII letters).
    An empty prediction or reference scores 0 (rouge-score's convention).

    >>> out = rouge(["the cat sat"], ["the cat sat down"])
    >>> round(out["rouge1"][0], 4), out["signature"]
    (0.8571, 'rouge:rouge-score|tok:rouge-score|stem:no')
    """
    from rouge_score import rouge_scorer

    predictions, refs = _inputs(predictions, references)
    if isinstance(rouge_types, str):
        rouge_types = (rouge_types,)
    rouge_types = tuple(rouge_types)
    if not rouge_types:
        raise ValueError("rouge_types must name at least one of " + str(list(ROUGE_TYPES)))
    for t in rouge_types:
        if t not in ROUGE_TYPES:
            raise ValueError(f"rouge_types must be drawn from {list(ROUGE_TYPES)}, got {t!r}")
    for name, value in (("split_identifiers", split_identifiers), ("use_stemmer", use_stemmer)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    tokenizer = _IdentifierTokenizer(use_stemmer) if split_identifiers else None
    scorer = rouge_scorer.RougeScorer(list(rouge_types), use_stemmer=use_stemmer, tokenizer=tokenizer)
    out: Dict[str, Any] = {t: [] for t in rouge_types}
    for pred, group in zip(predictions, refs):
        scores = scorer.score_multi(group, pred) if len(group) > 1 else scorer.score(group[0], pred)
        for t in rouge_types:
            out[t].append(float(scores[t].fmeasure))
    tok = "identifier" if split_identifiers else "rouge-score"
    out["signature"] = f"rouge:rouge-score|tok:{tok}|stem:{'yes' if use_stemmer else 'no'}"
    return out


# --------------------------------------------------------------------------- BERTScore
def bertscore(predictions: Sequence[str], references: References, *, idf: Union[bool, Mapping[str, float]] = False,
              special_candidates: bool = True, **options: Any) -> Dict[str, Any]:
    """Greedy max-cosine BERTScore on the embeddings of a WRDScore backend.

    ``options`` are :class:`~wrd_score.Options` fields that pick the backend
    (``backend="contextual", pooling="wordpiece"`` reproduces the ``bert_score`` package).
    ``idf=True`` weighs tokens by ``ln((N + 1) / (df + 1))`` fit on the references; a dict gives
    the weights.  ``special_candidates``: like bert_score, ``[CLS]``/``[SEP]`` may be the best match
    of a token (their weight is always 0); contextual backend only.  ``clip_negative`` (the shared
    option, default True) clips cosines at 0 before the max; bert_score does this in effect
    whenever the other sentence is padded in its batch (padding cosines are 0), so only with it do
    the two agree on pairs where a token's best cosine is negative.
    A token-less side scores 0 (1 against an identical text).  With several references, the one
    with the best F1 wins (``best_reference``).

    >>> out = bertscore(["get count"], ["getCount"])
    >>> out["f1"]
    [1.0]
    """
    predictions, refs = _inputs(predictions, references)
    if not isinstance(special_candidates, bool):
        raise TypeError(f"special_candidates must be True or False, got {special_candidates!r}")
    backend, opts = _backend_for(options)
    texts, index = _distinct(predictions, refs)
    enc = _encode(backend, texts, keep_special=special_candidates)
    weights, source = _idf_weights(idf, enc, (backend.tokenize(r) for group in refs for r in group))
    pairs = [(index[p], index[r]) for p, group in zip(predictions, refs) for r in group]
    precision = np.empty(len(pairs))
    recall = np.empty(len(pairs))
    for k, (ip, ir) in enumerate(pairs):
        precision[k], recall[k] = _greedy_pair(enc, weights, ip, ir, texts, opts.clip_negative)
    total = precision + recall
    f1 = np.divide(2 * precision * recall, total, out=np.zeros_like(total), where=total != 0)
    flat, best = _best(f1, refs)
    return {
        "precision": [float(precision[k]) for k in flat],
        "recall": [float(recall[k]) for k in flat],
        "f1": [float(f1[k]) for k in flat],
        "best_reference": best,
        "signature": f"bertscore:greedy|{_backend_signature(backend)}|idf:{source}"
                     f"|special:{_special_label(backend, special_candidates)}"
                     f"|clip:{'yes' if opts.clip_negative else 'no'}",
    }


def _special_label(backend, special_candidates: bool) -> str:
    if getattr(backend, "kind", "") != "contextual":
        return "none"  # static tokenizers have no special tokens
    return "candidates" if special_candidates else "dropped"


def _greedy_pair(enc, weights: np.ndarray, ip: int, ir: int, texts: List[str], clip: bool) -> Tuple[float, float]:
    rows_p, rows_r = enc.spans[ip], enc.spans[ir]
    if _n_content(enc, rows_p) == 0 or _n_content(enc, rows_r) == 0:
        value = _empty_pair(texts[ip], texts[ir])
        return value, value
    w_p, w_r = weights[rows_p], weights[rows_r]
    cos = enc.units[rows_p] @ enc.units[rows_r].T
    # Equal rows are one token (static backends): exactly 1, also for direction-less tokens.
    cos[rows_p[:, None] == rows_r[None, :]] = 1.0
    if clip:
        np.maximum(cos, 0.0, out=cos)
    w_p = _weights_or_uniform(w_p, enc, rows_p)
    w_r = _weights_or_uniform(w_r, enc, rows_r)
    precision = float(np.dot(w_p, cos.max(axis=1)))
    recall = float(np.dot(w_r, cos.max(axis=0)))
    return precision, recall


def _n_content(enc, rows: np.ndarray) -> int:
    return int((~_special_mask(enc)[rows]).sum())


def _weights_or_uniform(w: np.ndarray, enc, rows: np.ndarray) -> np.ndarray:
    total = w.sum()
    if total > 0:
        return w / total
    # Every content token has IDF 0 (it occurs in every reference): bert_score divides 0 by 0
    # here (NaN); we fall back to uniform weights over the content tokens.
    content = (~_special_mask(enc)[rows]).astype(np.float64)
    return content / content.sum()


# --------------------------------------------------------------------------- MoverScore
def moverscore(predictions: Sequence[str], references: References, *, idf: Union[bool, Mapping[str, float]] = True,
               stop_words: Iterable[str] = (), subwords: str = "drop", punctuation: str = "drop",
               form: str = "inverse", **options: Any) -> Dict[str, Any]:
    """MoverScore (the ``moverscore_v2`` algorithm, unigrams) on the embeddings of a WRDScore backend.

    Masses: IDF ``ln((N + 1) / (df + 1))`` fit on the references for reference tokens and on the
    predictions for prediction tokens (``idf=False``: uniform; a dict: given weights for both).
    Cost: Euclidean distance between unit vectors.  ``form="inverse"``: ``1 / (1 + cost)`` in
    ``[1/3, 1]``; ``"complement"``: ``1 - cost`` in ``[-1, 1]`` (the PyPI release 1.0.3).
    Removal, as moverscore_v2 does by default: ``stop_words`` (exact token strings),
    ``subwords="drop"`` removes ``##`` word pieces, ``punctuation="drop"`` removes single ASCII
    punctuation tokens; removed tokens keep their context but carry no mass.  A side with no kept
    token scores as identical if the texts are, else as maximally distant (cost 2); a side whose
    kept tokens all have IDF 0 (one sentence only) gets uniform masses (moverscore_v2 scores 1).

    >>> out = moverscore(["get count"], ["getCount"], idf=False)
    >>> out["score"]
    [1.0]
    """
    from .transport import emd_plan

    predictions, refs = _inputs(predictions, references)
    if form not in MOVERSCORE_FORMS:
        raise ValueError(f"form must be one of {list(MOVERSCORE_FORMS)}, got {form!r}")
    for name, value in (("subwords", subwords), ("punctuation", punctuation)):
        if value not in _KEEP_DROP:
            raise ValueError(f"{name} must be one of {list(_KEEP_DROP)}, got {value!r}")
    if isinstance(stop_words, str):
        raise TypeError("stop_words must be a collection of token strings, not one string")
    stop = frozenset(stop_words)
    for word in stop:
        if not isinstance(word, str):
            raise TypeError(f"stop_words must contain strings, got {word!r}")
    backend, _ = _backend_for(options)
    texts, index = _distinct(predictions, refs)
    enc = _encode(backend, texts, keep_special=False)
    if idf is True:
        # Two tables, as moverscore_v2: reference tokens weighed by the references, prediction
        # tokens by the predictions (the lists as given, duplicates included).
        w_ref, _ = _idf_weights(True, enc, (backend.tokenize(r) for group in refs for r in group))
        w_hyp, _ = _idf_weights(True, enc, (backend.tokenize(p) for p in predictions))
        source = "refs+hyps"
    else:
        w_ref, source = _idf_weights(idf, enc, ())
        w_hyp = w_ref
    punct = frozenset(string.punctuation)
    removed = np.fromiter(((t in stop) or (subwords == "drop" and "##" in t) or (punctuation == "drop" and t in punct)
                           for t in enc.tokens), dtype=bool, count=len(enc.tokens))
    removed |= _special_mask(enc)
    w_ref = np.where(removed, 0.0, w_ref)
    w_hyp = np.where(removed, 0.0, w_hyp)
    pairs = [(index[p], index[r]) for p, group in zip(predictions, refs) for r in group]
    cost = np.empty(len(pairs))
    for k, (ip, ir) in enumerate(pairs):
        rows_p, rows_r = enc.spans[ip], enc.spans[ir]
        keep_p, keep_r = ~removed[rows_p], ~removed[rows_r]
        if not keep_p.any() or not keep_r.any():
            same = not keep_p.any() and not keep_r.any() and _empty_pair(texts[ip], texts[ir]) == 1.0
            cost[k] = 0.0 if same else 2.0
            continue
        # IDF 0 on every kept token (one sentence, or a word in every document): moverscore_v2 then
        # moves no mass and scores 1; uniform masses over the kept tokens give a meaningful score.
        a = w_hyp[rows_p] if w_hyp[rows_p].sum() > 0 else keep_p.astype(np.float64)
        b = w_ref[rows_r] if w_ref[rows_r].sum() > 0 else keep_r.astype(np.float64)
        cos = enc.units[rows_p] @ enc.units[rows_r].T
        cos[rows_p[:, None] == rows_r[None, :]] = 1.0
        dist = np.sqrt(np.clip(2.0 - 2.0 * cos, 0.0, 4.0))
        flow = emd_plan(a / a.sum(), b / b.sum(), dist)
        cost[k] = float(np.sum(flow * dist))
    score = 1.0 / (1.0 + cost) if form == "inverse" else 1.0 - cost
    flat, best = _best(score, refs)
    stop_sig = "none" if not stop else f"{len(stop)}"
    return {
        "score": [float(score[k]) for k in flat],
        "cost": [float(cost[k]) for k in flat],
        "best_reference": best,
        "signature": f"moverscore:v2|{_backend_signature(backend)}|idf:{source}|form:{form}"
                     f"|stop:{stop_sig}|subwords:{subwords}|punct:{punctuation}",
    }


# --------------------------------------------------------------------------- compare
_SIBLING_OPTIONS = {
    "bertscore_idf": ("bertscore", "idf"),
    "bertscore_special_candidates": ("bertscore", "special_candidates"),
    "moverscore_idf": ("moverscore", "idf"),
    "moverscore_stop_words": ("moverscore", "stop_words"),
    "moverscore_subwords": ("moverscore", "subwords"),
    "moverscore_punctuation": ("moverscore", "punctuation"),
    "moverscore_form": ("moverscore", "form"),
    "rouge_types": ("rouge", "rouge_types"),
    "rouge_split_identifiers": ("rouge", "split_identifiers"),
    "rouge_use_stemmer": ("rouge", "use_stemmer"),
}


def compare(predictions: Sequence[str], references: References, metrics: Sequence[str] = METRICS, *,
            as_dataframe: bool = False, idf: Optional[Mapping[str, float]] = None, **options: Any):
    """Score the same pairs with several metrics; one row per example.

    ``options``: :class:`~wrd_score.Options` fields (they pick the shared backend and configure
    WRDScore) and sibling options ``bertscore_idf``, ``bertscore_special_candidates``,
    ``moverscore_idf``, ``moverscore_stop_words``, ``moverscore_subwords``,
    ``moverscore_punctuation``, ``moverscore_form``, ``rouge_types``, ``rouge_split_identifiers``,
    ``rouge_use_stemmer`` (see :func:`bertscore`, :func:`moverscore`, :func:`rouge`).  ``idf`` is
    WRDScore's IDF table (for ``weights="idf"``/``"norm*idf"``).

    Returns a dict of lists with columns ``prediction``, ``reference`` (the string, or the list when
    an example has several), ``wrdscore_precision``/``_recall``/``_f1``, ``bertscore_precision``/
    ``_recall``/``_f1``, ``moverscore``, ``rouge1``/``rouge2``/``rougeL`` (those asked for), plus
    ``signatures`` (metric -> signature string).  ``as_dataframe=True`` returns a pandas DataFrame
    with the signatures in ``df.attrs["signatures"]``.
    """
    if isinstance(metrics, str):
        metrics = (metrics,)
    metrics = tuple(metrics)
    if not metrics:
        raise ValueError(f"metrics must name at least one of {list(METRICS)}")
    for m in metrics:
        if m not in METRICS:
            raise ValueError(f"metrics must be drawn from {list(METRICS)}, got {m!r}")
    if not isinstance(as_dataframe, bool):
        raise TypeError(f"as_dataframe must be True or False, got {as_dataframe!r}")
    sibling: Dict[str, Dict[str, Any]] = {"bertscore": {}, "moverscore": {}, "rouge": {}}
    metric_options: Dict[str, Any] = {}
    for key, value in options.items():
        if key in _SIBLING_OPTIONS:
            target, name = _SIBLING_OPTIONS[key]
            sibling[target][name] = value
        elif key in _OPTION_NAMES:
            metric_options[key] = value
        else:
            raise TypeError(f"unknown option {key!r}; known: {sorted(_OPTION_NAMES | set(_SIBLING_OPTIONS))}")
    predictions, refs = _inputs(predictions, references)
    table: Dict[str, Any] = {
        "prediction": list(predictions),
        "reference": [group[0] if len(group) == 1 else list(group) for group in refs],
    }
    signatures: Dict[str, str] = {}
    if "wrdscore" in metrics:
        out = WRDScorer(**metric_options).score(predictions, refs, idf=idf)
        for key in ("precision", "recall", "f1"):
            table[f"wrdscore_{key}"] = out[key]
        signatures["wrdscore"] = out["signature"]
    if "bertscore" in metrics:
        out = bertscore(predictions, refs, **sibling["bertscore"], **metric_options)
        for key in ("precision", "recall", "f1"):
            table[f"bertscore_{key}"] = out[key]
        signatures["bertscore"] = out["signature"]
    if "moverscore" in metrics:
        out = moverscore(predictions, refs, **sibling["moverscore"], **metric_options)
        table["moverscore"] = out["score"]
        signatures["moverscore"] = out["signature"]
    if "rouge" in metrics:
        out = rouge(predictions, refs, **sibling["rouge"])
        for key, values in out.items():
            if key != "signature":
                table[key] = values
        signatures["rouge"] = out["signature"]
    if as_dataframe:
        import pandas as pd

        frame = pd.DataFrame(table)
        frame.attrs["signatures"] = signatures
        return frame
    table["signatures"] = signatures
    return table


# --------------------------------------------------------------------------- CLI
def cli_add_arguments(parser) -> None:
    """``wrdscore compare``: the table of :func:`compare` for files or strings."""
    import argparse

    from .cli import add_metric_arguments
    from .files import add_input_arguments

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "examples:\n"
        "  wrdscore compare -c getCount -r get_count --metrics wrdscore,rouge --rouge-split-identifiers\n"
        "  wrdscore compare -c preds.txt -r refs.txt --backend contextual --pooling wordpiece --csv\n"
        "exit status: 0 on success, 2 on bad input.")
    io = add_input_arguments(parser)
    io.add_argument("--metrics", default=",".join(METRICS),
                    help=f"comma-separated subset of {','.join(METRICS)} (default: all)")
    fmt = io.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="print CSV instead of an aligned table")
    fmt.add_argument("--json", action="store_true", help="print the dict of lists (with signatures) as JSON")
    io.add_argument("--digits", type=int, default=4, help="decimals in the table (default 4)")
    sib = parser.add_argument_group("sibling metrics")
    sib.add_argument("--bertscore-idf", action="store_true", help="BERTScore with IDF weights fit on the references")
    sib.add_argument("--moverscore-no-idf", action="store_true", help="MoverScore with uniform masses")
    sib.add_argument("--moverscore-form", choices=MOVERSCORE_FORMS, default="inverse",
                     help="inverse: 1/(1+cost) (default); complement: 1-cost (PyPI moverscore 1.0.3)")
    sib.add_argument("--moverscore-subwords", choices=_KEEP_DROP, default="drop",
                     help="drop (default, as moverscore_v2) or keep ## word pieces")
    sib.add_argument("--moverscore-punctuation", choices=_KEEP_DROP, default="drop")
    sib.add_argument("--moverscore-stop-words", metavar="FILE", help="file of stop words (whitespace-separated)")
    sib.add_argument("--rouge-split-identifiers", action="store_true",
                     help="ROUGE over identifier subtokens (getCount -> get count)")
    sib.add_argument("--rouge-use-stemmer", action="store_true", help="Porter stemming in ROUGE")
    add_metric_arguments(parser)


def cli_run(args) -> int:
    import json
    import sys

    from .cli import options_from_args
    from .files import iter_file_pairs, resolve_inputs

    if not 0 <= args.digits <= 17:
        raise ValueError(f"--digits must be between 0 and 17, got {args.digits}")
    metrics = tuple(m.strip() for m in args.metrics.split(",") if m.strip())
    inputs = resolve_inputs(args.candidates, args.references, args.input_mode)
    if inputs.are_files:
        rows = list(iter_file_pairs(inputs.candidates, inputs.references))
        predictions, references = [p for p, _ in rows], [r for _, r in rows]
    else:
        predictions, references = [args.candidates], [list(args.references)]
    stop_words: Tuple[str, ...] = ()
    if args.moverscore_stop_words:
        with open(args.moverscore_stop_words, encoding="utf-8") as handle:
            stop_words = tuple(handle.read().split())
    table = compare(predictions, references, metrics, **options_from_args(args),
                    bertscore_idf=args.bertscore_idf, moverscore_idf=not args.moverscore_no_idf,
                    moverscore_form=args.moverscore_form, moverscore_subwords=args.moverscore_subwords,
                    moverscore_punctuation=args.moverscore_punctuation, moverscore_stop_words=stop_words,
                    rouge_split_identifiers=args.rouge_split_identifiers, rouge_use_stemmer=args.rouge_use_stemmer)
    signatures = table.pop("signatures")
    if args.json:
        json.dump({**table, "signatures": signatures}, sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    import pandas as pd

    frame = pd.DataFrame(table)
    if args.csv:
        frame.to_csv(sys.stdout, index=False, float_format=f"%.{args.digits}f")
    else:
        with pd.option_context("display.max_columns", None, "display.width", 200,
                               "display.max_colwidth", 40):
            print(frame.round(args.digits).to_string(index=False))
    for name, sig in signatures.items():
        print(f"# {name}: {sig}", file=sys.stderr if args.csv else sys.stdout)
    return 0
