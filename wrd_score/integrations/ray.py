"""Ray Data: scoring a dataset too large for one machine, with a pool of actors.

:func:`map_scores` adds ``{prefix}_precision``, ``{prefix}_recall``, ``{prefix}_f1`` and
``{prefix}_best_reference`` columns to a ``ray.data.Dataset`` through ``map_batches`` on a fixed
pool of actors; each actor builds its scorer (loads the embedding or the encoder) once and then
scores batch after batch.  The result is lazy: write it (``write_parquet``) or iterate over it.
:func:`score` runs it and returns what one :meth:`WRDScorer.score` call over every row returns: the
per-example lists in dataset order, their means, the signature.

The driver never scores: it checks the arguments, fits IDF when the weights need it (once, on every
reference of the dataset, streamed: the table one call would fit; a table per actor or per batch
would change scores) and builds the signature.  With the contextual backend it loads the encoder
on its CPU for that; the actors encode.

``map_batch_size`` is the rows of a ``map_batches`` batch; ``batch_size``, as every other
:class:`~wrd_score.Options` field, goes to the scorers (the contextual encoder's windows per forward pass).
Scores do not depend on ``num_actors``, ``map_batch_size`` or how the dataset is split into blocks (static:
bit for bit; contextual: within :data:`~wrd_score.backends.contextual.SCORE_TOLERANCE`).
Give the dataset at least ``num_actors`` blocks (``read_parquet`` of several files, or
``ds.repartition(k)``): a block goes to one actor.
"""
# This module is wrd_score.integrations.ray; `import ray` below is the ray package (absolute imports only).
from __future__ import annotations

import re
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional

import numpy as np

from ..deps import require
from ..checks import check_int, check_number, reference_lists
from ..scorer import WRDScorer, result_dict
from . import check_scorer_batch_size

__all__ = ["map_scores", "score", "Scored"]

COLUMNS = ("precision", "recall", "f1", "best_reference")
_REFUSED = "wrd_score.integrations.ray: a batch of the dataset was refused:"
_REFUSAL_LINE = re.compile(r"^(TypeError|ValueError): (" + re.escape(_REFUSED) + r" .*)$", re.M)


class Scored(NamedTuple):
    """What :func:`map_scores` returns: the lazy dataset with score columns, and the run's signature."""

    dataset: Any
    signature: str


def _key(prefix: str, name: str) -> str:
    return f"{prefix}_{name}" if prefix else name


def _texts(column: np.ndarray) -> List[Any]:
    # Arrow strings arrive as an object array of str; anything else is left for the scorer to refuse by name.
    return column.tolist()


def _references(column: np.ndarray) -> List[Any]:
    # A list<string> column arrives as an object array of arrays: each becomes a list of str.
    return [value.tolist() if isinstance(value, np.ndarray) else value for value in column]


class _ScoreBatches:
    """One actor of the pool: builds its scorer once, then scores each batch it is given."""

    def __init__(self, options: Dict[str, Any], idf: Any, predictions: str, references: str, prefix: str) -> None:
        self.scorer = WRDScorer(**options)
        self.idf, self.predictions, self.references, self.prefix = idf, predictions, references, prefix

    def __call__(self, batch: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
        try:
            result = self.scorer.score(_texts(batch[self.predictions]), _references(batch[self.references]),
                                       idf=self.idf)
        except (TypeError, ValueError) as exc:
            # Ray hands the driver a traceback as text, not this exception: mark the line to find there.
            raise type(exc)(f"{_REFUSED} {exc} (the index counts rows of a batch of {len(batch[self.predictions])}, "
                            f"columns {self.predictions!r} and {self.references!r})") from None
        for name in COLUMNS:
            batch[_key(self.prefix, name)] = np.asarray(
                result[name], dtype=np.int64 if name == "best_reference" else np.float64)
        return batch


def _iter_references(ds: Any, column: str) -> Iterator[List[str]]:
    for batch in ds.select_columns([column]).iter_batches(batch_size=65536, batch_format="numpy"):
        yield from reference_lists(_references(batch[column]))


def map_scores(ds: Any, predictions: str = "prediction", references: str = "reference", *, num_actors: int = 2,
               map_batch_size: int = 1024, num_cpus: float = 1, num_gpus: float = 0, prefix: str = "wrdscore",
               idf: Optional[Mapping[str, float]] = None, **options: Any) -> Scored:
    """The dataset with score columns added by a pool of ``num_actors`` actors (lazy), and the signature.

    ``references`` holds a string or a list of strings per row.  Each actor asks Ray for
    ``num_cpus`` CPUs (and uses that many threads for transport unless ``num_threads`` is given)
    and ``num_gpus`` GPUs; each ``map_batches`` batch holds ``map_batch_size`` rows; ``options`` are
    :class:`~wrd_score.Options` fields (``batch_size``: the contextual encoder's).  ``idf`` is a
    ``{token: weight}`` dict or a fitted table; without it, IDF weights fit one table on every
    reference of ``ds`` first (a pass over that column).
    """
    ray = require("ray", "ray")
    if not isinstance(ds, ray.data.Dataset):
        raise TypeError(f"ds must be a ray.data.Dataset, got {type(ds).__name__}")
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a string, got {type(prefix).__name__}")
    check_int("num_actors", num_actors)
    check_int("map_batch_size", map_batch_size)
    check_scorer_batch_size(options)
    check_number("num_cpus", num_cpus, 0, None, exclusive=True)
    check_number("num_gpus", num_gpus, minimum=0)
    columns = ds.columns()
    if columns is None:  # Ray's schema of a dataset with no rows, e.g. ray.data.from_items([])
        raise ValueError(f"ds has no columns (a dataset without rows has none); it needs a {predictions!r} and a "
                         f"{references!r} column")
    for arg, column in (("predictions", predictions), ("references", references)):
        if column not in columns:
            raise ValueError(f"{arg}={column!r} is not a column of the dataset; columns: {columns}")
    taken = [_key(prefix, name) for name in COLUMNS if _key(prefix, name) in columns]
    if taken:
        raise ValueError(f"the dataset already has column(s) {taken}; pass another prefix=")
    if options.get("num_threads") is None:
        # As many transport threads as CPUs the actor holds; scores do not depend on it.
        options = {**options, "num_threads": max(1, int(num_cpus))}
    # The driver's scorer checks the options, fits IDF and signs the run; it scores nothing, so a
    # contextual encoder is loaded on its CPU whatever device the actors use.
    driver = WRDScorer(**({**options, "device": "cpu"} if options.get("backend") == "contextual" else options))
    table = driver.idf_table(_iter_references(ds, references), idf)
    scored = ds.map_batches(
        _ScoreBatches, batch_size=map_batch_size, batch_format="numpy", compute=ray.data.ActorPoolStrategy(size=num_actors),
        num_cpus=num_cpus, num_gpus=num_gpus,
        fn_constructor_kwargs={"options": options, "idf": table, "predictions": predictions,
                               "references": references, "prefix": prefix})
    return Scored(scored, str(driver.signature(table)))


def score(ds: Any, predictions: str = "prediction", references: str = "reference", *, num_actors: int = 2,
          map_batch_size: int = 1024, num_cpus: float = 1, num_gpus: float = 0,
          idf: Optional[Mapping[str, float]] = None, **options: Any) -> Dict[str, Any]:
    """:meth:`WRDScorer.score`'s dict for every row of ``ds``, scored by :func:`map_scores`'s actor pool.

    The per-example lists come back to the driver in dataset order (8 bytes per value: 32 MB for
    a million rows); the means are summed in that order, as one call sums them.
    """
    scored, signature = map_scores(ds, predictions, references, num_actors=num_actors, map_batch_size=map_batch_size,
                                   num_cpus=num_cpus, num_gpus=num_gpus, prefix="_wrdscore", idf=idf, **options)
    keys = [_key("_wrdscore", name) for name in COLUMNS]
    parts: Dict[str, List[np.ndarray]] = {key: [] for key in keys}
    options_ = scored.context.execution_options
    preserve = options_.preserve_order
    # Ray hands batches on as actors finish them; dataset order must be asked for.
    options_.preserve_order = True
    try:
        for batch in scored.select_columns(keys).iter_batches(batch_size=None, batch_format="numpy"):
            for key in keys:
                parts[key].append(batch[key])
    except Exception as exc:
        # An actor's refusal of bad input arrives as Ray's error with the worker's traceback in its
        # text; raise the refusal itself, as WRDScorer.score would have.
        found = _REFUSAL_LINE.findall(str(exc))
        if not found:
            raise
        kind, message = found[-1]
        raise (TypeError if kind == "TypeError" else ValueError)(message) from None
    finally:
        options_.preserve_order = preserve
    values = [np.concatenate(parts[key]).tolist() if parts[key] else [] for key in keys]
    return result_dict(*values, signature)
