"""ROUGE-1/2/L/Lsum through the ``rouge-score`` package (F-measure), optionally on identifier subtokens."""
from __future__ import annotations

from typing import Any, Dict, List, Sequence, Union

from ..deps import require
from ..scoring import empty_pair_score
from ..signature import Signature
from ..tokenize import split_identifier
from ..checks import check_bool
from .base import Metric, MetricResult, References, register
from .backend_idf import inputs

__all__ = ["ROUGE_TYPES", "Rouge", "rouge"]

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


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


class Rouge(Metric):
    """ROUGE F-measures; with several references, the best one per type (rouge-score's ``score_multi``).

    ``split_identifiers=True`` tokenises with :func:`~wrd_score.tokenize.split_identifier` (rouge-score
    alone keeps ``getCount`` as the single token ``getcount``, and drops non-ASCII letters).
    A prediction without a rouge-score token follows the library's empty-text rule
    (:func:`~wrd_score.scoring.empty_pair_score`: 1 against an equal text, else 0; rouge-score says 0).  The result's ``score``
    is the first type's; every type is a column of ``extra``.
    """

    name = "rouge"

    def __init__(self, rouge_types: Union[str, Sequence[str]] = ("rouge1", "rouge2", "rougeL"), *,
                 split_identifiers: bool = False, use_stemmer: bool = False) -> None:
        rouge_scorer = require("rouge_score.rouge_scorer", "siblings")
        if isinstance(rouge_types, str):
            rouge_types = (rouge_types,)
        self.rouge_types = tuple(rouge_types)
        if not self.rouge_types:
            raise ValueError("rouge_types must name at least one of " + str(list(ROUGE_TYPES)))
        for t in self.rouge_types:
            if t not in ROUGE_TYPES:
                raise ValueError(f"rouge_types must be drawn from {list(ROUGE_TYPES)}, got {t!r}")
        self.split_identifiers = check_bool("split_identifiers", split_identifiers)
        self.use_stemmer = check_bool("use_stemmer", use_stemmer)
        if split_identifiers:
            self._tokenizer = _IdentifierTokenizer(use_stemmer)
        else:
            self._tokenizer = require("rouge_score.tokenizers", "siblings").DefaultTokenizer(use_stemmer=use_stemmer)
        self._scorer = rouge_scorer.RougeScorer(list(self.rouge_types), use_stemmer=use_stemmer,
                                                tokenizer=self._tokenizer)
        if len(self.rouge_types) == 1:
            self.name = self.rouge_types[0]

    def signature(self) -> Signature:
        return Signature.build(rouge="rouge-score", tok="identifier" if self.split_identifiers else "rouge-score",
                               stem="yes" if self.use_stemmer else "no")

    def _score(self, predictions: Sequence[str], references: References) -> MetricResult:
        predictions, refs = inputs(predictions, references)
        out: Dict[str, List[float]] = {t: [] for t in self.rouge_types}
        for pred, group in zip(predictions, refs):
            if not self._tokenizer.tokenize(pred):
                # The empty-text rule (rouge-score says 0 even for two empty texts); a reference
                # without a token against a prediction with one scores 0 under both.
                value = max(empty_pair_score(pred, r) for r in group)
                for t in self.rouge_types:
                    out[t].append(value)
                continue
            scores = self._scorer.score_multi(group, pred) if len(group) > 1 else self._scorer.score(group[0], pred)
            for t in self.rouge_types:
                out[t].append(float(scores[t].fmeasure))
        first = self.rouge_types[0]
        # score_multi keeps the best reference per type, not one reference for all: no single index.
        extra = {t: v for t, v in out.items()} if len(self.rouge_types) > 1 else {}
        return MetricResult(self.name, out[first], [0] * len(predictions), self.signature(), extra=extra)


def rouge(predictions: Sequence[str], references: References, *,
          rouge_types: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
          split_identifiers: bool = False, use_stemmer: bool = False) -> Dict[str, Any]:
    """Functional form of :class:`Rouge`: ``{type: [F-measure, ...], "signature": str}``.

    >>> out = rouge(["the cat sat"], ["the cat sat down"])
    >>> round(out["rouge1"][0], 4), out["signature"]
    (0.8571, 'rouge:rouge-score|tok:rouge-score|stem:no')
    """
    metric = Rouge(rouge_types, split_identifiers=split_identifiers, use_stemmer=use_stemmer)
    result = metric.score(predictions, references)
    columns = result.extra or {metric.rouge_types[0]: result.score}
    return {**columns, "signature": str(result.signature)}


register("rouge", Rouge, "ROUGE-1, ROUGE-2 and ROUGE-L F-measures (rouge-score)", bundle=True)
for _type in ROUGE_TYPES:
    register(_type, Rouge, f"{_type} F-measure (rouge-score)", rouge_types=(_type,))
