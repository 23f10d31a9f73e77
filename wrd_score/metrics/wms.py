"""Word and Sentence Mover's Similarity on the embeddings of a WRDScore backend.

* **WMS** (Kusner et al. 2015; Kilickaya et al. 2017): ``exp(-WMD)``, where WMD is the earth
  mover's distance between the two texts' bags of words: term-frequency masses (normalised
  counts), Euclidean distance between the word vectors as the cost.
* **SMS** (Clark et al. 2019): the same with sentences as the transport nodes; a sentence's
  vector is the mean of its word vectors, its mass its number of words.
* **S+WMS** (Clark et al. 2019): words and sentences in one bag (word masses: counts; sentence
  masses: lengths; normalised together), any node may move to any node.

The vectors are those of the backend WRDScore uses (the static default unless options pick
another), so a comparison with WRDScore differs by the transport rule alone.  Sentences are found
by ``sentencex`` (Wikimedia's rule-based segmenter, no model download), each sentence encoded on
its own (for a contextual backend, as Clark et al. encode each sentence with ELMo).  Unlike the
papers' scripts, no stop words are removed (each paper used its own list); tokens without a
vector are left out, as gensim's ``wmdistance`` does.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ..checks import check_bool, check_choice
from ..scoring import MAX_TRANSPORT_NODES, empty_pair_score
from ..deps import require
from ..signature import Signature
from ..transport import emd_plan
from .base import Metric, MetricResult, References, pick_best, register
from .backend_idf import backend_for, distinct_texts, encode, text_pairs

__all__ = ["MoverSimilarity", "NODES", "split_sentences", "wms", "sms", "word_movers_distance"]

#: Transport nodes: ``words`` (WMS), ``sentences`` (SMS), ``both`` (S+WMS).
NODES = ("words", "sentences", "both")
_NAMES = {"words": "wms", "sentences": "sms", "both": "s+wms"}
_SOURCE = {"words": "kusner2015", "sentences": "clark2019", "both": "clark2019"}


def split_sentences(text: str, language: str = "en") -> List[str]:
    """The sentences of ``text`` (``sentencex``), stripped, empty ones left out.

    >>> split_sentences("Dr. Smith arrived. He sat down!  ")
    ['Dr. Smith arrived.', 'He sat down!']
    >>> split_sentences("   ")
    []
    """
    sentencex = require("sentencex", "siblings")
    return [s.strip() for s in sentencex.segment(language, text) if s.strip()]


def _sentencex_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sentencex")
    except PackageNotFoundError:  # pragma: no cover - imported but not installed as a distribution
        return "unknown"


class MoverSimilarity(Metric):
    """``exp(-EMD)`` between bags of word and/or sentence vectors (WMS, SMS, S+WMS).

    ``nodes``: ``"words"`` (WMS), ``"sentences"`` (SMS) or ``"both"`` (S+WMS).
    ``unit_vectors=True`` scales every vector to length 1 first (gensim's ``wmdistance`` default,
    ``norm=True``); the default uses the vectors as they are, as Kusner et al. and Clark et al. do.
    ``language``: the ``sentencex`` language code for sentence splitting.  ``options``:
    :class:`~wrd_score.Options` fields that pick the backend.  A side without a token that has a
    vector scores by the library's empty-text rule.  With several references, the best one wins.
    The transport distance of each example is kept in ``details["distance"]``.

    >>> MoverSimilarity().score(["get count"], ["getCount"]).score
    [1.0]
    """

    uses_backend = True

    def __init__(self, *, nodes: str = "words", unit_vectors: bool = False, language: str = "en",
                 **options: Any) -> None:
        check_choice("nodes", nodes, NODES)
        if not isinstance(language, str) or not language:
            raise ValueError(f"language must be a language code such as 'en', got {language!r}")
        self.nodes = nodes
        self.name = _NAMES[nodes]
        self.unit_vectors = check_bool("unit_vectors", unit_vectors)
        self.language = language
        if nodes != "words":
            split_sentences("", language)  # a missing sentencex is reported now, not at the first score
        self.backend, self.options = backend_for(options)

    def signature(self) -> Signature:
        fields: Dict[str, str] = {self.name: _SOURCE[self.nodes], **self.backend.signature_fields(),
                                  "mass": "tf", "vectors": "unit" if self.unit_vectors else "raw"}
        if self.nodes != "words":
            fields["split"] = f"sentencex-{_sentencex_version()}"
            fields["lang"] = self.language
        return Signature(tuple(fields.items()))

    def _score(self, predictions: Sequence[str], references: References) -> MetricResult:
        predictions, refs, texts, pairs = text_pairs(predictions, references)
        bags = self._bags(texts)
        distance = np.empty(len(pairs))
        similarity = np.empty(len(pairs))
        for k, (ip, ir) in enumerate(pairs):
            (vec_p, mass_p), (vec_r, mass_r) = bags[ip], bags[ir]
            if not len(mass_p) or not len(mass_r):
                similarity[k] = empty_pair_score(texts[ip], texts[ir])
                distance[k] = 0.0 if similarity[k] == 1.0 else math.inf
                continue
            distance[k] = word_movers_distance(vec_p, mass_p, vec_r, mass_r)
            similarity[k] = math.exp(-distance[k])
        flat, best = pick_best(similarity, refs)
        return MetricResult(self.name, similarity[flat].tolist(), best, self.signature(),
                            details={"distance": distance[flat].tolist()})

    def _bags(self, texts: List[str]) -> List[Tuple[np.ndarray, np.ndarray]]:
        """Each text's transport nodes: ``(vectors, masses)``, masses summing to 1 (or empty)."""
        if self.nodes == "words":
            units = [[i] for i in range(len(texts))]  # one unit (the whole text) per text
            enc = encode(self.backend, texts, keep_special=False)
        else:
            sentences = [split_sentences(t, self.language) for t in texts]
            distinct, where = distinct_texts([s for group in sentences for s in group], [])
            units = [[where[s] for s in group] for group in sentences]
            enc = encode(self.backend, distinct, keep_special=False)
        vectors = enc.units if self.unit_vectors else enc.units * enc.norms[:, None]
        has_vector = ~np.asarray(enc.exact_only, dtype=bool)
        bags = []
        for t, group in enumerate(units):
            rows = [span[has_vector[span]] for span in (enc.spans[u] for u in group)]
            rows = [r for r in rows if len(r)]
            parts_v: List[np.ndarray] = []
            parts_m: List[np.ndarray] = []
            if self.nodes != "sentences" and rows:
                # Static rows are shared by every occurrence of a token: counting rows is counting words.
                distinct_rows, counts = np.unique(np.concatenate(rows), return_counts=True)
                parts_v.append(vectors[distinct_rows])
                parts_m.append(counts.astype(np.float64))
            if self.nodes != "words" and rows:
                parts_v.append(np.stack([vectors[r].mean(axis=0) for r in rows]))
                parts_m.append(np.array([len(r) for r in rows], dtype=np.float64))
            if not parts_m:
                bags.append((np.zeros((0, vectors.shape[1])), np.zeros(0)))
                continue
            mass = np.concatenate(parts_m)
            if len(mass) > MAX_TRANSPORT_NODES:
                raise ValueError(f"text {t} ({texts[t][:40]!r}...) has {len(mass)} transport nodes; the limit "
                                 f"is {MAX_TRANSPORT_NODES} per text")
            bags.append((np.concatenate(parts_v), mass / mass.sum()))
        return bags


def word_movers_distance(vectors_p: np.ndarray, mass_p: np.ndarray, vectors_r: np.ndarray,
                         mass_r: np.ndarray) -> float:
    """The earth mover's distance between two weighted point sets, Euclidean ground cost.

    >>> word_movers_distance(np.array([[0.0, 0.0]]), np.array([1.0]), np.array([[3.0, 4.0]]), np.array([1.0]))
    5.0
    """
    from scipy.spatial.distance import cdist

    cost = cdist(vectors_p, vectors_r)  # direct differences: exact 0 for equal vectors
    flow = emd_plan(mass_p, mass_r, cost)
    return float(np.sum(flow * cost))


def wms(predictions: Sequence[str], references: References, *, nodes: str = "words",
        unit_vectors: bool = False, **options: Any) -> Dict[str, Any]:
    """Functional form of :class:`MoverSimilarity`: ``score``, ``distance``, ``best_reference``, ``signature``.

    >>> wms(["a cat"], ["a cat"])["score"]
    [1.0]
    """
    result = MoverSimilarity(nodes=nodes, unit_vectors=unit_vectors, **options).score(predictions, references)
    return {"score": result.score, "distance": result.details["distance"], "best_reference": result.best_reference,
            "signature": str(result.signature)}


def sms(predictions: Sequence[str], references: References, *, nodes: str = "sentences",
        **options: Any) -> Dict[str, Any]:
    """Sentence Mover's Similarity (``nodes="both"``: S+WMS); see :func:`wms`.

    >>> out = sms(["A cat sat. It slept."], ["A cat sat. It slept."])
    >>> out["score"], out["signature"].split("|")[0]
    ([1.0], 'sms:clark2019')
    """
    return wms(predictions, references, nodes=nodes, **options)


register("wms", MoverSimilarity, "Word Mover's Similarity exp(-WMD), term-frequency masses, Euclidean cost "
         "(Kusner et al. 2015)", nodes="words")
register("sms", MoverSimilarity, "Sentence Mover's Similarity: sentences (mean word vectors) as transport "
         "nodes (Clark et al. 2019)", nodes="sentences")
register("s+wms", MoverSimilarity, "Sentence+Word Mover's Similarity: words and sentences as transport nodes "
         "(Clark et al. 2019)", nodes="both")
