"""BLEU (Papineni et al. 2002) through sacreBLEU: sentence level per example, and corpus level.

sacreBLEU is the reference implementation; this module only adds the library's conventions
(reference lists, the empty-text rule, optional identifier splitting, scores in [0, 1]) and carries
sacreBLEU's own signature (``nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0``) into
ours, after a ``bleu:sacrebleu`` head and a ``split`` field.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ..checks import check_bool, check_choice, check_int, check_number
from ..scoring import empty_pair_score
from ..deps import require
from ..signature import Signature
from ..tokenize import split_identifier
from .base import Metric, MetricResult, References, register
from .backend_idf import inputs

__all__ = ["BLEU", "bleu", "corpus_bleu"]


def _sacrebleu():
    return require("sacrebleu.metrics", "siblings")


class BLEU(Metric):
    """Sentence BLEU per example (sacreBLEU's ``sentence_bleu``), on a 0..1 scale.

    Options are sacreBLEU's: ``tokenize`` (``"13a"``, its default; ``"intl"``, ``"char"``,
    ``"none"``, ...), ``lowercase``, ``smooth_method`` (``"exp"``, ``"floor"``, ``"add-k"``,
    ``"none"``) with ``smooth_value``, ``max_ngram_order``; ``effective_order`` (default True, as
    ``sentence_bleu``: n-gram orders longer than the sentence are left out instead of zeroing it).
    ``split_identifiers=True`` first rewrites every text as its identifier subtokens
    (``getCount`` -> ``get count``, as ROUGE's option), so that code identifiers can share n-grams.

    With several references, sacreBLEU's multi-reference BLEU is computed (n-gram counts clipped by
    the maximum over the references, the closest reference length): BLEU's own definition, not the
    best single reference, so ``best_reference`` is 0.  A prediction without a token scores by the
    library's empty-text rule (1 against an equal token-less reference, else 0; sacreBLEU says 0).

    >>> result = BLEU().score(["the cat sat on the mat"], ["the cat sat on the mat"])
    >>> result.score, list(result.signature)
    ([1.0], ['bleu', 'nrefs', 'case', 'eff', 'tok', 'smooth', 'version', 'split'])
    >>> result.signature["eff"], result.signature["tok"], result.signature["smooth"]
    ('yes', '13a', 'exp')
    """

    name = "bleu"

    def __init__(self, *, tokenize: str = "13a", lowercase: bool = False, smooth_method: str = "exp",
                 smooth_value: Optional[float] = None, max_ngram_order: int = 4, effective_order: bool = True,
                 split_identifiers: bool = False) -> None:
        metrics = _sacrebleu()
        check_choice("tokenize", tokenize, metrics.BLEU.TOKENIZERS)
        check_choice("smooth_method", smooth_method, metrics.BLEU.SMOOTH_DEFAULTS)
        check_number("smooth_value", smooth_value, minimum=0, allow_none=True)
        check_int("max_ngram_order", max_ngram_order)
        self.split_identifiers = check_bool("split_identifiers", split_identifiers)
        self.settings = dict(tokenize=tokenize, lowercase=check_bool("lowercase", lowercase),
                             smooth_method=smooth_method, smooth_value=smooth_value,
                             max_ngram_order=max_ngram_order)
        self.effective_order = check_bool("effective_order", effective_order)
        self._sentence = metrics.BLEU(effective_order=self.effective_order, **self.settings)
        # sacreBLEU builds its signature only once it has scored something ("Number of references
        # unknown"); one trivial pair now, so a call whose predictions are all empty still has one.
        self._sentence.sentence_score("a", ["a"])

    def _prepare(self, text: str) -> str:
        return " ".join(split_identifier(text)) if self.split_identifiers else text

    def _signature(self, bleu, nrefs: int) -> Signature:
        # sacreBLEU's own fields, in its order; nrefs is the most references any example has.
        info = {k: v for k, v in bleu.get_signature().info.items() if v is not None}
        info["nrefs"] = nrefs
        fields = [("bleu", "sacrebleu")] + [(k, info[k]) for k in ("nrefs", "case", "eff", "tok", "smooth", "version")
                                             if k in info]
        fields.append(("split", "yes" if self.split_identifiers else "no"))
        return Signature(tuple(fields))

    def _score(self, predictions: Sequence[str], references: References) -> MetricResult:
        predictions, refs = inputs(predictions, references)
        scores: List[float] = []
        for pred, group in zip(predictions, refs):
            hyp = self._prepare(pred)
            if not hyp.split():
                scores.append(max(empty_pair_score(hyp, self._prepare(r)) for r in group))
                continue
            scores.append(_unit(self._sentence.sentence_score(hyp, [self._prepare(r) for r in group]).score))
        signature = self._signature(self._sentence, max((len(g) for g in refs), default=1))
        return MetricResult(self.name, scores, [0] * len(predictions), signature)

    def corpus_score(self, predictions: Sequence[str], references: References) -> Dict[str, Any]:
        """Corpus BLEU (sacreBLEU's ``corpus_bleu``): n-gram statistics summed over all examples.

        Returns ``score`` (0..1), sacreBLEU's ``precisions`` (0..1), ``bp``, ``sys_len``,
        ``ref_len`` and the ``signature``.  Effective order is off, as in sacreBLEU's
        ``corpus_bleu``: it exists for single sentences, and a corpus has every n-gram order.

        >>> out = BLEU().corpus_score(["the cat sat on the mat", "hello"], ["the cat is on the mat", "hello there"])
        >>> round(out["score"], 4), out["signature"].startswith("bleu:sacrebleu|nrefs:1|case:mixed|eff:no|tok:13a")
        (0.3317, True)
        """
        predictions, refs = inputs(predictions, references)
        depth = max((len(g) for g in refs), default=1)
        # sacreBLEU takes one stream per reference position; examples with fewer references pad with None.
        streams = [[self._prepare(g[k]) if k < len(g) else None for g in refs] for k in range(depth)]
        corpus = _sacrebleu().BLEU(**self.settings)
        result = corpus.corpus_score([self._prepare(p) for p in predictions], streams)
        return {"score": _unit(result.score), "precisions": [p / 100.0 for p in result.precisions],
                "bp": result.bp, "sys_len": result.sys_len, "ref_len": result.ref_len,
                "signature": str(self._signature(corpus, depth))}


def _unit(score: float) -> float:
    # sacreBLEU's 0..100 on the 0..1 scale of every other metric; its geometric mean in log space
    # can overshoot 100 by an ulp (100.00000000000004 for a 2-token match).
    return min(score / 100.0, 1.0)


def bleu(predictions: Sequence[str], references: References, **options: Any) -> Dict[str, Any]:
    """Functional form of :class:`BLEU`: ``{"bleu": [score, ...], "signature": str}``.

    >>> out = bleu(["getCount"], ["get_count"], split_identifiers=True)
    >>> out["bleu"], out["signature"].endswith("split:yes")
    ([1.0], True)
    """
    result = BLEU(**options).score(predictions, references)
    return {"bleu": result.score, "signature": str(result.signature)}


def corpus_bleu(predictions: Sequence[str], references: References, **options: Any) -> Dict[str, Any]:
    """Corpus-level BLEU: :meth:`BLEU.corpus_score` of a metric built with ``options``."""
    return BLEU(**options).corpus_score(predictions, references)


register("bleu", BLEU, "sentence BLEU through sacreBLEU (Papineni et al. 2002), 0..1")
