"""Adapters that put the metric where other libraries call it; each imports its library only when used.

* :mod:`~wrd_score.integrations.huggingface`: the ``Trainer``/``Seq2SeqTrainer`` ``compute_metrics`` hook,
  scoring a ``datasets.Dataset``, and the path of the ``evaluate`` module (``evaluate_module``);
* :mod:`~wrd_score.integrations.torchmetrics`: the torchmetrics ``WRDScore`` metric (torch.distributed,
  Lightning; needs the ``torchmetrics`` extra when imported);
* :mod:`~wrd_score.integrations.ray`: scoring Ray datasets with an actor pool (the ``ray`` extra).
"""
