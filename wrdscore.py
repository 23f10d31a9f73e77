"""WRDScore as a Hugging Face `evaluate` metric: a thin adapter over the `wrd_score` library."""
import inspect

import datasets
import evaluate
import wrd_score
import wrd_score.checks
import wrd_score.integrations.huggingface
import wrd_score.evaluate_cache
import wrd_score.options

# A copy that `wrdscore install-evaluate-module` placed for evaluate.load("wrdscore") warns once it no longer
# matches the installed package (an upgrade since); evaluate's own copies carry no marker and pass.
wrd_score.evaluate_cache.warn_if_stale(__file__)

_CITATION = """\
@article{mussabayev2024wrdscore,
  title  = {WRDScore: New Metric for Evaluation of Natural Language Generation Models},
  author = {Mussabayev, Ravil},
  year   = {2024},
  eprint = {2405.19220},
  archivePrefix = {arXiv}
}
"""

# What the defaults are is generated (wrd_score.options.describe_defaults), so that it moves with them.
_DESCRIPTION = """\
WRDScore compares a prediction with a reference by exact optimal transport between their tokens
(Word Rotator's Distance, cost 1 - cosine, token masses from the embedding) and reads precision,
recall and F1 off the optimal flow. Identical texts score 1.
""" + wrd_score.options.describe_defaults() + "\n"

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated texts (method names, summaries, sentences).
    references (list of str, or list of list of str): one reference, or several, per prediction;
        with several, the reference with the best F1 is used and its index is returned. Strings and
        lists may be mixed in one call: a string is one reference (read as the library reads it).
        Lone surrogates ("\\ud800") in any text become U+FFFD, as in the library.
    idf (dict): token -> weight for weights "idf"/"norm*idf"; default: fit on the references.
        (weights "corpus-idf"/"norm*corpus-idf" read the table shipped in the embedding file instead.)
""" + wrd_score.options.docstring_args() + """
Returns:
    precision, recall, f1 (list of float), best_reference (list of int),
    mean_precision, mean_recall, mean_f1 (float), signature (str).
Examples:
    >>> wrdscore = evaluate.load("wrdscore.py")
    >>> results = wrdscore.compute(predictions=["getCount", "size"], references=["get_count", "size"])
    >>> results["f1"]
    [1.0, 1.0]
    >>> results = wrdscore.compute(predictions=["get count"], references=[["size", "getCount"]])
    >>> results["best_reference"]
    [1]
    >>> wrdscore.compute(predictions=["getCount"], references=["get_count"], preset="sentences")["f1"]
    [1.0]
    >>> wrdscore.compute(predictions=["a"], references=["b"], preset="code")
    Traceback (most recent call last):
    ...
    ValueError: preset must be one of ['identifiers', 'sentences'], got 'code'
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class WRDScore(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # One schema, the cheapest evaluate accepts: a string per example. An example's references are
            # stored as one string (several: packed as JSON, wrd_score.integrations.huggingface.pack_references),
            # read by the library's rule in add_batch. With a schema per shape evaluate would pick one at the first
            # add and cast the rest to it (a string after a list became a list of its characters), and processes
            # of a distributed run could pick different ones.
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Value("string"),
                }
            ),
            codebase_urls=["https://github.com/ravmus/wrdscore"],
            reference_urls=["https://arxiv.org/abs/2405.19220"],
        )

    def __init__(self, config_name=None, **kwargs):
        """What ``evaluate.load(path, config_name, **init_kwargs)`` passes. evaluate's base class keeps keywords it
        does not know without a word, so ``evaluate.load(path, variant="paper")`` scored with the default variant:
        options go to :meth:`compute`, and anything else evaluate does not take is refused."""
        if config_name not in (None, "default"):
            raise ValueError(f"config_name {config_name!r}: WRDScore has one configuration; give options to compute(), "
                             "e.g. compute(..., preset='sentences')")
        own = set(inspect.signature(evaluate.EvaluationModule.__init__).parameters) - {"self", "kwargs"}
        options = sorted(set(kwargs) & {info.name for info in wrd_score.options.option_info()} | {"idf"} & set(kwargs))
        if options:
            raise TypeError(f"{', '.join(options)} given to evaluate.load(): WRDScore's options are compute() "
                            f"keywords, e.g. compute(predictions=..., references=..., {options[0]}=...)")
        wrd_score.checks.check_names([name for name in kwargs if name not in own], sorted(own),
                                     what="evaluate.load() keyword")
        super().__init__(config_name=config_name, **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score everything added (and ``predictions``/``references`` if given); keywords are the options.

        A keyword that is neither an input nor an option is named at once (evaluate would take it for
        an option and fail later on the missing input with "NoneType has no len()").
        """
        known = ["predictions", "references", "idf"] + [info.name for info in wrd_score.options.option_info()]
        wrd_score.checks.check_names(kwargs, known, what="compute() keyword")
        return super().compute(predictions=predictions, references=references, **kwargs)

    # compute(), add_batch() and add() all pass through these two, in every process of a distributed
    # run, so what is stored (and what _compute reads back) is the library's reading of the input.
    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions and references (references: strings, lists of strings, or both)."""
        wrd_score.integrations.huggingface.check_given_together(predictions=predictions, references=references)
        if predictions is not None:
            predictions = wrd_score.checks.check_texts("predictions", predictions)
        if references is not None:
            references = wrd_score.integrations.huggingface.pack_references(references)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction and its reference (a string or a list of strings)."""
        wrd_score.integrations.huggingface.check_given_together(prediction=prediction, reference=reference)
        if prediction is not None:
            prediction = wrd_score.checks.check_texts("prediction", [prediction])[0]
        if reference is not None:
            reference = wrd_score.integrations.huggingface.pack_references([reference])[0]
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(self, predictions, references, idf=None, **options):
        # Options (only those given: evaluate passes no others) are checked and read by the library, None included:
        # it is "the preset's value" where the library reads it so, and refused where the option cannot be None.
        references = wrd_score.integrations.huggingface.unpack_references(references)
        return wrd_score.WRDScorer(**options).score(predictions, references, idf=idf)

    # The signature tools and help() show: one keyword per library option, generated from its metadata.
    _compute.__signature__ = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in ("self", "predictions", "references")]
        + [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None)
           for name in ["idf"] + [info.name for info in wrd_score.options.option_info()]])
