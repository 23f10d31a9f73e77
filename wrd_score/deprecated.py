"""The old names of moved modules, kept for one release (CHANGELOG.md): importing one warns with a
``DeprecationWarning`` and gives the module under its new name, the same module object (so that patching either
name patches both).  Each old name is a file of two lines that calls :func:`alias`.
"""
from __future__ import annotations

import importlib
import sys
import warnings

__all__ = ["MOVED", "alias"]

#: old module -> new module.
MOVED = {
    "wrd_score.metric": "wrd_score.scorer",
    "wrd_score.hooks": "wrd_score.integrations.huggingface",
    "wrd_score.torchmetrics": "wrd_score.integrations.torchmetrics",
    "wrd_score.ray": "wrd_score.integrations.ray",
    "wrd_score.validate": "wrd_score.validation",
}


def alias(old: str) -> None:
    """Make the module being imported as ``old`` the module :data:`MOVED` names, with a warning that points at
    the import statement."""
    new = MOVED[old]
    # stacklevel 3: this function, the old module's body, then (importlib's frames skipped) the importer.
    warnings.warn(f"{old} is deprecated and goes in the next release: import {new} instead",
                  DeprecationWarning, stacklevel=3)
    sys.modules[old] = importlib.import_module(new)
