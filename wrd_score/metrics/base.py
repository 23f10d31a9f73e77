"""One interface for every metric: :class:`Metric` scores lists of texts into a :class:`MetricResult`.

A metric is configured once (its options are checked in ``__init__``) and then scores any number of
``(predictions, references)`` calls.  References follow the library's one reading
(:func:`wrd_score.scorer.reference_lists`): a string or a list of strings per prediction; with
several, the reference with the best score counts (:func:`wrd_score.scoring.best_of`).
Metrics are found by name in a registry (:func:`get_metric`), which replaces dispatch by name
chains in the validation harness, the comparison table and the app.

Two rules hold for every registered metric because they live here, in :meth:`Metric.score`: the
inputs are checked once, and a text of more than :data:`MAX_METRIC_TOKENS` tokens is refused before
any metric allocates its per-pair tables (:func:`check_text_sizes`).
"""
from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Collection, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..checks import check_choice, check_needs
from ..options import option_info
from ..scoring import best_of
from ..tokenize import split_identifier
from .backend_idf import BACKEND_OPTIONS, inputs
from ..signature import Signature

__all__ = ["MetricResult", "Metric", "register", "get_metric", "metric_names", "metric_options", "References",
           "MAX_METRIC_TOKENS", "check_text_sizes", "column_name", "options_read", "check_options_read"]

#: Most tokens one text may bring to any registered metric (words, identifier parts and punctuation,
#: counted by :func:`count_tokens`).  The per-pair tables of the siblings grow with the product of
#: the two lengths: at 4,096 tokens a side a cosine matrix is 128 MiB, ROUGE-L's pure-Python LCS
#: table 16.8 million cells (about 10 s), MoverScore's transport problem WRDScore's largest.  A
#: 25,000-token line (still under the 1 MB line cap of the files) ended in MemoryError or ran for
#: minutes.  Stated in SECURITY.md.
MAX_METRIC_TOKENS = 4096
_PUNCTUATION = re.compile(r"[^\w\s]|_")
References = Union[Sequence[str], Sequence[Sequence[str]]]


@dataclass(frozen=True)
class MetricResult:
    """Per-example scores of one metric on one call.

    ``score`` is the metric's headline per-example score (F1 for metrics with precision and recall,
    else its one score); ``precision``/``recall``/``f1`` are ``None`` for metrics that do not define
    them.  ``extra`` holds further per-example score columns (each type of a multi-type ROUGE).
    ``corpus`` holds corpus-level scores where the metric defines them apart from a mean of its
    per-example scores (subtoken-f1's micro averages, chrF's corpus score), named by what they are.
    """

    name: str
    score: List[float]
    best_reference: List[int]
    signature: Signature
    precision: Optional[List[float]] = None
    recall: Optional[List[float]] = None
    f1: Optional[List[float]] = None
    extra: Dict[str, List[float]] = field(default_factory=dict)
    #: Per-example values that are not scores (MoverScore's transport cost): kept out of tables.
    details: Dict[str, List[float]] = field(default_factory=dict)
    #: Corpus-level scores and counts (``micro_f1``, ``chrf``, ``accuracy``, ...): not per example.
    corpus: Dict[str, float] = field(default_factory=dict)

    def columns(self, prefix: Optional[str] = None) -> Dict[str, List[float]]:
        """Named per-example columns for a table: ``NAME_precision/_recall/_f1`` or ``NAME``, plus extras."""
        prefix = self.name if prefix is None else prefix
        if self.f1 is not None:
            out = {f"{prefix}_precision": self.precision, f"{prefix}_recall": self.recall, f"{prefix}_f1": self.f1}
        elif self.extra:  # several score columns (a multi-type ROUGE): they are the table's columns
            out = {}
        else:
            out = {prefix: self.score}
        out.update(self.extra)
        return out

    def field(self, name: str) -> List[float]:
        """One per-example field: ``score``, ``precision``, ``recall``, ``f1`` or an extra column."""
        if name in ("precision", "recall", "f1") and getattr(self, name) is None:
            raise ValueError(f"{self.name} has one score; {name!r} does not apply")
        if name in ("score", "precision", "recall", "f1"):
            return getattr(self, name)
        if name in self.extra:
            return self.extra[name]
        if name in self.details:
            return self.details[name]
        raise ValueError(f"{self.name} has no field {name!r}; it has score"
                         + (", precision, recall, f1" if self.f1 is not None else "")
                         + "".join(f", {k}" for k in {**self.extra, **self.details}))


def count_tokens(text: str) -> int:
    """How many tokens ``text`` brings at most to any metric's tokenizer: its identifier parts
    (:func:`~wrd_score.tokenize.split_identifier`: words, camelCase and letter/digit parts) plus every
    punctuation character (BLEU and the contextual encoder keep those as tokens).

    >>> count_tokens("getCount(x) + 2"), count_tokens("")
    (7, 0)
    """
    return len(split_identifier(text)) + len(_PUNCTUATION.findall(text))


def check_text_sizes(predictions: List[str], refs: List[List[str]], given: Any = None) -> None:
    """Refuse a text of more than :data:`MAX_METRIC_TOKENS` tokens, naming it (``predictions[i]``,
    ``references[i]`` or ``references[i][j]`` as ``given``, the references as passed, holds it).

    A text of at most that many characters passes without counting: no tokenizer makes more tokens
    than characters.
    """
    def check(text: str, where: str) -> None:
        if len(text) > MAX_METRIC_TOKENS:
            n = count_tokens(text)
            if n > MAX_METRIC_TOKENS:
                raise ValueError(f"{where} has {n:,} tokens (words, identifier parts and punctuation); the limit is "
                                 f"{MAX_METRIC_TOKENS:,} per text for every metric (see SECURITY.md)")

    for text, where in _texts_where(predictions, refs, given):
        check(text, where)


def _texts_where(predictions: List[str], refs: List[List[str]], given: Any):
    """Every text with the name a message gives it (``predictions[i]``, ``references[i]``, ``references[i][j]``)."""
    for i, text in enumerate(predictions):
        yield text, f"predictions[{i}]"
    for i, group in enumerate(refs):
        single = given is not None and isinstance(given[i], str)
        for j, text in enumerate(group):
            yield text, f"references[{i}]" if single else f"references[{i}][{j}]"


def check_text_chars(predictions: List[str], refs: List[List[str]], given: Any, limit: int, metric: str) -> None:
    """Refuse a text of more than ``limit`` characters, for a metric whose cost grows with characters
    rather than tokens (chrF's character n-grams: one 4,096-token text may hold a million)."""
    for text, where in _texts_where(predictions, refs, given):
        if len(text) > limit:
            raise ValueError(f"{where} has {len(text):,} characters; {metric} scores texts of up to {limit:,} "
                             "characters (see SECURITY.md)")


class Metric(ABC):
    """A configured metric. Subclasses set :attr:`name` and implement :meth:`_score`."""

    name: ClassVar[str] = ""
    #: Whether the metric runs on a WRDScore backend (and so takes the backend's options).
    uses_backend: ClassVar[bool] = False
    #: Most characters one text may have, for metrics whose cost grows with characters (None: no cap
    #: beyond :data:`MAX_METRIC_TOKENS`).
    max_text_chars: ClassVar[Optional[int]] = None

    def score(self, predictions: Sequence[str], references: References) -> MetricResult:
        """Score each prediction against its reference(s).

        The inputs are checked (a string or a list of strings per prediction) and every text is held
        to :data:`MAX_METRIC_TOKENS` here, for every metric, before the metric's own :meth:`_score`.
        """
        checked, refs = inputs(predictions, references)
        check_text_sizes(checked, refs, references)
        if self.max_text_chars is not None:
            check_text_chars(checked, refs, references, self.max_text_chars, self.name)
        return self._score(checked, refs)

    @abstractmethod
    def _score(self, predictions: List[str], references: List[List[str]]) -> MetricResult:
        """Score checked inputs: one string per prediction, a list of strings per example."""

    def __call__(self, predictions: Sequence[str], references: References) -> MetricResult:
        return self.score(predictions, references)


_REGISTRY: Dict[str, Tuple[Callable[..., Metric], Dict[str, Any], str]] = {}
#: Names that stand for several registered metrics at once (``rouge``: ROUGE-1, -2 and -L).
_BUNDLES: set = set()
#: Metrics that are another paper's matching rule run on this library's vectors (BERTScore, MoverScore).
_RULES: set = set()


def register(name: str, factory: Callable[..., Metric], help: str, *, bundle: bool = False, rule: bool = False,
             **fixed: Any) -> None:
    """Make ``get_metric(name, **options)`` build ``factory(**fixed, **options)``.

    ``bundle=True`` marks a name whose metrics are also registered one by one; lists of "every
    metric" (``wrdscore validate --all-metrics``) leave it out so that no column appears twice.
    ``rule=True`` marks a literature metric whose matching rule runs on a WRDScore backend's vectors:
    its columns are named by :func:`column_name`.
    """
    known = _REGISTRY.get(name)
    if known is not None and (getattr(known[0], "__qualname__", None), getattr(known[0], "__module__", None)) != (
            getattr(factory, "__qualname__", None), getattr(factory, "__module__", None)):
        # The same class again is its module imported a second time (pytest's importlib mode): replaced.
        raise ValueError(f"metric {name!r} is registered twice")
    _REGISTRY[name] = (factory, dict(fixed), help)
    if bundle:
        _BUNDLES.add(name)
    if rule:
        _RULES.add(name)


def column_name(name: str, backend: str) -> str:
    """The one name of a metric's columns, rows, keys and titles (compare, validate, the app).

    BERTScore and MoverScore here are their papers' matching rules on the vectors of a WRDScore
    backend, not the reference packages with their own models; their name says so and names the
    vectors (``static`` or ``contextual``), so that no table reads as the published metric.

    >>> column_name("bertscore", "static"), column_name("moverscore", "contextual"), column_name("rouge1", "static")
    ('bertscore-rule[static]', 'moverscore-rule[contextual]', 'rouge1')
    """
    return f"{name}-rule[{backend}]" if name in _RULES else name


def metric_names(bundles: bool = True) -> Tuple[str, ...]:
    """Every registered metric name, in registration order (``bundles=False``: without bundles).

    >>> "rouge" in metric_names(), "rouge" in metric_names(bundles=False)
    (True, False)
    """
    return tuple(name for name in _REGISTRY if bundles or name not in _BUNDLES)


def metric_help(name: str) -> str:
    return _REGISTRY[name][2]


def metric_factory(name: str) -> Callable[..., Metric]:
    check_choice("metric", name, _REGISTRY)
    return _REGISTRY[name][0]


def metric_options(name: str) -> Tuple[str, ...]:
    """The keyword options ``get_metric(name, ...)`` accepts: the factory's own parameters less the
    fixed ones, plus every backend option for a metric that runs on a WRDScore backend.

    >>> metric_options("rouge1")
    ('split_identifiers', 'use_stemmer')
    """
    import inspect

    metric_factory(name)  # an unknown name: the registry's one message
    factory, fixed, _ = _REGISTRY[name]
    params = inspect.signature(factory).parameters.values()
    named = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in fixed]
    if getattr(factory, "uses_backend", False) and any(p.kind == p.VAR_KEYWORD for p in params):
        named += sorted(BACKEND_OPTIONS - set(named))
    return tuple(named)


_OPTION_NAMES = frozenset(info.name for info in option_info())


def options_read(name: str) -> FrozenSet[str]:
    """The options that metric ``name`` takes from those a command or :func:`~wrd_score.metrics.compare` shares
    among its metrics: WRDScore every :class:`~wrd_score.Options` field, a metric on
    a WRDScore backend (BERTScore, MoverScore, WMS, SMS, S+WMS) those that pick the backend
    (:data:`~wrd_score.metrics.backend_idf.BACKEND_OPTIONS`), any other none.

    >>> sorted(options_read("wrdscore") - options_read("bertscore"))
    ['num_threads', 'rescale_with_baseline', 'variant', 'weights']
    >>> options_read("rouge1")
    frozenset()
    """
    factory = metric_factory(name)
    if name == "wrdscore":
        return _OPTION_NAMES
    return BACKEND_OPTIONS if getattr(factory, "uses_backend", False) else frozenset()


def check_options_read(given: Iterable[str], metrics: Sequence[Tuple[str, Collection[str]]], where: str = "metrics",
                       name: Callable[[str], str] = str) -> None:
    """Refuse a shared option (``given``: the names set, each one of :func:`options_read`'s) that none of
    ``metrics`` reads: it would be ignored (``wrdscore compare --metrics rouge1 --variant paper`` printed ROUGE-1,
    exit 0, as if ``--variant`` had not been given).  ``metrics`` holds each metric's name and the options it sets
    itself (a ``wrdscore validate`` spec's own keys win over the command's); ``where`` and ``name`` spell the
    argument that lists the metrics and an option in the message (:func:`~wrd_score.checks.check_needs`).

    >>> check_options_read(["embedding", "variant"], [("bertscore", ()), ("rouge1", ())])
    Traceback (most recent call last):
    ...
    ValueError: variant given without wrdscore in metrics: it would be ignored
    """
    needs: Dict[str, str] = {}
    for option in given:
        kinds = [kind for kind, _ in metrics if option in options_read(kind)]
        if any(option not in own for kind, own in metrics if kind in kinds):
            continue
        readers = [m for m in metric_names(bundles=False) if option in options_read(m)]
        listed = f"{', '.join(readers[:-1])} or {readers[-1]}" if len(readers) > 1 else readers[0]
        needs[option] = f"{listed}{f' (without its own {option}=)' if kinds else ''} in {where}"
    check_needs(needs, needs, dict.fromkeys(needs.values(), False), name)


def get_metric(name: str, **options: Any) -> Metric:
    """The metric registered under ``name``, configured with ``options``.

    >>> get_metric("rouge1").score(["the cat sat"], ["the cat sat down"]).score
    [0.8571428571428571]
    """
    check_choice("metric", name, _REGISTRY)
    factory, fixed, _ = _REGISTRY[name]
    clash = set(fixed) & set(options)
    if clash:
        raise TypeError(f"metric {name!r} fixes option(s) {sorted(clash)}")
    return factory(**fixed, **options)


def pick_best(values: np.ndarray, refs: List[List[str]]) -> Tuple[np.ndarray, List[int]]:
    return best_of(values, [len(group) for group in refs])
