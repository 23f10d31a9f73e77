"""How the contextual backend's texts become hidden states: long texts over windows, windows in batches.

Texts longer than the model's window are encoded over overlapping windows; each token takes its
vector from the window in which it lies farthest from an edge (most context on both sides), so that
no text is truncated and no token sits at a window's edge when another window gives it context.
Each distinct text is encoded once per call and windows are batched in order of length (only
windows of one length share a batch: see ``WindowedStates._compute_ahead``).  A call's states are
kept for the next call on the same texts, and a stream's next chunk can be announced so that its
texts fill this call's last batches.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["TextStates", "WindowedStates"]

# Keep a call's hidden states for the next call on the same texts (compare() scores several
# metrics on one encoding) only while they are small: 2**26 floats = 256 MiB.
_MEMO_FLOATS = 1 << 26


@dataclass
class TextStates:
    """One text's hidden states, as the model saw it (word pieces, specials included)."""

    ids: np.ndarray  # token ids, specials included (prefix, content, suffix)
    special: np.ndarray  # bool per id
    offsets: np.ndarray  # (n, 2) char offsets; (0, 0) for specials
    vectors: np.ndarray  # (n, d) float32


class WindowedStates:
    """The texts -> :class:`TextStates` half of :class:`~wrd_score.backends.contextual.ContextualBackend`
    (its base class): windows, batches, the states kept from call to call.

    It reads the backend's ``loaded`` (the model, :mod:`wrd_score.backends.encoder`), ``layers``, ``runtime``,
    ``window`` and ``stride`` (content tokens), ``batch_size`` and ``progress``; :meth:`_init_states` sets what
    it keeps.
    """

    def _init_states(self) -> None:
        self._memo_key: Optional[Tuple[str, ...]] = None
        self._memo: Optional[List[TextStates]] = None
        self._memo_lock = threading.Lock()
        # Chunked scoring (wrd_score.stream): the texts of the next chunk (announced by expect()) and
        # the states computed ahead for it (see _states).
        self._upcoming: Tuple[str, ...] = ()
        self._carry: Dict[str, TextStates] = {}

    def expect(self, texts: Sequence[Any]) -> None:
        """Announce the texts of the next call (the next chunk of a stream; wrd_score.stream does).

        The next call then fills its last, partial batch of each length with those of the announced
        texts that have that length, and keeps their states, and those of its own texts that come
        again, for the call after: chunks are then encoded in batches as full as one call's, and no
        text shared by two neighbouring chunks is encoded twice.  Scores move by less than
        :data:`~wrd_score.backends.contextual.SCORE_TOLERANCE` (a text's states depend on its batch only
        in the last float32 bits); what is kept is bounded by a batch per length plus the repeats, within
        the memo's budget.
        """
        upcoming = tuple(dict.fromkeys(t for t in texts if isinstance(t, str)))
        with self._memo_lock:
            self._upcoming = upcoming

    def _states(self, texts: List[str]) -> List[TextStates]:
        key = tuple(texts)
        with self._memo_lock:
            if self._memo_key == key and self._memo is not None:
                return self._memo
            upcoming, self._upcoming = self._upcoming, ()
            carried, self._carry = self._carry, {}
        distinct = list(dict.fromkeys(texts))
        todo = [t for t in distinct if t not in carried]
        if upcoming:
            computed, ahead = self._compute_ahead(todo, [t for t in upcoming if t not in carried])
        else:
            computed, ahead = self._compute_states(todo), {}
        by_text = {**{t: carried[t] for t in distinct if t in carried}, **dict(zip(todo, computed))}
        states = [by_text[t] for t in texts]
        floats = sum(s.vectors.size for s in by_text.values())
        keep = {**ahead, **{t: by_text[t] for t in upcoming if t in by_text}}
        with self._memo_lock:
            if keep and sum(s.vectors.size for s in keep.values()) <= _MEMO_FLOATS:
                self._carry = keep
            if floats <= _MEMO_FLOATS:
                self._memo_key, self._memo = key, states
            else:
                self._memo_key, self._memo = None, None
        return states

    def _windows(self, n: int) -> List[Tuple[int, int]]:
        if n <= self.window:
            return [(0, n)]
        starts = list(range(0, n - self.window, self.stride)) + [n - self.window]
        return [(s, s + self.window) for s in dict.fromkeys(starts)]

    def _compute_states(self, texts: List[str]) -> List[TextStates]:
        return self._compute_ahead(texts, ())[0]

    def _compute_ahead(self, texts: List[str], spare: Sequence[str]) -> Tuple[List[TextStates], Dict[str, TextStates]]:
        """States of ``texts``, and of those ``spare`` texts (one window each) that fill the last,
        partial batch of their length: ``(states of texts, {spare text: states})``."""
        loaded = self.loaded
        tok = loaded.tokenizer
        mine = set(texts)
        spare = [t for t in spare if t not in mine]
        everything = list(texts) + spare
        enc = tok(everything, add_special_tokens=False, return_offsets_mapping=True, return_attention_mask=False,
                  return_token_type_ids=False, verbose=False) if everything else {"input_ids": [], "offset_mapping": []}
        jobs: List[Tuple[int, int, int, List[int]]] = []  # (text, window start, window end, model input)
        for t, ids in enumerate(enc["input_ids"][:len(texts)]):
            for start, end in self._windows(len(ids)):
                jobs.append((t, start, end, loaded.prefix + list(ids[start:end]) + loaded.suffix))
        if spare:
            extra = len(loaded.prefix) + len(loaded.suffix)
            free: Dict[int, int] = {}  # model input length -> room left in its last batch
            for job in jobs:
                free[len(job[3])] = (free.get(len(job[3]), 0) - 1) % self.batch_size
            for t in range(len(texts), len(everything)):
                ids = enc["input_ids"][t]
                if len(ids) <= self.window and free.get(len(ids) + extra, 0) > 0:
                    free[len(ids) + extra] -= 1
                    jobs.append((t, 0, len(ids), loaded.prefix + list(ids) + loaded.suffix))
        order = sorted(range(len(jobs)), key=lambda j: len(jobs[j][3]))
        outputs: List[Optional[np.ndarray]] = [None] * len(jobs)
        # Only windows of one length share a batch.  Padding changes a sequence's hidden states in
        # the last float bits (attention then sums over more, masked, positions), which made a
        # text's scores depend on the other texts in the call (batch size, order, add_batch).
        # Unpadded, a sequence's states still depend, in the last float32 bits, on the BLAS kernel
        # its batch's shape and the thread count select: scores move by less than SCORE_TOLERANCE.
        from itertools import groupby

        batches = []
        for _, same_length in groupby(order, key=lambda j: len(jobs[j][3])):
            same_length = list(same_length)
            batches += [same_length[i:i + self.batch_size] for i in range(0, len(same_length), self.batch_size)]
        with self._progress(batches, sum(len(job[3]) for job in jobs)) as bar:
            for batch in batches:
                hidden = loaded.hidden([jobs[j][3] for j in batch], self.layers, self.runtime)
                for row, j in enumerate(batch):
                    outputs[j] = hidden[row, :len(jobs[j][3])]
                bar.update(len(batch) * len(jobs[batch[0]][3]))
        n_pre, n_suf = len(loaded.prefix), len(loaded.suffix)
        per_text: List[List[int]] = [[] for _ in everything]
        for j, job in enumerate(jobs):
            per_text[job[0]].append(j)
        states = []
        ahead: Dict[str, TextStates] = {}
        for t, ids in enumerate(enc["input_ids"]):
            windows = per_text[t]
            if not windows:
                continue  # a spare text that filled no batch
            n = len(ids)
            all_ids = np.asarray(loaded.prefix + list(ids) + loaded.suffix, dtype=np.int64)
            if len(windows) == 1:
                vectors = outputs[windows[0]]  # already [prefix, text, suffix]
            else:
                content = np.zeros((n, outputs[windows[0]].shape[1]), dtype=np.float32)
                # Each token from the window where it has the most context on its nearer side.
                best = np.full(n, -1)
                best_margin = np.full(n, -1)
                for j in windows:
                    _, start, end, _ = jobs[j]
                    pos = np.arange(start, end)
                    margin = np.minimum(pos - start, end - 1 - pos)
                    better = margin > best_margin[start:end]
                    best_margin[start:end][better] = margin[better]
                    best[start:end][better] = j
                for j in windows:
                    _, start, end, _ = jobs[j]
                    mine = np.flatnonzero(best[start:end] == j)
                    content[start + mine] = outputs[j][n_pre + mine]
                first, last = outputs[windows[0]], outputs[windows[-1]]
                vectors = np.concatenate([first[:n_pre], content, last[len(last) - n_suf:]])
            special = np.zeros(len(all_ids), dtype=bool)
            special[:n_pre] = True
            special[len(all_ids) - n_suf:] = True
            offsets = np.zeros((len(all_ids), 2), dtype=np.int64)
            if n:
                offsets[n_pre:n_pre + n] = np.asarray(enc["offset_mapping"][t], dtype=np.int64).reshape(n, 2)
            if t < len(texts):
                states.append(TextStates(all_ids, special, offsets, vectors))
            else:
                ahead[everything[t]] = TextStates(all_ids, special, offsets, vectors)
        return states, ahead

    def _progress(self, batches: List[Any], tokens: int):
        """The "encode" bar.  It counts model tokens, not texts: a batch costs about its token
        count, and batches run shortest texts first, so a bar in texts would promise an end
        several times too early."""
        from tqdm.auto import tqdm

        off = self.progress is False or (self.progress is None and len(batches) < 10)
        # disable=None: tqdm shows the bar only on a terminal unless progress=True forces it.
        # leave=None: a bar under another one (the command line's pairs) is wiped when done.
        return tqdm(total=tokens, desc="encode", unit="tok", unit_scale=True, smoothing=0, leave=None,
                    disable=True if off else (None if self.progress is None else False))
