"""torch.distributed and Lightning: WRDScore as a ``torchmetrics.Metric``.

Each rank scores its own examples in :meth:`WRDScore.update` (with its own backend, on its own
device) and keeps per-example states: precision, recall, F1, best reference, and for putting the
examples back in order, their index and a digest of their text.  Every state is a list reduced with
``dist_reduce_fx="cat"``, so torchmetrics gathers them from all ranks when :meth:`WRDScore.compute`
runs; ``compute`` then returns what one ``WRDScorer.score`` call over all examples returns.

Order.  Gathered states come rank after rank, each rank's in its update order.  That is the
original order when each rank was given a contiguous slice of the data.  A ``DistributedSampler``
deals examples out in turn instead (and repeats a few to give every rank as many): pass each
example's position in the dataset as ``indexes``; ``compute`` sorts by it and drops the repeats
(refusing an index given to two different texts).

Configuration.  Every rank must build the metric alike (options and IDF table): each update records a
digest of the rank's signature and table, and ``compute`` refuses gathered states whose digests differ
from its own, as ``wrdscore merge`` refuses shards of different signatures.

IDF.  A rank that fitted IDF on its own references would weight tokens differently from one call
over all examples; the metric therefore refuses IDF weights without ``idf=``, a table fitted once
on every reference (``WRDScorer(weights="idf").idf_table(all_references)`` gives the one a single
call would fit) or a ``{token: weight}`` dict.

>>> metric = WRDScore()
>>> metric.update(["getCount", "size"], ["get_count", ["length", "size"]])
>>> out = metric.compute()
>>> out["f1"], out["best_reference"]
([1.0, 1.0], [0, 1])
>>> WRDScore(weights="idf")
Traceback (most recent call last):
...
ValueError: weights='idf' needs idf=: each rank would fit IDF on its own references and scores would depend on how the input is split into ranks; pass a table fitted once on all references (WRDScorer(weights='idf').idf_table(references)) or a {token: weight} dict
"""
from __future__ import annotations

import hashlib
from dataclasses import fields
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..deps import require
from ..checks import (check_int, check_number, check_texts, close_match_hint, one_number, reference_lists,
                      refuse_meta)
from ..scorer import WRDScorer, result_dict
from ..options import Options
from ..plot import _figure
from ..weights import shared_idf, table_digest

torch = require("torch", "torchmetrics")
Metric = require("torchmetrics", "torchmetrics").Metric
dim_zero_cat = require("torchmetrics.utilities", "torchmetrics").dim_zero_cat

__all__ = ["WRDScore"]

_OPTIONS = frozenset(f.name for f in fields(Options))
#: Indexes and digests are kept in float64 states, exact up to here.
_MAX_INDEX = 2**53
#: "no index given" in the index state.
_UNSET = -1.0
#: What :meth:`WRDScore.plot` draws of a compute() result: the scalars (the rest are lists and the signature).
_PLOTTED = ("mean_precision", "mean_recall", "mean_f1")
#: The largest magnitude plot() draws: matplotlib's and torchmetrics' margins (a tenth of the span, twice) keep the
#: axes' limits finite; at 1e308 they overflowed to inf deep in matplotlib ("Axis limits cannot be NaN or Inf").
_MAX_PLOTTED = 1e300


def _metric_arguments() -> List[str]:
    """The keyword arguments of torchmetrics' ``Metric`` (its ``__init__`` pops each from ``**kwargs``), read from its
    source for the did-you-mean of a mistyped one only: torchmetrics itself decides what it takes."""
    import inspect
    import re

    try:
        source = inspect.getsource(Metric.__init__)
    except (OSError, TypeError):  # pragma: no cover - a build without sources: no hint
        return []
    return sorted(set(re.findall(r"kwargs\.pop\(\s*[\"'](\w+)[\"']", source)))


def _digest(prediction: str, references: List[str]) -> float:
    # 52 bits of a hash of the pair, exact in float64: tells a repeated example (DistributedSampler
    # padding) from two different examples given the same index.
    raw = hashlib.blake2b(repr((prediction, references)).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return float(int.from_bytes(raw, "big") >> 12)


class WRDScore(Metric):
    """WRDScore over all ranks: ``update(preds, target, indexes=None)``, then ``compute()``.

    ``preds`` is a list of strings, ``target`` a list of references (a string or a list of
    strings each), ``indexes`` (optional) each example's position in the dataset.  Keyword
    arguments are :class:`~wrd_score.Options` fields (``backend="contextual"``, ``weights=...``)
    or torchmetrics' own (``sync_on_compute``, ``process_group``, ...).  ``compute()`` returns
    :meth:`WRDScorer.score`'s dict (per-example lists, means, signature) over every example of
    every rank, in dataset order.

    The contextual backend's ``device="auto"`` means ``cuda``, the current CUDA device of the
    process, which Lightning (or ``torch.cuda.set_device(local_rank)``) sets per rank.
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0

    def __init__(self, *, idf: Optional[Mapping[str, float]] = None, **kwargs: Any) -> None:
        options = {name: kwargs.pop(name) for name in list(kwargs) if name in _OPTIONS}
        try:
            super().__init__(**kwargs)
        except ValueError as exc:  # torchmetrics' "Unexpected keyword arguments: `x`" names nothing to use instead
            unknown = [name for name in kwargs if f"`{name}`" in str(exc)]
            if not unknown:
                raise
            known = sorted(_OPTIONS | {"idf"}) + _metric_arguments()
            raise ValueError("; ".join(f"WRDScore got an unknown keyword argument {name!r} (neither a WRDScore option "
                                       f"nor one of torchmetrics' Metric arguments){close_match_hint(name, known)}"
                                       for name in unknown)) from None
        scorer = WRDScorer(**options)  # options checked (and the backend loaded) here, not at the first update
        # Options, not the scorer: a Metric is deep-copied (clone, Lightning), and a scorer holds
        # its embedding or encoder; WRDScorer(options) takes the backend from its cache instead.
        self.options = scorer.options
        # No rank sees every reference, so IDF weights need the table fitted once beforehand.
        self.idf = shared_idf(scorer.options.weights, idf, None, part="rank")
        for name in ("index", "digest", "precision", "recall", "f1", "best_reference"):
            self.add_state(name, default=[], dist_reduce_fx="cat")
        # A tensor, not a list: a rank without updates still sends its configuration.
        self.add_state("config", default=torch.tensor([self._config()], dtype=torch.float64), dist_reduce_fx="cat")
        # A rank without examples sends an empty tensor of the metric's dtype; every rank's
        # states must then share one dtype, float64 (exact for scores, indexes and digests).
        self.set_dtype(torch.float64)

    def _signature(self) -> str:
        return str(WRDScorer(self.options).signature(self.idf))

    def _config(self) -> float:
        # The signature pins the options and a user's table; a fitted table is pinned here by content
        # (two ranks that each fitted their own references both say idf:refs).
        table = [] if self.idf is None else [table_digest(self.idf.weights), repr(self.idf.default)]
        return _digest(self._signature(), table)

    def _values(self, values: Sequence[float]) -> Any:
        return torch.tensor(values, dtype=torch.float64, device=self.device)

    def _refuse_meta(self) -> None:
        if self.device.type == "meta":
            raise ValueError("WRDScore is on the meta device (moved with .to('meta')): its states have no values to "
                             "keep or read; move it to a real device (.to('cpu'), .to('cuda')) before update() or "
                             "compute()")

    def update(self, preds: Sequence[str], target: Sequence[Any], indexes: Optional[Sequence[int]] = None) -> None:
        """Score this rank's ``preds`` against ``target`` and keep the per-example results."""
        self._refuse_meta()
        predictions = check_texts("preds", preds)
        try:
            references = reference_lists(target)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"target: {exc}") from None
        if len(references) != len(predictions):
            raise ValueError(f"preds and target must have the same length, got {len(predictions)} and "
                             f"{len(references)}")
        positions = self._check_indexes(indexes, len(predictions))
        result = WRDScorer(self.options).score(predictions, references, idf=self.idf)
        self.index.append(self._values(positions))
        self.digest.append(self._values([_digest(p, r) for p, r in zip(predictions, references)]))
        for name in ("precision", "recall", "f1", "best_reference"):
            getattr(self, name).append(self._values(result[name]))

    @staticmethod
    def _check_indexes(indexes: Any, n: int) -> List[float]:
        if indexes is None:
            return [_UNSET] * n
        if hasattr(indexes, "tolist"):  # a tensor or an array
            indexes = refuse_meta("indexes", indexes).tolist()
        if isinstance(indexes, (str, bytes)) or not isinstance(indexes, Sequence):
            raise TypeError(f"indexes must be a list of integers (one per example), got {type(indexes).__name__}")
        if len(indexes) != n:
            raise ValueError(f"indexes must have one entry per example: {n} examples, {len(indexes)} indexes")
        for i, value in enumerate(indexes):
            check_int(f"indexes[{i}]", value, 0, _MAX_INDEX - 1)
        return [float(value) for value in indexes]

    def merge_state(self, incoming_state: Any) -> None:
        """torchmetrics' merge, with this metric's examples first: its ``cat`` puts the incoming state before the
        local one, so ``a.merge_state(b)`` listed ``b``'s examples before ``a``'s (the means agreed, the per-example
        lists and best references did not)."""
        if isinstance(incoming_state, Metric) and isinstance(incoming_state, self.__class__):
            incoming_state = {attr: getattr(incoming_state, attr) for attr in incoming_state._defaults}
        if not isinstance(incoming_state, dict) or not set(self._defaults).issubset(incoming_state):
            super().merge_state(incoming_state)  # its own refusal
            return
        own = {attr: getattr(self, attr) for attr in self._defaults}
        for attr in self._defaults:
            setattr(self, attr, incoming_state[attr])
        super().merge_state(own)  # reduced as [own, incoming]

    def plot(self, val: Any = None, ax: Any = None) -> Tuple[Any, Any]:
        """Plot the mean precision, recall and F1 of one :meth:`compute` (or ``forward``) result, or of a list of
        them as steps (torchmetrics' convention); ``val=None`` plots :meth:`compute` now.  ``ax``: a matplotlib
        ``Axes`` to draw on, else a new figure.  Returns ``(figure, axes)``; needs the ``plot`` extra."""
        if ax is None:
            # A Figure of its own, not pyplot's (plot.py's rule): nothing is left open in the caller's process.
            ax = _figure(6.4, 4.8).add_subplot()
        elif not isinstance(ax, require("matplotlib.axes", "plot").Axes):
            raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
        if val is None:
            val = self.compute()
        if isinstance(val, Mapping):
            series = _plotted_means("val", val)
        elif isinstance(val, (list, tuple)):
            if not val:
                raise ValueError("val is an empty list: give compute() results, one a step")
            steps = [_plotted_means(f"val[{i}]", step) for i, step in enumerate(val)]
            # A series of steps is one configuration's: another variant or table would read as a trend.  Each
            # signature is held to the first one given, not to val[0]'s: a step built by hand may have none.
            signed = [(i, step["signature"]) for i, step in enumerate(val) if "signature" in step]
            for i, signature in signed[1:]:
                if signature != signed[0][1]:
                    raise ValueError(f"val[{i}] was computed with signature {signature}, val[{signed[0][0]}] with "
                                     f"{signed[0][1]}: the steps of one plot must share one configuration")
            series = {name: torch.tensor([step[name] for step in steps], dtype=torch.float64) for name in _PLOTTED}
        else:
            raise TypeError(f"val must be a compute() result (a dict) or a list of them, got {type(val).__name__}")
        values = torch.cat([v.reshape(-1) for v in series.values()])
        low, high = _score_range(self.options)
        # A bound the values pass (a result of another configuration) is not drawn.
        low = low if low is not None and bool((values >= low).all()) else None
        high = high if bool((values <= high).all()) else None
        plot_values = require("torchmetrics.utilities.plot", "torchmetrics").plot_single_or_multi_val
        plot_values(series, ax=ax, higher_is_better=self.higher_is_better, lower_bound=low, upper_bound=high,
                    name=self.__class__.__name__)
        if low is None or high is None:
            # torchmetrics pads a missing bound by a tenth of the data's own spread, which put the lowest
            # rescaled score on the axes' edge: pad the whole span shown, as it does between two bounds.
            bottom = min(float(values.min()), 0.0 if low is None else low)
            top = max(float(values.max()), 1.0 if high is None else high)
            pad = 0.1 * (top - bottom)
            ax.set_ylim(bottom - pad, top + pad)
        return ax.figure, ax

    def compute(self) -> Dict[str, Any]:
        """:meth:`WRDScorer.score`'s dict over all examples of all ranks, in dataset order."""
        self._refuse_meta()
        signature = self._signature()
        if bool((dim_zero_cat(self.config) != self._config()).any()):
            raise ValueError(f"the ranks were configured differently (options or idf table): their scores cannot "
                             f"be merged into one result; this rank's signature is {signature}. Build WRDScore "
                             "with the same options and the same idf= on every rank")
        if isinstance(self.f1, list) and not self.f1:  # no update anywhere
            return result_dict([], [], [], [], signature)
        index, digest, precision, recall, f1, best = (
            dim_zero_cat(getattr(self, name)) for name in ("index", "digest", "precision", "recall", "f1",
                                                           "best_reference"))
        given = index != _UNSET
        if bool(given.any()):
            if not bool(given.all()):
                raise ValueError("indexes were given in some update calls (or on some ranks) but not in others; "
                                 "give them in every call on every rank, or in none")
            # Stable: of the copies of a repeated example, the lowest rank's (all equal) is kept.
            order = torch.argsort(index, stable=True)
            index, digest, precision, recall, f1, best = (
                t[order] for t in (index, digest, precision, recall, f1, best))
            repeat = torch.zeros_like(given)
            repeat[1:] = index[1:] == index[:-1]
            clash = repeat.clone()
            clash[1:] &= digest[1:] != digest[:-1]
            if bool(clash.any()):
                raise ValueError(f"index {int(index[clash][0])} was given to two different examples; indexes must "
                                 "name each example's position in the dataset")
            keep = ~repeat
            precision, recall, f1, best = precision[keep], recall[keep], f1[keep], best[keep]
        return result_dict(precision.tolist(), recall.tolist(), f1.tolist(), [int(b) for b in best.tolist()],
                           signature)


def _plotted_means(name: str, result: Any) -> Dict[str, Any]:
    """The three means of one compute() result as 0-d tensors, checked (``name``: where it is in ``val``)."""
    if not isinstance(result, Mapping):
        raise TypeError(f"{name} must be a compute() result (a dict), got {type(result).__name__}")
    means = {}
    for key in _PLOTTED:
        if key not in result:
            raise ValueError(f"{name} has no {key!r}: give a compute() result (a dict with {', '.join(_PLOTTED)})")
        value = result[key]
        value = one_number(f"{name}[{key!r}]", value)  # tensor(v).mean() (BERTScore.plot's form), a 0-d array
        # Unbounded first, so that NaN or inf is named as not finite, not as out of the drawable range.
        value = check_number(f"{name}[{key!r}]", value)
        means[key] = torch.tensor(check_number(f"{name}[{key!r}]", value, -_MAX_PLOTTED, _MAX_PLOTTED,
                                               why="WRDScore's scores are at most 1"), dtype=torch.float64)
    return means


def _score_range(options: Options) -> Tuple[Optional[float], float]:
    """The lowest and highest score the options allow (the class's plot bounds are torchmetrics constants, and
    scores below 0 would fall off them); no floor for rescaled scores, ``(x - b) / (1 - b)`` with the
    baseline's ``b``."""
    if options.rescale_with_baseline:
        return None, 1.0
    return (0.0 if options.clip_negative else -1.0), 1.0
