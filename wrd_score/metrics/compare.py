"""Several metrics on the same pairs, one row per example: :func:`compare`."""
from __future__ import annotations

import inspect
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from ..checks import check_bool, check_choice, check_names
from ..deps import require
from ..options import option_info
from .base import (References, check_options_read, get_metric, metric_factory, metric_names, metric_options,
                   options_read)
from .backend_idf import inputs, shared_backends

__all__ = ["compare", "COMPARED", "split_options", "check_metrics"]

#: What :func:`compare` scores by default (``rouge`` stands for ROUGE-1, ROUGE-2 and ROUGE-L).
COMPARED = ("wrdscore", "bertscore", "moverscore", "rouge")
_OPTION_NAMES = frozenset(info.name for info in option_info())


def split_options(metrics: Sequence[str], options: Mapping[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Dict[str, Any]]]:
    """Split keyword options into the shared metric options and each metric's own.

    A metric's own option is written ``METRIC_OPTION`` (``bertscore_idf``; ``rouge_use_stemmer``
    applies to every ROUGE metric asked for); every other key must be a :class:`~wrd_score.Options`
    field, shared by the metrics that run on a backend.  An option of a metric not asked for is
    refused (it would be ignored).

    >>> split_options(["wrdscore", "bertscore"], {"variant": "paper", "bertscore_idf": True})
    ({'variant': 'paper'}, {'wrdscore': {}, 'bertscore': {'idf': True}})
    """
    shared: Dict[str, Any] = {}
    own: Dict[str, Dict[str, Any]] = {m: {} for m in metrics}
    for key, value in options.items():
        if key in _OPTION_NAMES:
            shared[key] = value
            continue
        family, _, name = key.partition("_")
        # "rouge_use_stemmer" configures every ROUGE metric asked for; "rouge1_..." only rouge1.
        targets = [m for m in metrics if m.startswith(family)] if family and name else []
        if not targets:  # the options of every metric asked for, by their full names
            check_names([key], sorted(_OPTION_NAMES) + [f"{m}_{option}" for m in metrics
                                                        for option in metric_options(m) if option not in _OPTION_NAMES])
        for target in targets:
            # "rouge_types" is Rouge's own parameter name: it keeps its prefix.
            params = inspect.signature(metric_factory(target)).parameters
            option = key if key in params else name
            check_names([f"{target}_{option}"], [f"{target}_{known}" for known in metric_options(target)])
            own[target][option] = value
    return shared, own


def check_metrics(metrics: Any) -> Tuple[str, ...]:
    """``metrics`` (a name or a sequence of names) as a tuple of registered metric names, each once."""
    if isinstance(metrics, str):
        metrics = (metrics,)
    metrics = tuple(metrics)
    if not metrics:
        raise ValueError(f"metrics must name at least one of {list(metric_names())}")
    for m in metrics:
        check_choice("metrics", m, metric_names())
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"metrics names a metric twice: {list(metrics)}")
    return metrics


def compare(predictions: Sequence[str], references: References, metrics: Sequence[str] = COMPARED, *,
            as_dataframe: bool = False, idf: Optional[Mapping[str, float]] = None, **options: Any):
    """Score the same pairs with several registered metrics; one row per example.

    ``options``: :class:`~wrd_score.Options` fields (they configure WRDScore and pick the backend
    that BERTScore and MoverScore share with it: :func:`~wrd_score.metrics.base.options_read`) and per-metric
    options written ``METRIC_OPTION``:
    ``bertscore_idf``, ``bertscore_special_candidates``, ``moverscore_idf``, ``moverscore_stop_words``,
    ``moverscore_subwords``, ``moverscore_punctuation``, ``moverscore_form``, ``rouge_types``,
    ``rouge_split_identifiers``, ``rouge_use_stemmer``, ``chrf_word_order``, ``exact-match_rule``, ...
    (any keyword :func:`~wrd_score.metrics.metric_options` lists for the metric).  ``idf`` is WRDScore's IDF table.

    Returns a dict of lists with columns ``prediction``, ``reference`` (the string, or the list when
    an example has several), then each metric's columns (``NAME_precision``/``_recall``/``_f1``, or
    ``NAME`` for a single score; ``rouge1``/``rouge2``/``rougeL`` for ROUGE), plus ``signatures``
    (NAME -> signature string), and, when a metric asked for has corpus-level scores (subtoken-f1's
    micro averages, exact-match's accuracy, chrF's corpus score), ``corpus`` (NAME -> {score name:
    value}; :attr:`~wrd_score.metrics.MetricResult.corpus`).  NAME is :func:`~wrd_score.metrics.base.column_name`'s:
    ``bertscore-rule[static]_f1``, ``moverscore-rule[static]`` for the rules run on static vectors.  ``as_dataframe=True`` returns a pandas DataFrame with the
    signatures in ``df.attrs["signatures"]`` (and the corpus scores in ``df.attrs["corpus"]``).

    >>> compare(["getCount"], ["get_count"], metrics=("rouge",))["rouge1"]
    [0.0]
    >>> compare(["getCount"], ["get_count"], metrics=("rouge1",), rouge1_split_identifiers=True)["rouge1"]
    [1.0]
    """
    metrics = check_metrics(metrics)
    check_bool("as_dataframe", as_dataframe)
    shared, own = split_options(metrics, options)
    # An option none of the metrics reads would be ignored (compare(metrics=["rouge1"], variant="paper")).
    check_options_read(shared, [(name, ()) for name in metrics])
    if idf is not None and "wrdscore" not in metrics:
        raise ValueError("idf given without wrdscore in metrics: it would be ignored (it is WRDScore's IDF table)")
    predictions, refs = inputs(predictions, references)
    table: Dict[str, Any] = {
        "prediction": list(predictions),
        "reference": [group[0] if len(group) == 1 else list(group) for group in refs],
    }
    signatures: Dict[str, str] = {}
    corpus: Dict[str, Dict[str, float]] = {}
    # Columns in registry order (WRDScore first), whatever order the metrics were asked in; the metrics on a
    # backend share one scorer's.
    with shared_backends():
        for name in sorted(metrics, key=metric_names().index):
            kwargs = {**own[name], **{k: v for k, v in shared.items() if k in options_read(name)}}
            if name == "wrdscore":
                kwargs["idf"] = idf
            result = get_metric(name, **kwargs).score(predictions, refs)
            table.update(result.columns())
            signatures[result.name] = str(result.signature)
            if result.corpus:
                corpus[result.name] = dict(result.corpus)
    if as_dataframe:
        pd = require("pandas", "siblings")
        frame = pd.DataFrame(table)
        frame.attrs["signatures"] = signatures
        if corpus:
            frame.attrs["corpus"] = corpus
        return frame
    table["signatures"] = signatures
    if corpus:
        table["corpus"] = corpus
    return table
