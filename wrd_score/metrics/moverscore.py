"""MoverScore (``moverscore_v2``, Zhao et al. 2019; unigrams) on the embeddings of a WRDScore backend."""
from __future__ import annotations

import math
import string
from itertools import islice
from typing import Any, Dict, FrozenSet, Iterable, Mapping, Sequence, Union

import numpy as np

from ..checks import check_choice
from ..scoring import cosine_matrix, empty_pair_score
from ..signature import Signature
from ..transport import emd_plan
from .base import Metric, MetricResult, References, column_name, pick_best, register
from .backend_idf import backend_for, encode, idf_weights, special_mask, text_pairs

__all__ = ["MoverScore", "moverscore", "MOVERSCORE_FORMS", "MAX_STOP_WORDS", "stop_word_set"]

MOVERSCORE_FORMS = ("inverse", "complement")
KEEP_DROP = ("drop", "keep")
#: Most stop words MoverScore takes, repeats counted (SECURITY.md): stop-word lists hold hundreds (NLTK's
#: English one 179); the bound keeps a wrong file (a word list, a corpus) from being read whole into memory.
MAX_STOP_WORDS = 100_000


def stop_word_set(words: Iterable[str], name: str = "stop_words") -> FrozenSet[str]:
    """The one reading of a stop-word list: at most :data:`MAX_STOP_WORDS` strings (no more is read from an
    iterator), as a set; ``name`` says where they came from in the messages.

    >>> sorted(stop_word_set(["the", "a", "the"]))
    ['a', 'the']
    """
    if isinstance(words, str):
        raise TypeError(f"{name} must be a collection of token strings, not one string")
    if not hasattr(words, "__iter__"):
        raise TypeError(f"{name} must be a collection of token strings, got {type(words).__name__}")
    taken = list(islice(words, MAX_STOP_WORDS + 1))
    if len(taken) > MAX_STOP_WORDS:
        raise ValueError(f"{name}: more than {MAX_STOP_WORDS:,} stop words (the limit bounds memory; see SECURITY.md)")
    for word in taken:
        if not isinstance(word, str):
            raise TypeError(f"{name} must contain strings, got {word!r:.60}")
    return frozenset(taken)


class MoverScore(Metric):
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

    >>> MoverScore(idf=False).score(["get count"], ["getCount"]).score
    [1.0]
    """

    name = "moverscore"
    uses_backend = True

    def __init__(self, *, idf: Union[bool, Mapping[str, float]] = True, stop_words: Iterable[str] = (),
                 subwords: str = "drop", punctuation: str = "drop", form: str = "inverse", **options: Any) -> None:
        check_choice("form", form, MOVERSCORE_FORMS)
        check_choice("subwords", subwords, KEEP_DROP)
        check_choice("punctuation", punctuation, KEEP_DROP)
        self.stop = stop_word_set(stop_words)
        if not isinstance(idf, (bool, Mapping)):
            raise TypeError(f"idf must be True, False or a dict of token -> weight, got {type(idf).__name__}")
        self.idf, self.subwords, self.punctuation, self.form = idf, subwords, punctuation, form
        self.backend, self.options = backend_for(options)
        self.name = column_name("moverscore", self.backend.kind)

    def _score(self, predictions: Sequence[str], references: References) -> MetricResult:
        predictions, refs, texts, pairs = text_pairs(predictions, references)
        backend = self.backend
        enc = encode(backend, texts, keep_special=False)
        if self.idf is True:
            # Two tables, as moverscore_v2: reference tokens weighed by the references, prediction
            # tokens by the predictions (the lists as given, duplicates included).
            w_ref, _ = idf_weights(True, enc, (backend.tokenize(r) for group in refs for r in group))
            w_hyp, _ = idf_weights(True, enc, (backend.tokenize(p) for p in predictions))
            source = "refs+hyps"
        else:
            w_ref, source = idf_weights(self.idf, enc, ())
            w_hyp = w_ref
        punct = frozenset(string.punctuation)
        drop_pieces, drop_punct = self.subwords == "drop", self.punctuation == "drop"
        removed = np.fromiter(((t in self.stop) or (drop_pieces and "##" in t) or (drop_punct and t in punct)
                               for t in enc.tokens), dtype=bool, count=len(enc.tokens))
        removed |= special_mask(enc)
        w_ref = np.where(removed, 0.0, w_ref)
        w_hyp = np.where(removed, 0.0, w_hyp)
        cost = np.empty(len(pairs))
        for k, (ip, ir) in enumerate(pairs):
            rows_p, rows_r = enc.spans[ip], enc.spans[ir]
            keep_p, keep_r = ~removed[rows_p], ~removed[rows_r]
            if not keep_p.any() or not keep_r.any():
                # The empty-text rule: equal texts 0 cost, else nothing can move (infinite cost, score 0).
                same = not keep_p.any() and not keep_r.any() and empty_pair_score(texts[ip], texts[ir]) == 1.0
                cost[k] = 0.0 if same else math.inf
                continue
            # IDF 0 on every kept token (one sentence, or a word in every document): moverscore_v2 then
            # moves no mass and scores 1; uniform masses over the kept tokens give a meaningful score.
            a = w_hyp[rows_p] if w_hyp[rows_p].sum() > 0 else keep_p.astype(np.float64)
            b = w_ref[rows_r] if w_ref[rows_r].sum() > 0 else keep_r.astype(np.float64)
            cos = cosine_matrix(enc, rows_p, rows_r, clip=False, blas=True)
            # Euclidean distance between unit vectors; cosines in [-1, 1] keep it in [0, 2].
            dist = np.sqrt(2.0 - 2.0 * cos)
            flow = emd_plan(a / a.sum(), b / b.sum(), dist)
            cost[k] = float(np.sum(flow * dist))
        score = 1.0 / (1.0 + cost) if self.form == "inverse" else 1.0 - cost
        score[np.isinf(cost)] = 0.0  # the empty-text rule's 0 in both forms
        flat, best = pick_best(score, refs)
        signature = Signature.build(moverscore="v2", **backend.signature_fields(), idf=source, form=self.form,
                                    stop="none" if not self.stop else f"{len(self.stop)}", subwords=self.subwords,
                                    punct=self.punctuation)
        return MetricResult(self.name, score[flat].tolist(), best, signature, details={"cost": cost[flat].tolist()})


def moverscore(predictions: Sequence[str], references: References, *, idf: Union[bool, Mapping[str, float]] = True,
               stop_words: Iterable[str] = (), subwords: str = "drop", punctuation: str = "drop",
               form: str = "inverse", **options: Any) -> Dict[str, Any]:
    """Functional form of :class:`MoverScore`: a dict of ``score``, ``cost``, ``best_reference``, ``signature``.

    >>> moverscore(["get count"], ["getCount"], idf=False)["score"]
    [1.0]
    """
    result = MoverScore(idf=idf, stop_words=stop_words, subwords=subwords, punctuation=punctuation, form=form,
                        **options).score(predictions, references)
    return {"score": result.score, "cost": result.details["cost"], "best_reference": result.best_reference,
            "signature": str(result.signature)}


register("moverscore", MoverScore, "MoverScore's rule: earth mover's distance with IDF masses, moverscore_v2 "
         "(Zhao et al. 2019), on the same embeddings; columns moverscore-rule[static|contextual]", rule=True)
