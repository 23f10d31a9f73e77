"""chrF (Popović 2015) through sacreBLEU: per example, and the corpus score from summed statistics.

Roy et al. (2021) found chrF among the more reliable metrics for code summarisation.  sacreBLEU is
the reference implementation; this module adds the library's conventions (reference lists, the
empty-text rule, scores in [0, 1]) and carries sacreBLEU's own signature
(``nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0``) into ours after a ``chrf:sacrebleu``
head.  ``word_order=2`` gives chrF++.
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence

from ..checks import check_bool, check_int
from ..deps import require
from ..scoring import empty_pair_score
from ..signature import Signature
from .base import Metric, MetricResult, References, register

__all__ = ["CHRF", "chrf", "MAX_CHRF_CHARS"]

#: Most characters one text may have for chrF: its cost is in character n-grams (sacreBLEU keeps a
#: Counter of every n-gram of every order), not tokens, and one 4,096-token text may hold a million
#: characters.  65,536 characters is 16 a token at the 4,096-token cap of every metric.  SECURITY.md
#: states it, with the cost at the cap (``benchmarks/metric_caps.py``).
MAX_CHRF_CHARS = 65_536


class CHRF(Metric):
    """chrF per example (sacreBLEU's ``sentence_score``) on a 0..1 scale; the corpus score (sacreBLEU's
    ``corpus_score``: character n-gram statistics summed over all examples, then one F-score) in
    ``result.corpus["chrf"]``.

    Options are sacreBLEU's: ``char_order`` (6), ``word_order`` (0; 2 is chrF++), ``beta`` (2),
    ``lowercase``, ``whitespace`` (keep spaces in character n-grams), ``eps_smoothing``.  With several
    references the best one counts (sacreBLEU's rule: the first with the highest F-score), per example
    and in the corpus statistics.  A pair whose two texts have no character but whitespace scores by
    the library's empty-text rule (1 when equal; sacreBLEU says 0); it adds nothing to the corpus.

    >>> result = CHRF().score(["the cat sat"], ["the cat sat"])
    >>> result.score, result.corpus["chrf"], str(result.signature).split("|")[:2]
    ([1.0], 1.0, ['chrf:sacrebleu', 'nrefs:1'])
    """

    name = "chrf"
    max_text_chars = MAX_CHRF_CHARS

    def __init__(self, *, char_order: int = 6, word_order: int = 0, beta: int = 2, lowercase: bool = False,
                 whitespace: bool = False, eps_smoothing: bool = False) -> None:
        metrics = require("sacrebleu.metrics", "siblings")
        self.settings = dict(char_order=check_int("char_order", char_order, 1, 32),
                             word_order=check_int("word_order", word_order, 0, 32),
                             beta=check_int("beta", beta, 0, 32),
                             lowercase=check_bool("lowercase", lowercase),
                             whitespace=check_bool("whitespace", whitespace),
                             eps_smoothing=check_bool("eps_smoothing", eps_smoothing))
        self._metric = metrics.CHRF(**self.settings)
        # sacreBLEU builds its signature only once it has scored something: one trivial pair now.
        self._metric.sentence_score("a", ["a"])

    def _signature(self, chrf, nrefs: int) -> Signature:
        info = {k: v for k, v in chrf.get_signature().info.items() if v is not None}
        info["nrefs"] = nrefs
        return Signature((("chrf", "sacrebleu"),) + tuple((k, info[k]) for k in
                                                          ("nrefs", "case", "eff", "nc", "nw", "space", "version")
                                                          if k in info))

    def _sentence(self, hyp: str, ref: str) -> float:
        if not "".join(hyp.split()) and not "".join(ref.split()):
            return empty_pair_score(hyp, ref)
        return min(self._metric.sentence_score(hyp, [ref]).score / 100.0, 1.0)

    def _score(self, predictions: List[str], references: List[List[str]]) -> MetricResult:
        scores: List[float] = []
        best: List[int] = []
        for hyp, group in zip(predictions, references):
            # sacreBLEU's multi-reference score is the score of its best reference (the first with the
            # highest F-score): the same number as the best single-reference score, whose index we keep.
            values = [self._sentence(hyp, ref) for ref in group]
            top = max(values)
            scores.append(top)
            best.append(values.index(top))
        depth = max((len(g) for g in references), default=1)
        # sacreBLEU takes one stream per reference position; examples with fewer references pad with None.
        streams = [[g[k] if k < len(g) else None for g in references] for k in range(depth)]
        corpus = self._metric.corpus_score(list(predictions), streams) if predictions else None
        return MetricResult(self.name, scores, best, self._signature(self._metric, depth),
                            corpus={"chrf": min(corpus.score / 100.0, 1.0) if corpus is not None else 0.0})


def chrf(predictions: Sequence[str], references: References, **options: Any) -> Dict[str, Any]:
    """Functional form of :class:`CHRF`: per-example ``chrf``, the ``corpus_chrf`` and the ``signature``.

    >>> out = chrf(["the cat sat on the mat"], ["the cat sat on a mat"])
    >>> round(out["chrf"][0], 4), out["corpus_chrf"] == out["chrf"][0]
    (0.7208, True)
    """
    result = CHRF(**options).score(predictions, references)
    return {"chrf": result.score, "best_reference": result.best_reference, "corpus_chrf": result.corpus["chrf"],
            "signature": str(result.signature)}


register("chrf", CHRF, "chrF (character n-gram F-score) through sacreBLEU, 0..1; word_order=2 for chrF++")
