"""Where training code calls the metric: a ``Trainer`` ``compute_metrics`` hook and ``datasets`` scoring.

* :func:`transformers_hook` builds the ``compute_metrics`` function of a Hugging Face
  ``Trainer``/``Seq2SeqTrainer``: it decodes generated ids (or the argmax of logits), scores them
  against the labels and returns scalar floats usable as ``metric_for_best_model``.
* :func:`score_dataset` scores a prediction column against a reference column of a
  ``datasets.Dataset`` with ``Dataset.map(batched=True, num_proc=N)``; the result does not depend
  on ``num_proc`` or ``map_batch_size`` (contextual: within
  :data:`~wrd_score.backends.contextual.SCORE_TOLERANCE`).

Neither imports torch or transformers: the hook only calls the tokenizer it is given.
"""
from __future__ import annotations

import importlib.util
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from ..checks import check_int, check_references, read_references, refuse_meta
from ..scorer import WRDScorer
from ..weights import IDFTable, shared_idf
from . import check_scorer_batch_size

__all__ = ["transformers_hook", "WRDScoreComputeMetrics", "score_dataset", "evaluate_module", "check_given_together",
           "pack_references", "unpack_references", "PACKED"]

_MAX_TOKEN_ID = 2**32


def _check_prefix(prefix: Any) -> str:
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a string, got {type(prefix).__name__}")
    return prefix


def _key(prefix: str, name: str) -> str:
    return f"{prefix}_{name}" if prefix else name


class WRDScoreComputeMetrics:
    """The callable returned by :func:`transformers_hook` (see there).

    The scorer, and so the embedding, is built once when the hook is made; ``last_result``,
    ``last_predictions`` and ``last_references`` keep the latest evaluation's full result
    (per-example scores, signature) and decoded texts.
    """

    def __init__(self, tokenizer: Any, *, prefix: str = "wrdscore", idf: Optional[Mapping[str, float]] = None,
                 **metric_options: Any) -> None:
        if tokenizer is None or not hasattr(tokenizer, "batch_decode"):
            raise TypeError("tokenizer must be a Hugging Face tokenizer (with batch_decode), "
                            f"got {type(tokenizer).__name__}")
        self.tokenizer = tokenizer
        self.prefix = _check_prefix(prefix)
        self.scorer = WRDScorer(**metric_options)
        # Checked now, not at the first evaluation; without idf, each evaluation (one call) fits its own.
        self.idf = None if idf is None else self.scorer.idf_table((), idf)
        pad = getattr(tokenizer, "pad_token_id", None)
        if pad is None:
            pad = getattr(tokenizer, "eos_token_id", None)
        if pad is None:
            raise ValueError("the tokenizer has neither a pad_token_id nor an eos_token_id to put in place of -100")
        self.pad_token_id = int(pad)
        # The latest evaluation's decoded texts and full result (per-example scores, signature).
        self.last_result: Optional[Dict[str, Any]] = None
        self.last_predictions: List[str] = []
        self.last_references: List[str] = []

    @staticmethod
    def _array(value: Any, name: str) -> np.ndarray:
        if isinstance(value, tuple):
            # Model outputs come as tuples (logits, past key values, encoder states...): the first counts.
            if not value:
                raise ValueError(f"{name} is an empty tuple")
            value = value[0]
        if isinstance(value, list) and value and getattr(value[0], "ndim", 0) >= 2:
            # Trainer(eval_do_concat_batches=False) hands one array per batch: stacked, a batch of one became
            # "logits" and its ids were argmaxed.
            raise ValueError(f"{name} is a list of per-batch arrays (Trainer(eval_do_concat_batches=False)); "
                             "concatenate them along the batch axis, or leave eval_do_concat_batches on")
        if hasattr(value, "detach"):  # a torch tensor; numpy has no bfloat16
            value = refuse_meta(name, value).detach().cpu()
            value = (value.float() if value.is_floating_point() else value).numpy()
        try:
            return np.asarray(value)
        except ValueError:
            raise ValueError(f"{name} must be a rectangular array (pad it with -100)") from None

    def _ids(self, array: np.ndarray, name: str) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        """The token ids of ``array`` (ids, or logits argmaxed), and for logits where their argmax is NaN."""
        if array.ndim == 1:
            # One sequence; an empty array is no example at all (as (1, 0) it decoded to one empty pair, 1.0).
            array = array[None, :] if array.size else array.reshape(0, 0)
        nan = None
        if array.ndim == 3:  # logits (batch, length, vocab) -> ids
            if not np.issubdtype(array.dtype, np.floating):
                raise ValueError(f"{name} is a 3-D array of {array.dtype}: logits are floats; pass token ids as "
                                 "(batch, length), or logits (batch, length, vocab)")
            ids = array.argmax(axis=-1)
            # argmax picks a NaN wherever a row holds one: a diverged model's logits decoded to padding and scored 0.
            nan = np.isnan(np.take_along_axis(array, ids[..., None], axis=-1)[..., 0])
            array = ids
        if array.ndim != 2:
            raise ValueError(f"{name} must be token ids (batch, length) or logits (batch, length, vocab), "
                             f"got an array of shape {array.shape}")
        # Booleans and complex numbers cast to ids silently (True is 1); strings and objects failed inside numpy.
        if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
            raise ValueError(f"{name} must hold integer token ids (or float logits), got an array of {array.dtype}; "
                             "the hook decodes ids itself: pass the generated token ids or the logits")
        if not np.issubdtype(array.dtype, np.integer):
            if array.size and (not np.all(np.isfinite(array)) or not np.all(array == np.round(array))):
                raise ValueError(f"{name} must hold integer token ids")
        # Tokenizers hold ids as unsigned 32-bit integers (a bigger one is an OverflowError deep in
        # batch_decode); no vocabulary comes near that, so such an id is not a token id at all.  Checked before a
        # float is cast: 1e30 became int64's minimum, taken for padding below.
        if array.size and array.max() >= _MAX_TOKEN_ID:
            raise ValueError(f"{name} hold the id {int(array.max())}, beyond any tokenizer's range (token ids are "
                             f"below 2**32); pass generated token ids or logits")
        array = array.astype(np.int64, copy=False)
        # -100 is the ignore index of labels and the padding Trainer uses when it concatenates
        # generations of different lengths; no real id is negative, so every negative is padding.
        return np.where(array < 0, self.pad_token_id, array), nan

    def decode(self, ids: np.ndarray) -> List[str]:
        if len(ids) == 0:
            # transformers' batch_decode([]) returns [""]: one empty pair, scored 1.0, would make an
            # empty evaluation the best model so far.
            return []
        texts = self.tokenizer.batch_decode(ids.tolist(), skip_special_tokens=True)
        return [text.strip() for text in texts]

    def __call__(self, eval_prediction: Any) -> Dict[str, float]:
        if hasattr(eval_prediction, "predictions"):
            predictions, labels = eval_prediction.predictions, eval_prediction.label_ids
        else:
            try:
                predictions, labels = eval_prediction
            except (TypeError, ValueError):
                raise TypeError("compute_metrics expects an EvalPrediction or a (predictions, labels) pair, "
                                f"got {type(eval_prediction).__name__}") from None
        if labels is None:
            raise ValueError("the evaluation has no labels: give the eval dataset a 'labels' column")
        raw_predictions, raw_labels = self._array(predictions, "predictions"), self._array(labels, "label_ids")
        pred_ids, nan = self._ids(raw_predictions, "predictions")
        label_ids, _ = self._ids(raw_labels, "label_ids")
        if raw_predictions.ndim == 3 and pred_ids.shape == label_ids.shape:
            # Logits exist at every position, padding included; only positions with a label count.
            ignored = raw_labels.reshape(label_ids.shape) < 0
            pred_ids = np.where(ignored, self.pad_token_id, pred_ids)
            nan &= ~ignored
        if nan is not None and nan.any():
            example, position = (int(i) for i in np.argwhere(nan)[0])
            raise ValueError(f"predictions (logits) hold NaN at example {example}, position {position}: the model's "
                             "outputs are not numbers there (has training diverged?), so no token can be read")
        if len(pred_ids) != len(label_ids):
            raise ValueError(f"predictions and label_ids have different batch sizes: {len(pred_ids)} and {len(label_ids)}")
        self.last_predictions, self.last_references = self.decode(pred_ids), self.decode(label_ids)
        result = self.scorer.score(self.last_predictions, self.last_references, idf=self.idf)
        self.last_result = result
        return {
            _key(self.prefix, "precision"): float(result["mean_precision"]),
            _key(self.prefix, "recall"): float(result["mean_recall"]),
            _key(self.prefix, "f1"): float(result["mean_f1"]),
        }


def transformers_hook(tokenizer: Any, *, prefix: str = "wrdscore", idf: Optional[Mapping[str, float]] = None,
                      **metric_options: Any) -> WRDScoreComputeMetrics:
    """A ``compute_metrics`` function for ``transformers.Trainer`` / ``Seq2SeqTrainer``.

    Accepts an ``EvalPrediction`` (or a ``(predictions, labels)`` pair) whose predictions are
    generated ids (``predict_with_generate=True``) or logits, tuples included; replaces -100 by the
    pad id, decodes with special tokens skipped, scores with ``WRDScorer(**metric_options)`` (built
    once, here) and returns ``{prefix}_precision``, ``{prefix}_recall`` and ``{prefix}_f1`` as
    floats (``Trainer`` adds ``eval_``). ``idf`` is a ``{token: weight}`` dict for
    ``weights="idf"``/``"norm*idf"``; without it IDF is fit on each evaluation's references.

    >>> class Tok:  # any tokenizer with batch_decode and a pad id
    ...     pad_token_id = 0
    ...     words = ["<pad>", "get", "count", "size"]
    ...     def batch_decode(self, ids, skip_special_tokens=True):
    ...         return [" ".join(self.words[i] for i in row if i) for row in ids]
    >>> hook = transformers_hook(Tok())
    >>> hook(([[1, 2], [3, -100]], [[1, 2], [3, -100]]))
    {'wrdscore_precision': 1.0, 'wrdscore_recall': 1.0, 'wrdscore_f1': 1.0}
    """
    return WRDScoreComputeMetrics(tokenizer, prefix=prefix, idf=idf, **metric_options)


# ------------------------------------------------------------------------------------ datasets
def _score_batch(batch: Dict[str, List[Any]], predictions: str, references: str, options: Dict[str, Any],
                 idf: Optional[IDFTable], prefix: str, signature: str) -> Dict[str, List[Any]]:
    # Module-level so worker processes receive it by reference; the scorer comes from the
    # class-level backend cache (inherited through fork, or built once per worker otherwise).
    # `signature` is unused here but part of datasets' cache fingerprint: a changed embedding
    # file changes it, so a stale cached map is never reused.
    del signature
    out = WRDScorer(**options).score(batch[predictions], batch[references], idf=idf)
    return {_key(prefix, "precision"): out["precision"], _key(prefix, "recall"): out["recall"],
            _key(prefix, "f1"): out["f1"], _key(prefix, "best_reference"): out["best_reference"]}


def score_dataset(dataset: Any, predictions: str = "prediction", references: str = "reference", *,
                  num_proc: Optional[int] = None, map_batch_size: int = 1000, prefix: str = "wrdscore",
                  idf: Optional[Mapping[str, float]] = None, **metric_options: Any) -> Any:
    """Score a ``datasets.Dataset`` column pair in parallel; returns the dataset with score columns.

    Adds ``{prefix}_precision``, ``{prefix}_recall``, ``{prefix}_f1`` and
    ``{prefix}_best_reference`` through ``Dataset.map(batched=True, batch_size=map_batch_size,
    num_proc=num_proc)``. The ``references`` column holds a string or a list of strings per row.
    ``metric_options`` are :class:`~wrd_score.Options` fields, ``batch_size`` (the contextual encoder's) included.
    With IDF weights and no ``idf``, one table is fit on all references first (as a single ``score`` call would),
    so the scores are the same for every ``num_proc`` and ``map_batch_size`` (contextual: within
    ``SCORE_TOLERANCE``).  The signature of the run is ``WRDScorer(**metric_options).signature()``.

    >>> import datasets
    >>> ds = datasets.Dataset.from_dict({"prediction": ["getCount", "size"], "reference": ["get_count", "size"]})
    >>> list(score_dataset(ds)["wrdscore_f1"])
    [1.0, 1.0]
    """
    import datasets

    if not isinstance(dataset, datasets.Dataset):
        raise TypeError(f"dataset must be a datasets.Dataset (for a DatasetDict, score each split), "
                        f"got {type(dataset).__name__}")
    for arg, column in (("predictions", predictions), ("references", references)):
        if column not in dataset.column_names:
            raise ValueError(f"{arg}={column!r} is not a column of the dataset; columns: {dataset.column_names}")
    check_int("num_proc", num_proc, allow_none=True)
    check_int("map_batch_size", map_batch_size)
    check_scorer_batch_size(metric_options)
    prefix = _check_prefix(prefix)
    scorer = WRDScorer(**metric_options)  # validates options and loads the embedding before forking
    # Exactly the table one score() call over the whole column would fit, shared by every batch and process.
    table = shared_idf(scorer.options.weights, idf, lambda: check_references(dataset[references], len(dataset)),
                       scorer.backend.tokenize)
    return dataset.map(
        _score_batch,
        batched=True,
        batch_size=map_batch_size,
        num_proc=num_proc,
        fn_kwargs={"predictions": predictions, "references": references, "options": metric_options,
                   "idf": table, "prefix": prefix, "signature": scorer.signature(table)},
        desc="WRDScore",
    )


def evaluate_module() -> str:
    """Path of the evaluate module ``wrdscore.py`` installed with the package, for ``evaluate.load``.

    ``evaluate.load`` takes a local path (or a Hub name); this is the path in any environment
    where ``wrd-score`` is installed, so no checkout is needed:
    ``evaluate.load(wrd_score.evaluate_module())``.

    >>> evaluate_module().endswith("wrdscore.py")
    True
    """
    spec = importlib.util.find_spec("wrdscore")
    if spec is None or not spec.origin or not os.path.isfile(spec.origin):
        raise FileNotFoundError("the evaluate module wrdscore.py is not installed; reinstall wrd-score")
    return spec.origin


#: How the evaluate module stores an example's references in one Arrow string column (its cheapest feature:
#: ``Value("string")``): one reference as itself, several (or one that starts with this character) as the
#: character followed by their JSON list. One schema for every call shape and every process of a distributed run:
#: evaluate fixes the schema at the first ``add`` and process 0 reads every process's file with its own.
PACKED = "\x00"


def check_given_together(**inputs: Any) -> None:
    """Refuse one of the evaluate module's two inputs given without the other (``None`` is "not given"): evaluate
    took ``compute(predictions=...)`` alone into its own ``add_batch`` and failed there on "object of type 'NoneType'
    has no len()", and ``add(prediction=...)`` stored the example with no reference.

    >>> check_given_together(predictions=["getCount"], references=None)
    Traceback (most recent call last):
    ...
    ValueError: predictions given without references: give both (one reference or a list of them per prediction)
    """
    (first, a), (second, b) = inputs.items()
    if (a is None) != (b is None):
        given, missing = (first, second) if b is None else (second, first)
        raise ValueError(f"{given} given without {missing}: give both (one reference or a list of them per "
                         "prediction)")


def pack_references(references: Any) -> List[str]:
    """``references`` (read by the library's one rule, :func:`~wrd_score.checks.read_references`) as one string
    per example; :func:`unpack_references` gives them back.

    >>> pack_references(["size", ["get", "count"]])
    ['size', '\\x00["get", "count"]']
    >>> unpack_references(pack_references(["size", ["get", "count"], "\\x00x"]))
    ['size', ['get', 'count'], ['\\x00x']]
    """
    flat, groups = read_references(references)
    if groups is None:
        if PACKED not in "".join(flat):  # the common case: one C-level pass
            return flat
        groups = [[ref] for ref in flat]
    return [group[0] if len(group) == 1 and not group[0].startswith(PACKED)
            else PACKED + json.dumps(group, ensure_ascii=False) for group in groups]


def unpack_references(column: List[str]) -> List[Any]:
    """The references :func:`pack_references` stored: a string, or a list of strings, per example."""
    if PACKED not in "".join(column):
        return column
    return [json.loads(ref[1:]) if ref.startswith(PACKED) else ref for ref in column]
