"""Adapters that put the metric where other libraries call it; each imports its library only when used.

* :mod:`~wrd_score.integrations.huggingface`: the ``Trainer``/``Seq2SeqTrainer`` ``compute_metrics`` hook,
  scoring a ``datasets.Dataset``, and the path of the ``evaluate`` module (``evaluate_module``);
* :mod:`~wrd_score.integrations.torchmetrics`: the torchmetrics ``WRDScore`` metric (torch.distributed,
  Lightning; needs the ``torchmetrics`` extra when imported);
* :mod:`~wrd_score.integrations.ray`: scoring Ray datasets with an actor pool (the ``ray`` extra).
"""
from __future__ import annotations

from typing import Any, Mapping

from ..options import Options

__all__ = ["check_scorer_batch_size"]


def check_scorer_batch_size(options: Mapping[str, Any]) -> None:
    """``batch_size`` among an integration's metric options is the scorer's option (the contextual encoder's windows
    per forward pass); the rows of a map batch are the integration's ``map_batch_size``.  Until 0.4.0 the
    integrations took ``batch_size`` as the rows of a map batch (and it never reached the encoder), so with
    another backend, where the scorer would refuse it as an option of the contextual one, the new name is said."""
    backend = options.get("backend", Options.backend)
    if "batch_size" in options and backend != "contextual":
        raise ValueError(f"batch_size={options['batch_size']!r} is an option of backend='contextual' (the encoder's "
                         f"windows per forward pass), not of backend={backend!r}; the rows of a map batch are "
                         "map_batch_size= (batch_size until 0.4.0)")
