"""What method-name papers report: subtoken precision/recall/F1 (code2seq's rule) and exact match.

code2vec and code2seq (Alon et al. 2019) and their successors compare a predicted method name with
the true one subtoken by subtoken.  Both metrics here read a text the same way:

1. **Specials are removed**: every occurrence of ``special_tokens`` (default code2seq's ``<UNK>``,
   ``<PAD>`` and ``</S>``, matched without regard to case, so ``<unk>``, ``<pad>`` and ``</s>`` of
   other vocabularies go too) is replaced by a space.
2. **Subtokens** are the identifier tokenizer's (:func:`wrd_score.tokenize.split_identifier`: NFKC,
   lowercase, split at camelCase, ``snake_case``, digits and punctuation), so ``getCount``,
   ``get_count`` and ``get count`` are all ``get count`` (code2seq's data is split and lowercased the
   same way before it is scored).

**subtoken-f1** counts, as code2seq's ``update_per_subtoken_statistics`` does: when the two subtoken
lists, joined without separator, are equal, the prediction is exact and scores the full reference
(true positives += the number of reference subtokens); otherwise every *predicted* subtoken is a
true positive if it occurs anywhere in the reference, else a false positive (order ignored;
a subtoken predicted twice counts twice), and every *reference* subtoken that does not occur in the
prediction is a false negative.  Corpus precision is ``TP / (TP + FP)``, recall ``TP / (TP + FN)``
(0 for 0/0) and F1 their harmonic mean, each summed over the whole corpus first (micro averages:
what the papers' tables report).  Per example the same ratios of the example's own counts.

**exact-match** is 1 when the prediction names the reference, by code2seq's accuracy rule
(``rule="code2seq"``, the default: the subtoken lists are equal, or equal once repeated subtokens
are dropped, or equal joined without separator) or strictly (``rule="sequence"``: the subtoken lists
are equal); corpus accuracy is their mean.

Texts without a subtoken on both sides (``""``, ``"<UNK>"``, ``"!!!"``) follow the library's
empty-text rule (:func:`wrd_score.scoring.empty_pair_score`, on the texts with specials removed);
they add no count to the corpus sums.  With several references per prediction the reference with
the best F1 (exact match: the first that matches) counts, and gives the corpus its counts.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from .. import __version__
from ..scoring import empty_pair_score, f1_score
from ..signature import Signature
from ..tokenize import split_identifier
from .base import Metric, MetricResult, References, pick_best, register

__all__ = ["CODE2SEQ_SPECIALS", "EXACT_MATCH_RULES", "SubtokenF1", "ExactMatch", "subtoken_f1", "exact_match",
           "subtokens", "subtoken_counts"]

#: code2seq's ``Common.UNK``, ``Common.PAD`` and ``Common.EOS``: what its ``filter_impossible_names`` drops.
CODE2SEQ_SPECIALS = ("<UNK>", "<PAD>", "</S>")
EXACT_MATCH_RULES = ("code2seq", "sequence")


def _check_specials(special_tokens: Any) -> Tuple[str, ...]:
    if isinstance(special_tokens, str):  # "<UNK>,<PAD>" (a validate spec, a command-line value); "": none
        special_tokens = [token for token in special_tokens.split(",") if token]
    if not isinstance(special_tokens, (list, tuple)):
        raise TypeError(f"special_tokens must be a list or tuple of strings (or one comma-separated string), "
                        f"got {special_tokens!r}")
    out = []
    for token in special_tokens:
        if not isinstance(token, str) or not token or any(c.isspace() for c in token) or "|" in token or "," in token:
            raise ValueError(f"special_tokens must hold non-empty strings without whitespace, '|' or ',', got {token!r}")
        out.append(token)
    return tuple(out)


class _Subtokens:
    """The shared reading of a text: specials removed, then identifier subtokens."""

    def __init__(self, special_tokens: Sequence[str]) -> None:
        self.special_tokens = _check_specials(special_tokens)
        # Longest first, so that a special holding another (``</S>`` and ``S>``) is removed whole.
        alternatives = sorted(self.special_tokens, key=len, reverse=True)
        self._specials = re.compile("|".join(map(re.escape, alternatives)), re.IGNORECASE) if alternatives else None

    def clean(self, text: str) -> str:
        return self._specials.sub(" ", text) if self._specials is not None else text

    def __call__(self, text: str) -> List[str]:
        return split_identifier(self.clean(text))

    def signature_fields(self) -> List[Tuple[str, str]]:
        drop = ",".join(t.lower() for t in self.special_tokens) if self.special_tokens else "none"
        return [("tok", "identifier"), ("drop", drop)]


def subtokens(text: str, special_tokens: Sequence[str] = CODE2SEQ_SPECIALS) -> List[str]:
    """The subtokens both metrics compare: ``special_tokens`` removed, then the identifier tokenizer.

    >>> subtokens("getCount <UNK>"), subtokens("get_count</s>"), subtokens("<pad>")
    (['get', 'count'], ['get', 'count'], [])
    """
    return _Subtokens(special_tokens)(text)


def subtoken_counts(predicted: Sequence[str], reference: Sequence[str]) -> Tuple[int, int, int]:
    """code2seq's ``(true positives, false positives, false negatives)`` of one predicted subtoken
    list against one reference list (module docstring).

    >>> subtoken_counts(["get", "get"], ["get", "count"])   # each predicted "get" is a hit
    (2, 0, 1)
    >>> subtoken_counts(["getcount"], ["get", "count"])     # equal when joined: the full reference
    (2, 0, 0)
    """
    if "".join(predicted) == "".join(reference):
        return len(reference), 0, 0
    in_reference = set(reference)
    in_prediction = set(predicted)
    hits = sum(1 for token in predicted if token in in_reference)
    return hits, len(predicted) - hits, sum(1 for token in reference if token not in in_prediction)


def _ratio(num: float, den: float) -> float:
    return num / den if den > 0 else 0.0


class SubtokenF1(Metric):
    """Subtoken precision, recall and F1 by code2seq's rule (module docstring): per example, and
    micro-averaged over the corpus in ``result.corpus`` (``micro_precision``, ``micro_recall``,
    ``micro_f1`` and the summed ``true_positives``, ``false_positives``, ``false_negatives``).

    >>> result = SubtokenF1().score(["getCount", "setSize"], ["get_count", "getSize"])
    >>> result.precision, result.recall, result.f1
    ([1.0, 0.5], [1.0, 0.5], [1.0, 0.5])
    >>> result.corpus["micro_f1"], result.corpus["true_positives"]
    (0.75, 3)
    """

    name = "subtoken-f1"

    def __init__(self, *, special_tokens: Sequence[str] = CODE2SEQ_SPECIALS) -> None:
        self._read = _Subtokens(special_tokens)

    def signature(self) -> Signature:
        return Signature((("subtoken-f1", "code2seq"), *self._read.signature_fields(), ("avg", "micro"),
                          ("version", __version__)))

    def _score(self, predictions: List[str], references: List[List[str]]) -> MetricResult:
        cache: Dict[str, List[str]] = {}

        def read(text: str) -> List[str]:
            if text not in cache:
                cache[text] = self._read(text)
            return cache[text]

        # One row per (prediction, reference) pair: its counts and its P/R/F1; then the best reference.
        counts: List[Tuple[int, int, int]] = []
        prf: List[Tuple[float, float, float]] = []
        for pred, group in zip(predictions, references):
            p_tokens = read(pred)
            for ref in group:
                r_tokens = read(ref)
                if not p_tokens and not r_tokens:
                    value = empty_pair_score(self._read.clean(pred), self._read.clean(ref))
                    counts.append((0, 0, 0))
                    prf.append((value, value, value))
                    continue
                tp, fp, fn = subtoken_counts(p_tokens, r_tokens)
                counts.append((tp, fp, fn))
                precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
                prf.append((precision, recall, float(f1_score(precision, recall))))
        table = np.asarray(prf, dtype=np.float64).reshape(-1, 3)
        flat, best = pick_best(table[:, 2], references)
        tp, fp, fn = (int(sum(counts[i][k] for i in flat)) for k in range(3))
        micro_p, micro_r = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
        corpus = {"micro_precision": micro_p, "micro_recall": micro_r,
                  "micro_f1": float(f1_score(micro_p, micro_r)),
                  "true_positives": tp, "false_positives": fp, "false_negatives": fn}
        chosen = table[flat]
        f1 = chosen[:, 2].tolist()
        return MetricResult(self.name, f1, best, self.signature(), precision=chosen[:, 0].tolist(),
                            recall=chosen[:, 1].tolist(), f1=f1, corpus=corpus)


def _unique(tokens: Sequence[str]) -> List[str]:
    return list(dict.fromkeys(tokens))


class ExactMatch(Metric):
    """1 when the prediction names the reference after the subtoken reading (module docstring), else 0;
    ``result.corpus["accuracy"]`` is their mean (``matches`` of ``examples``).

    ``rule="code2seq"`` (default) is code2seq's accuracy test: equal subtoken lists, or equal once
    repeated subtokens are dropped (``get get count`` names ``getCount``), or equal joined without a
    separator (``getcount`` names ``getCount``); ``rule="sequence"`` asks for equal lists.

    >>> result = ExactMatch().score(["getCount", "get", "getcount"], ["get_count", "getCount", "getCount"])
    >>> result.score, result.corpus["accuracy"]
    ([1.0, 0.0, 1.0], 0.6666666666666666)
    >>> ExactMatch(rule="sequence").score(["getcount"], ["getCount"]).score
    [0.0]
    """

    name = "exact-match"

    def __init__(self, *, rule: str = "code2seq", special_tokens: Sequence[str] = CODE2SEQ_SPECIALS) -> None:
        if rule not in EXACT_MATCH_RULES:
            raise ValueError(f"rule must be one of {list(EXACT_MATCH_RULES)}, got {rule!r}")
        self.rule = rule
        self._read = _Subtokens(special_tokens)

    def signature(self) -> Signature:
        return Signature((("exact-match", self.rule), *self._read.signature_fields(), ("version", __version__)))

    def _match(self, pred: str, ref: str) -> float:
        p_tokens, r_tokens = self._read(pred), self._read(ref)
        if not p_tokens and not r_tokens:
            return empty_pair_score(self._read.clean(pred), self._read.clean(ref))
        if p_tokens == r_tokens:
            return 1.0
        if self.rule == "code2seq" and (_unique(p_tokens) == _unique(r_tokens) or "".join(p_tokens) == "".join(r_tokens)):
            return 1.0
        return 0.0

    def _score(self, predictions: List[str], references: List[List[str]]) -> MetricResult:
        values = np.asarray([self._match(p, r) for p, group in zip(predictions, references) for r in group],
                            dtype=np.float64)
        flat, best = pick_best(values, references)
        scores = values[flat].tolist()
        matches = int(sum(scores))
        corpus = {"accuracy": _ratio(matches, len(scores)), "matches": matches, "examples": len(scores)}
        return MetricResult(self.name, scores, best, self.signature(), corpus=corpus)


def subtoken_f1(predictions: Sequence[str], references: References, **options: Any) -> Dict[str, Any]:
    """Functional form of :class:`SubtokenF1`: per-example ``precision``/``recall``/``f1`` lists, the
    corpus ``micro_precision``/``micro_recall``/``micro_f1`` and the ``signature``.

    >>> out = subtoken_f1(["get value <UNK>"], ["getValue"])
    >>> out["f1"], out["micro_f1"], out["signature"].split("|")[:3]
    ([1.0], 1.0, ['subtoken-f1:code2seq', 'tok:identifier', 'drop:<unk>,<pad>,</s>'])
    """
    result = SubtokenF1(**options).score(predictions, references)
    return {"precision": result.precision, "recall": result.recall, "f1": result.f1,
            "best_reference": result.best_reference,
            **{k: result.corpus[k] for k in ("micro_precision", "micro_recall", "micro_f1")},
            "signature": str(result.signature)}


def exact_match(predictions: Sequence[str], references: References, **options: Any) -> Dict[str, Any]:
    """Functional form of :class:`ExactMatch`: per-example ``exact_match`` (0 or 1), corpus ``accuracy``
    and the ``signature``.

    >>> exact_match(["getCount", "size"], ["get_count", "length"])["accuracy"]
    0.5
    """
    result = ExactMatch(**options).score(predictions, references)
    return {"exact_match": result.score, "best_reference": result.best_reference,
            "accuracy": result.corpus["accuracy"], "signature": str(result.signature)}


register("subtoken-f1", SubtokenF1, "subtoken precision/recall/F1 by code2seq's rule (micro-averaged over the corpus)")
register("exact-match", ExactMatch, "exact match of the subtoken sequence (code2seq's accuracy rule)")
