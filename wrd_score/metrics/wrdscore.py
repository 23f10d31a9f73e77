"""WRDScore in the metric interface (the library's own metric: :class:`wrd_score.WRDScorer`)."""
from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from ..scorer import WRDScorer
from .base import Metric, MetricResult, References, register

__all__ = ["WRDScoreMetric"]


class WRDScoreMetric(Metric):
    """WRDScore with :class:`~wrd_score.Options` ``options``; ``idf`` as :meth:`WRDScorer.score` takes it.

    >>> WRDScoreMetric().score(["getCount"], ["get_count"]).f1
    [1.0]
    """

    name = "wrdscore"
    uses_backend = True

    def __init__(self, *, idf: Optional[Mapping[str, float]] = None, **options: Any) -> None:
        self.scorer = WRDScorer(**options)
        self.idf = idf

    def _score(self, predictions: Sequence[str], references: References) -> MetricResult:
        out = self.scorer.scores(predictions, references, idf=self.idf)
        return MetricResult(self.name, out.f1, out.best_reference, out.signature, precision=out.precision,
                            recall=out.recall, f1=out.f1)


register("wrdscore", WRDScoreMetric, "optimal transport between token embeddings (this library)")
