"""Step 2 of the pipeline's static side: the embedding store, static (context-free) token vectors.

* :mod:`~wrd_score.embeddings.store`: :class:`StaticEmbedding` (the vocabulary, its vectors, unknown tokens
  composed from word pieces or fastText n-grams) and :func:`load_embedding`, its per-process cache;
* :mod:`~wrd_score.embeddings.formats`: the file formats (the safe ``.npz``, word2vec, GloVe, fastText, gensim);
* :mod:`~wrd_score.embeddings.checks`: the safety checks of those files and their limits (SECURITY.md);
* :mod:`~wrd_score.embeddings.vectors`: scale-safe norms and unit rows, and the compiled passes over float16 tables.

The static backend (:class:`wrd_score.backends.static.StaticBackend`) turns an embedding's rows into the
pipeline's vectors.  The names below are the package's public ones: ``from wrd_score.embeddings import X``.
"""
from __future__ import annotations

from .checks import (DF_ARRAYS, FLOAT16_TOLERANCE, MAX_DIM, MAX_NGRAM_N, MAX_NPZ_BYTES, MAX_NPZ_ENTRIES,
                     INT8_TOLERANCE, MAX_WORD_BYTES, check_df_arrays, check_storable)
from .formats import EMBEDDING_FORMATS, STORED_DTYPES, EmbeddingFormatName, StoredDtypeName, file_sha256
from .store import (DEFAULT_EMBEDDING, MAX_NGRAM_TOKEN_CHARS, MAX_OOV_CACHE_BYTES, NAMED_EMBEDDINGS, StaticEmbedding,
                    load_embedding, shipped_name, shipped_path)
from .vectors import dequantize_rows, quantize_rows, row_means, safe_norms, table_unit_rows, unit_rows

__all__ = [
    "StaticEmbedding",
    "DEFAULT_EMBEDDING",
    "NAMED_EMBEDDINGS",
    "EMBEDDING_FORMATS",
    "EmbeddingFormatName",
    "STORED_DTYPES",
    "StoredDtypeName",
    "load_embedding",
    "check_storable",
    "check_df_arrays",
    "file_sha256",
    "shipped_path",
    "shipped_name",
    "safe_norms",
    "unit_rows",
    "table_unit_rows",
    "row_means",
    "quantize_rows",
    "dequantize_rows",
    "DF_ARRAYS",
    "FLOAT16_TOLERANCE",
    "INT8_TOLERANCE",
    "MAX_DIM",
    "MAX_NGRAM_N",
    "MAX_NPZ_BYTES",
    "MAX_NPZ_ENTRIES",
    "MAX_WORD_BYTES",
    "MAX_OOV_CACHE_BYTES",
    "MAX_NGRAM_TOKEN_CHARS",
]
