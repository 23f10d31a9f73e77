"""Deprecated name of :mod:`wrd_score.integrations.huggingface` (moved in issue 33; see :mod:`wrd_score.deprecated`)."""
from .deprecated import alias

alias(__name__)
