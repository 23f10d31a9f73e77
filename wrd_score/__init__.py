"""WRDScore: Word Rotator's Distance Score for text generation (reference implementation)."""
__version__ = "0.7.0"

from .scorer import Options, WRDScorer, score  # noqa: E402
from .tokenize import split_identifier, split_words  # noqa: E402
from .integrations.huggingface import evaluate_module, score_dataset, transformers_hook  # noqa: E402  (light: no torch/datasets import)
from .plot import plot_alignment  # noqa: E402  (matplotlib is imported when a figure is drawn)

__all__ = ["__version__", "Options", "WRDScorer", "score", "split_identifier", "split_words",
           "transformers_hook", "score_dataset", "evaluate_module", "plot_alignment"]
