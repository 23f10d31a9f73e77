"""How precision and recall are read off an optimal transport plan: the variants of the metric."""
from __future__ import annotations

__all__ = ["VARIANTS"]

#: How precision and recall are read off the transport plan (``variant=``): value -> meaning. The batch
#: kernel and the POT path compute both; :mod:`wrd_score.options` shows these as the option's allowed values.
VARIANTS = {
    "wrd": "recall = 1 - Word Rotator's Distance, precision = mass-weighted best cosine",
    "paper": "equations 4-5 of the paper: flow-weighted mean cosine of each token",
}
