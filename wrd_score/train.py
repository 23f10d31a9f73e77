"""Train a static token embedding from a corpus (``wrdscore train``) or convert one (``wrdscore convert``).

Three methods:

``word2vec``
    gensim's Word2Vec. The paper found the smallest context window (2) captures synonymy between
    identifier subtokens best.
``fasttext``
    gensim's FastText: word vectors plus hashed character n-gram vectors, so tokens never seen in
    training (abbreviations such as ``cnt``, ``idx``, ``cfg``) still get a vector.  The n-gram
    table has ``bucket`` rows; it dominates the file size (``bucket * dim * 2`` bytes as float16).
``svd``
    the paper's co-occurrence model: ``C[i, j]`` counts how often tokens ``i`` and ``j`` occur in
    the same document (one method name, or one corpus line), ``C = U S V`` by a truncated sparse
    SVD (scipy), and the embedding is ``E = U S / 2`` (50 dimensions by default, as in the paper).

A corpus is one or more text files (``.gz`` allowed), one document per line, read either as
whitespace-separated ``tokens`` or as ``identifiers`` (each line split with
:func:`wrd_score.tokenize.split_identifier`, e.g. raw camelCase method names).

Determinism: with ``workers=1`` (the default) the same corpus, parameters and ``seed`` give the same
vectors in every run and every process (gensim seeds its initial vectors from ``seed``; its hash of
vocabulary words is not used for initialisation).  ``workers=2`` trains on two threads: faster, but
the order in which the threads apply their updates depends on scheduling, so the vectors differ
slightly from run to run.  ``svd`` is deterministic for every ``workers`` (ARPACK gets a seeded
start vector; singular vector signs are fixed).
"""
from __future__ import annotations

import math
import os
from collections import Counter
from dataclasses import dataclass, fields, replace
from typing import Any, Dict, Iterable, Iterator, List, Literal, Optional, Sequence, Union

import numpy as np

from .checks import check_choice, check_instance, check_int, check_names, check_needs
from .embeddings import (MAX_DIM, MAX_NGRAM_N, MAX_NPZ_BYTES, STORED_DTYPES, EmbeddingFormatName, StaticEmbedding,
                         StoredDtypeName, check_storable, file_sha256)
from .files import check_output, open_input
from .options import option_field
from .tokenize import split_identifier

__all__ = ["METHODS", "CORPUS_FORMATS", "TrainOptions", "Corpus", "train", "convert"]

#: The training methods (``method=``): name -> what it trains (the module docstring has more).
METHODS = {
    "word2vec": "gensim's Word2Vec",
    "fasttext": "gensim's FastText: word vectors plus hashed character n-gram vectors (unseen tokens get one)",
    "svd": "the paper's co-occurrence model: a truncated SVD of the token co-occurrence counts",
}
#: How a corpus line becomes tokens (``corpus_format=``).
CORPUS_FORMATS = {
    "tokens": "whitespace-separated",
    "identifiers": "split each line with split_identifier",
}
#: The co-occurrence counts ``svd`` factorises (``svd_weighting=``).
SVD_WEIGHTINGS = {
    "count": "the paper's raw counts",
    "log": "log(1 + count)",
    "ppmi": "positive pointwise mutual information",
}
#: gensim's training architectures (``architecture=``).
ARCHITECTURES = {"cbow": "", "skipgram": ""}
#: Values of ``method=``, ``corpus_format=``, ``svd_weighting=``, ``architecture=``, ``dtype=`` (the keys above).
MethodName = Literal["word2vec", "fasttext", "svd"]
CorpusFormatName = Literal["tokens", "identifiers"]
SvdWeightingName = Literal["count", "log", "ppmi"]
ArchitectureName = Literal["cbow", "skipgram"]

PathList = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]


class Corpus:
    """A restartable stream of tokenised documents (gensim iterates it once per epoch).

    Args:
        paths: one path or a list of paths; ``.gz`` files are decompressed on the fly.
        corpus_format: ``tokens`` (split on whitespace) or ``identifiers`` (``split_identifier``).
        fraction: keep this share of the lines, spread evenly over the files (line ``i`` is kept
            when ``floor((i + 1) * fraction) > floor(i * fraction)``): a deterministic subsample
            for quick screening runs.

    >>> import tempfile
    >>> tmp = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    >>> _ = tmp.write("getCount\\nsetHTTPHeader\\n\\n"); tmp.close()
    >>> list(Corpus(tmp.name, "identifiers"))
    [['get', 'count'], ['set', 'http', 'header']]
    >>> list(Corpus(tmp.name, "tokens", fraction=0.5))  # every second line (the blank third is skipped)
    [['setHTTPHeader']]
    >>> os.unlink(tmp.name)
    """

    def __init__(self, paths: PathList, corpus_format: CorpusFormatName = "tokens", fraction: float = 1.0) -> None:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        if not isinstance(paths, Sequence) or not paths:
            raise TypeError("corpus must be a path or a non-empty list of paths")
        self.paths = [os.fspath(p) for p in paths]
        for path in self.paths:
            if not os.path.isfile(path):
                raise FileNotFoundError(f"corpus file {path!r} does not exist")
        check_choice("corpus_format", corpus_format, CORPUS_FORMATS)
        if not isinstance(fraction, (int, float)) or not 0.0 < float(fraction) <= 1.0:
            raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
        self.corpus_format = corpus_format
        self.fraction = float(fraction)

    def _lines(self) -> Iterator[str]:
        for path in self.paths:
            try:
                with open_input(path, text=True, errors="replace") as handle:
                    yield from handle
            except (OSError, EOFError) as exc:  # a truncated or non-gzip .gz surfaces only here
                raise ValueError(f"could not read corpus file {path!r}: {exc}") from exc

    def __iter__(self) -> Iterator[List[str]]:
        split = split_identifier if self.corpus_format == "identifiers" else str.split
        f = self.fraction
        for i, line in enumerate(self._lines()):
            if f < 1.0 and math.floor((i + 1) * f) <= math.floor(i * f):
                continue
            tokens = split(line)
            if tokens:
                yield tokens

    def describe(self) -> List[Dict[str, str]]:
        """Path, sha256 and format of every file (recorded in the embedding's ``meta``)."""
        return [{"path": os.path.abspath(p), "sha256": file_sha256(p), "format": self.corpus_format}
                for p in self.paths]


class _Progress:
    """A tqdm bar over epochs, fed by a gensim callback (gensim trains inside C code)."""

    def __init__(self, total: int, enabled: bool, desc: str) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=total, desc=desc, unit="epoch", disable=not enabled)

    def callback(self):
        from gensim.models.callbacks import CallbackAny2Vec

        bar = self.bar

        class _Tick(CallbackAny2Vec):
            def on_epoch_end(self, model):  # noqa: D401 - gensim hook
                bar.update(1)

        return _Tick()

    def close(self) -> None:
        self.bar.close()


def _scan(corpus: Iterable[List[str]], progress: bool) -> Iterable[List[str]]:
    from tqdm.auto import tqdm

    return tqdm(corpus, desc="reading corpus", unit=" lines", disable=not progress, mininterval=1.0)


#: Limits on the training parameters, checked before a corpus is read or anything allocated (gensim
#: allocates from them at once, runs them through C ints, or starts that many threads). See SECURITY.md.
#: ``dim``: MAX_DIM (4,096), the loader's limit. ``window``: gensim cuts sentences into batches of 10,000
#: words (MAX_WORDS_IN_BATCH), so no window is wider. The others are far above any published setting.
MAX_WINDOW = 10_000
MAX_WORKERS = 64
MAX_EPOCHS = 10_000
MAX_NEGATIVE = 1_000
MAX_SEED = 2**32 - 1  # numpy's RandomState seed


def check_embedding_output(output: Union[str, os.PathLike], inputs: Sequence[Any] = ()) -> str:
    """The ``.npz`` path that ``train``, ``convert`` and ``distill`` write, checked before any work
    (a name, a folder that exists and is writable, or a FIFO/device, and none of ``inputs``, the
    ``(what, path)`` files the command reads; :func:`wrd_score.files.check_output`)."""
    output = os.fspath(output)
    if not output.lower().endswith(".npz"):
        raise ValueError(f"output must be a .npz file, got {output!r}")
    check_output(output, inputs)
    return output


@dataclass(frozen=True)
class TrainOptions:
    """The settings of :func:`train`, described once: ``wrdscore train``'s flags are generated from them
    (:func:`wrd_score.options.option_info` with ``of=TrainOptions``), as the metric's flags are from
    :class:`~wrd_score.Options`.  :meth:`validate` checks them all before a corpus is read."""

    method: MethodName = option_field("fasttext", "training method", values=METHODS)
    corpus_format: CorpusFormatName = option_field("tokens", "how a corpus line becomes tokens", values=CORPUS_FORMATS)
    dim: Optional[int] = option_field(None, "vector size (None: 100; svd: 50, the paper's)")
    window: Optional[int] = option_field(None, "context window (None: word2vec 2, the paper's best; fastText 5, "
                                               "best on IdBench); svd counts co-occurrence in the whole line")
    epochs: int = option_field(5, "training epochs (word2vec, fastText)")
    min_count: int = option_field(5, "tokens rarer than this get no vector (fastText still covers them by n-grams)")
    architecture: ArchitectureName = option_field("cbow", "word2vec/fastText architecture", values=ARCHITECTURES)
    negative: int = option_field(5, "negative samples (word2vec, fastText)")
    sample: float = option_field(1e-3, "down-sampling threshold of frequent tokens (word2vec, fastText)")
    min_n: int = option_field(2, "fastText: shortest character n-gram (2: short abbreviations such as ln)")
    max_n: int = option_field(5, "fastText: longest character n-gram")
    bucket: int = option_field(50_000, "fastText: n-gram hash rows (they dominate the file size)")
    svd_weighting: SvdWeightingName = option_field("count", "svd: what the co-occurrence matrix holds", values=SVD_WEIGHTINGS)
    fraction: float = option_field(1.0, "train on this evenly spread share of the lines (screening runs)")
    seed: int = option_field(0, "random seed (with workers=1 the same corpus, settings and seed give the same vectors)")
    workers: int = option_field(1, "training threads; >1 is faster but not reproducible run to run")
    dtype: StoredDtypeName = option_field("float16", "stored precision", values=STORED_DTYPES)
    name: Optional[str] = option_field(None, "name recorded in signatures (None: the output file's stem, else "
                                             "METHOD-custom)")

    def validate(self) -> "TrainOptions":
        """The settings with ``dim`` and ``window`` resolved for the method, every limit checked; a
        ``ValueError`` names the setting (``corpus_format`` and ``fraction`` are checked by :class:`Corpus`)."""
        check_choice("method", self.method, METHODS)
        check_choice("architecture", self.architecture, ARCHITECTURES)
        check_choice("svd_weighting", self.svd_weighting, SVD_WEIGHTINGS)
        check_choice("dtype", self.dtype, STORED_DTYPES)
        method = self.method
        dim = check_int("dim", (50 if method == "svd" else 100) if self.dim is None else self.dim, 1, MAX_DIM)
        window = 5 if self.window is None and method == "fasttext" else 2 if self.window is None else self.window
        checked = {"dim": dim, "window": check_int("window", window, 1, MAX_WINDOW),
                   "epochs": check_int("epochs", self.epochs, 1, MAX_EPOCHS),
                   "min_count": check_int("min_count", self.min_count),
                   "negative": check_int("negative", self.negative, 1, MAX_NEGATIVE),  # gensim: 0 trains nothing
                   "workers": check_int("workers", self.workers, 1, MAX_WORKERS),
                   "seed": check_int("seed", self.seed, 0, MAX_SEED)}
        if method == "fasttext":
            checked["min_n"] = check_int("min_n", self.min_n, 1, MAX_NGRAM_N)
            checked["max_n"] = check_int("max_n", self.max_n, checked["min_n"], MAX_NGRAM_N)
            # The n-gram table must fit the file the loader accepts (and gensim allocates it in float32 at once).
            most = MAX_NPZ_BYTES // (dim * np.dtype(self.dtype).itemsize)
            checked["bucket"] = check_int("bucket", self.bucket, 1, most)
        if not isinstance(self.sample, (int, float)) or not 0.0 <= float(self.sample) < 1.0:
            raise ValueError(f"sample must be in [0, 1), got {self.sample!r}")
        # A setting the method does not use, set away from its default, would be ignored: refused instead.
        changed = [f.name for f in fields(self) if f.name in _METHOD_NEEDS and getattr(self, f.name) != f.default]
        check_needs(changed, _METHOD_NEEDS, {kind: method in methods for kind, methods in _METHOD_KINDS.items()})
        return replace(self, **checked)


#: Which methods use a setting (the others are used by all three).
_METHOD_KINDS = {"method='word2vec' or 'fasttext'": ("word2vec", "fasttext"), "method='fasttext'": ("fasttext",),
                 "method='svd'": ("svd",)}
_METHOD_NEEDS = {**{name: "method='word2vec' or 'fasttext'"
                    for name in ("window", "epochs", "architecture", "negative", "sample", "workers")},
                 **{name: "method='fasttext'" for name in ("min_n", "max_n", "bucket")}, "svd_weighting": "method='svd'"}


def train(corpus: PathList, output: Optional[Union[str, os.PathLike]] = None, *,
          options: Optional[TrainOptions] = None, progress: bool = False, command: Optional[str] = None,
          **settings: Any) -> StaticEmbedding:
    """Train a static embedding and (if ``output`` is given) save it as a safe ``.npz``.

    Args:
        corpus: text file(s), one document per line (``.gz`` allowed).
        output: where to write the ``.npz`` (parent folders must exist); ``None`` keeps it in memory.
        options: the training settings (:class:`TrainOptions`: method, corpus_format, dim, window,
            epochs, min_count, architecture, negative, sample, min_n, max_n, bucket, svd_weighting,
            fraction, seed, workers, dtype, name; their meanings and defaults are there and in
            ``wrdscore train --help``).
        **settings: the same settings as keyword arguments (``train(corpus, out, method="svd", dim=50)``);
            they override those of ``options``.
        progress: show tqdm progress bars.
        command: the command line to record (the CLI passes its own).

    Returns:
        the trained :class:`StaticEmbedding` (vectors as stored, i.e. already rounded to ``dtype``).
    """
    check_instance("options", options, TrainOptions, "pass keywords instead: train(corpus, output, dim=50)")
    check_names(settings, [f.name for f in fields(TrainOptions)], what="train() setting")
    opts = replace(options if options is not None else TrainOptions(), **settings).validate()
    method, dim, window, epochs, min_count = opts.method, opts.dim, opts.window, opts.epochs, opts.min_count
    architecture, negative, sample, workers = opts.architecture, opts.negative, opts.sample, opts.workers
    min_n, max_n, bucket, seed, dtype, name = opts.min_n, opts.max_n, opts.bucket, opts.seed, opts.dtype, opts.name
    if output is not None:
        paths = [corpus] if isinstance(corpus, (str, os.PathLike)) else list(corpus)
        output = check_embedding_output(output, [("corpus", path) for path in paths])
    docs = Corpus(corpus, opts.corpus_format, opts.fraction)

    params: Dict[str, Any] = {"dim": dim, "min_count": min_count, "seed": seed, "fraction": docs.fraction,
                              "dtype": dtype}
    if method == "svd":
        params["svd_weighting"] = opts.svd_weighting
        words, vectors = _train_svd(docs, dim, min_count, opts.svd_weighting, seed, progress)
        ngrams = None
    else:
        params.update({"window": window, "epochs": epochs, "architecture": architecture, "negative": negative,
                       "sample": sample, "workers": workers})
        if method == "fasttext":
            params.update({"min_n": min_n, "max_n": max_n, "bucket": bucket})
        kv = _train_gensim(docs, method, dim, window, epochs, min_count, architecture, negative, sample,
                           min_n, max_n, bucket, seed, workers, progress)
        words, vectors = list(kv.index_to_key), np.asarray(kv.vectors)
        ngrams = np.asarray(kv.vectors_ngrams) if method == "fasttext" else None
    if not words:
        raise ValueError(f"no token in the corpus occurs at least min_count={min_count} times; "
                         "lower min_count or give a larger corpus")

    import gensim
    import scipy

    if name is None:
        name = os.path.splitext(os.path.basename(output))[0] if output else f"{method}-custom"
    meta = {
        "name": name,
        "method": method,
        "corpus": docs.describe(),
        "parameters": params,
        "vocab_size": len(words),
        "dim": dim,
        "ngram_buckets": int(ngrams.shape[0]) if ngrams is not None else 0,
        "command": command or f"wrd_score.train.train(corpus={docs.paths!r}, method={method!r}, ...)",
        "software": {"gensim": gensim.__version__, "scipy": scipy.__version__, "numpy": np.__version__},
    }
    # Raw-count SVD vectors scale with corpus frequencies and can exceed float16's 65504.
    for matrix in (vectors, ngrams):
        check_storable(matrix, dtype, f"the {method} vectors")
    # Round through the stored dtype so the returned object scores exactly like the saved file.
    embedding = StaticEmbedding(words, vectors.astype(dtype),
                                ngram_vectors=ngrams.astype(dtype) if ngrams is not None else None,
                                min_n=min_n if ngrams is not None else 0, max_n=max_n if ngrams is not None else 0,
                                name=name, meta=meta)
    if output is not None:
        embedding.checksum = embedding.save(output, dtype=dtype)
    return embedding


def _train_gensim(docs: Corpus, method: str, dim: int, window: int, epochs: int, min_count: int,
                  architecture: str, negative: int, sample: float, min_n: int, max_n: int, bucket: int,
                  seed: int, workers: int, progress: bool):
    from gensim.models import FastText, Word2Vec

    common = dict(vector_size=dim, window=window, min_count=min_count, sg=int(architecture == "skipgram"),
                  negative=negative, sample=sample, seed=seed, workers=workers, epochs=epochs)
    if method == "fasttext":
        model = FastText(min_n=min_n, max_n=max_n, bucket=bucket, **common)
    else:
        model = Word2Vec(**common)
    import tempfile

    # gensim's corpus_file mode reads a plain token file in C without the GIL: several times faster
    # than feeding it Python lists, and just as deterministic with one worker.  The corpus is
    # tokenised (and subsampled) once into a temporary file that is removed afterwards.
    with tempfile.TemporaryDirectory(prefix="wrdscore-train-") as tmp:
        flat = os.path.join(tmp, "corpus.txt")
        with open(flat, "w", encoding="utf8") as handle:
            for tokens in _scan(docs, progress):
                handle.write(" ".join(tokens))
                handle.write("\n")
        model.build_vocab(corpus_file=flat)
        if not model.wv.index_to_key:
            return model.wv  # empty vocabulary: train() reports it
        bar = _Progress(epochs, progress, f"training {method}")
        try:
            model.train(corpus_file=flat, total_words=model.corpus_total_words, total_examples=model.corpus_count,
                        epochs=epochs, callbacks=[bar.callback()])
        finally:
            bar.close()
    return model.wv


def _train_svd(docs: Corpus, dim: int, min_count: int, weighting: str, seed: int,
               progress: bool):
    import scipy.sparse as sp
    from scipy.sparse.linalg import svds

    counts: Counter = Counter()
    for tokens in _scan(docs, progress):
        counts.update(tokens)
    # Most frequent first, ties by string: the row order is deterministic and readable.
    vocab = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    if not vocab:
        return [], np.zeros((0, dim))
    index = {w: i for i, w in enumerate(vocab)}
    rows: List[np.ndarray] = []
    cols: List[np.ndarray] = []
    n_docs = 0
    for tokens in docs:
        ids = [index[t] for t in tokens if t in index]
        if len(ids) > 1:  # a lone token co-occurs with nothing
            rows.append(np.full(len(ids), n_docs, dtype=np.int32))
            cols.append(np.asarray(ids, dtype=np.int32))
            n_docs += 1
    v = len(vocab)
    if n_docs == 0:
        raise ValueError("svd needs documents with at least two in-vocabulary tokens; the corpus has none")
    r = np.concatenate(rows)
    c = np.concatenate(cols)
    # Document-term counts X; X^T X counts, for every token pair, the position pairs of one document
    # holding them.  Its diagonal counts a token with itself (x^2), but only pairs of *distinct*
    # positions are co-occurrences: x(x-1) = x^2 - x.
    x = sp.csr_matrix((np.ones(len(r), dtype=np.float64), (r, c)), shape=(n_docs, v))
    cooc = (x.T @ x).tocsr()
    cooc.setdiag(cooc.diagonal() - np.asarray(x.sum(axis=0)).ravel())
    cooc.eliminate_zeros()
    if weighting == "log":
        cooc.data = np.log1p(cooc.data)
    elif weighting == "ppmi":
        total = cooc.sum()
        marg = np.asarray(cooc.sum(axis=1)).ravel()
        coo = cooc.tocoo()
        pmi = np.log(coo.data * total / (marg[coo.row] * marg[coo.col]))
        keep = pmi > 0
        cooc = sp.csr_matrix((pmi[keep], (coo.row[keep], coo.col[keep])), shape=(v, v))
    k = min(dim, v - 1)
    if k < 1:
        raise ValueError(f"svd needs at least 2 vocabulary tokens, got {v}")
    v0 = np.random.default_rng(seed).standard_normal(v)
    u, s, _ = svds(cooc, k=k, v0=v0, solver="arpack")
    order = np.argsort(-s, kind="stable")
    u, s = u[:, order], s[order]
    # A singular vector's sign is arbitrary (it can flip with the BLAS build); fix it so that each
    # column's largest-magnitude entry is positive, which makes the file reproducible.
    signs = np.sign(u[np.abs(u).argmax(axis=0), np.arange(u.shape[1])])
    signs[signs == 0] = 1.0
    embedding = u * signs * s / 2.0
    if k < dim:  # tiny vocabularies: pad to the requested dimension (padding changes no cosine)
        embedding = np.hstack([embedding, np.zeros((v, dim - k))])
    return vocab, embedding


def convert(source: Union[str, os.PathLike], output: Union[str, os.PathLike], *, format: EmbeddingFormatName = "auto",
            allow_pickle: bool = False, dtype: StoredDtypeName = "float16", command: Optional[str] = None) -> StaticEmbedding:
    """Convert any loadable embedding (word2vec/GloVe text, word2vec binary, fastText ``.bin``,
    gensim pickles with ``allow_pickle=True``) to the safe ``.npz`` format."""
    output = check_embedding_output(output, [("source", source)])
    check_choice("dtype", dtype, STORED_DTYPES)
    emb = StaticEmbedding.load(source, format=format, allow_pickle=allow_pickle)
    for matrix in (emb.vectors, emb.ngram_vectors):
        check_storable(matrix, dtype, f"the vectors of {os.fspath(source)!r}")
    meta = dict(emb.meta)
    meta.setdefault("name", os.path.splitext(os.path.basename(output))[0])
    meta["converted_from"] = {"path": os.path.abspath(os.fspath(source)), "sha256": emb.checksum,
                              "format": format}
    meta["vocab_size"] = len(emb)
    meta["dim"] = emb.dim
    meta["command"] = command or f"wrd_score.train.convert({os.fspath(source)!r}, {output!r})"
    out = StaticEmbedding(emb.words, emb.vectors, ngram_vectors=emb.ngram_vectors, min_n=emb.min_n,
                          max_n=emb.max_n, name=meta["name"], meta=meta)
    out.checksum = out.save(output, dtype=dtype)
    return out


# ---------------------------------------------------------------------- CLI
