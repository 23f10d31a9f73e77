"""The old names of moved modules: each warns once with a DeprecationWarning naming the new module and is
that module (wrd_score/deprecated.py)."""
import importlib
import subprocess
import sys

import pytest

from wrd_score.deprecated import MOVED


@pytest.mark.parametrize("old, new", sorted(MOVED.items()))
def test_an_old_module_name_warns_and_is_the_new_module(old, new, monkeypatch):
    if new == "wrd_score.integrations.torchmetrics":
        pytest.importorskip("torchmetrics")
    if new == "wrd_score.integrations.ray":
        pytest.importorskip("ray")
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated .*: import {new} instead") as caught:
        __import__(old)  # as an import statement does (importlib.import_module would be the warning's frame)
    module = sys.modules[old]
    assert module is importlib.import_module(new)
    assert caught[0].filename == __file__  # the warning points at the import, not at the alias
    package, _, name = old.rpartition(".")
    assert getattr(importlib.import_module(package), name) is module


def test_an_old_name_keeps_working_in_from_imports():
    code = ("import warnings; warnings.simplefilter('error', DeprecationWarning)\n"
            "try:\n    from wrd_score.metric import WRDScorer\nexcept DeprecationWarning as w: print('warned:', w)\n"
            "warnings.simplefilter('ignore')\nfrom wrd_score.metric import WRDScorer\nimport wrd_score.scorer\n"
            "print(WRDScorer is wrd_score.scorer.WRDScorer)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "warned: wrd_score.metric is deprecated" in out.stdout and out.stdout.strip().endswith("True")
