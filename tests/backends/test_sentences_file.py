"""The shipped sentences file (`wrd-minilm-sentences`, issue 31): it loads safely, scores without torch, and is
what its card says."""
import os
import subprocess
import sys
import textwrap

import numpy as np

from wrd_score import WRDScorer
from wrd_score.embeddings import StaticEmbedding, file_sha256, shipped_path

PATH = shipped_path("wrd-minilm-sentences.npz")


def test_the_file_loads_by_name_with_its_tokenizer_and_provenance():
    emb = StaticEmbedding.load("wrd-minilm-sentences")
    assert emb.name == "wrd-minilm-sentences" and emb.checksum == file_sha256(PATH)
    assert emb.dim == 256 and emb.vectors.dtype == np.float16 and emb.has_pieces and emb.df_table is None
    assert np.isfinite(emb.vectors.astype(np.float32)).all()
    assert emb.meta["command"].startswith("wrdscore distill") and "--fit" in emb.meta["command"]
    fit = emb.meta["fit"]
    assert fit["loss"] == "both" and fit["sentences"]["held-out"] > 0
    assert {"stsb_dev.tsv", "stsb_test.tsv", "sick_train_trial.tsv"} <= set(fit["held_out"])
    assert os.path.getsize(PATH) <= 20 * 1024 * 1024  # the wheel's embeddings stay under 110 MB together


def test_unknown_words_compose_from_word_pieces():
    scorer = WRDScorer(preset="sentences")
    enc = scorer.backend.encode(["the zorblified quuxes", "unbelievably"])
    assert not enc.exact_only.any()  # every token has a vector, known or composed


def test_it_scores_sentences_without_torch():
    code = textwrap.dedent("""
        import sys
        for name in ("torch", "transformers", "model2vec"):
            sys.modules[name] = None  # any import of them now raises ImportError
        from wrd_score import WRDScorer
        r = WRDScorer(preset="sentences").score(["A man plays a guitar."], ["Someone is playing the guitar."])
        assert 0.5 < r["f1"][0] <= 1, r
        print("ok", r["signature"])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok") and "emb:wrd-minilm-sentences@sha256:" in done.stdout


def test_paraphrases_score_above_unrelated_sentences():
    got = WRDScorer(preset="sentences").score(
        ["A woman is slicing an onion.", "A woman is slicing an onion."],
        ["Someone is cutting an onion.", "The stock market fell sharply on Monday."])["f1"]
    assert got[0] > got[1] + 0.2
