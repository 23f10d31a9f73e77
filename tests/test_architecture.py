"""The architecture page matches the code, and the house rules of the redesign hold."""
import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "wrd_score"
PAGE = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")


def _modules():
    return sorted(p.relative_to(REPO).as_posix() for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _listed():
    listed = set()
    for path in re.findall(r"`(wrd_score/[\w/]+(?:\.py)?)`", PAGE):
        listed.add(path)
    for folder, names in re.findall(r"`(wrd_score/\w+/)` \(([^)]*)\)", PAGE):
        for name in re.findall(r"`([\w.]+\.py)`", names):
            listed.add(folder + name)
    return listed


def test_every_module_is_on_the_architecture_page_and_every_listed_module_exists():
    listed = _listed()
    modules = set(_modules())
    missing = sorted(m for m in modules if m not in listed and not any(
        m.startswith(folder) for folder in listed if folder.endswith("/") and folder + "__init__.py" in listed)
        and not m.endswith("__init__.py") and not (m.startswith("wrd_score/cli/") and m != "wrd_score/cli/common.py"))
    assert not missing, f"modules missing from docs/architecture.md: {missing}"
    ghosts = sorted(p for p in listed if not (REPO / p).exists())
    assert not ghosts, f"docs/architecture.md lists modules that do not exist: {ghosts}"


@pytest.mark.parametrize("rule, module", [
    ("empty_pair_score", "wrd_score/scoring.py"), ("cosine_matrix", "wrd_score/scoring.py"),
    ("f1_score", "wrd_score/scoring.py"), ("best_of", "wrd_score/scoring.py"),
    ("uses_idf", "wrd_score/weights.py"), ("reference_lists", "wrd_score/metric.py"),
    ("read_table", "wrd_score/files.py"), ("open_input", "wrd_score/files.py"),
    ("normalise_with_offsets", "wrd_score/tokenize.py"), ("score_chunked", "wrd_score/stream.py"),
    ("get_metric", "wrd_score/metrics/base.py"), ("require", "wrd_score/deps.py"),
    ("_forward_all", "wrd_score/backends/contextual.py"), ("load_embedding", "wrd_score/embeddings.py"),
    ("unit_rows", "wrd_score/embeddings.py"), ("shared_idf", "wrd_score/weights.py"),
])
def test_each_rule_is_defined_once_where_the_page_says(rule, module):
    assert f"`{rule}`" in PAGE
    defined = [m for m in _modules() if any(
        isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == rule
        for node in ast.walk(ast.parse((REPO / m).read_text(encoding="utf-8"))))]
    assert defined == [module]


@pytest.mark.parametrize("message", ["was given but weights=", "needs idf=: each"])
def test_the_idf_once_rule_has_its_messages_in_one_place(message):
    # Each entry point (score, chunks, the CLI, torchmetrics, hooks, Ray) asks weights.shared_idf; none
    # words the rule again.
    holders = [m for m in _modules() + ["app.py", "wrdscore.py"] if any(message in text for text in _code_strings(m))]
    assert holders == ["wrd_score/weights.py"]


def _code_strings(module):
    """The string literals of a module's code (f-string parts included), docstrings left out."""
    tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs]


def test_no_argparse_outside_the_cli():
    offenders = []
    for module in _modules():
        if module.startswith("wrd_score/cli/"):
            continue
        tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] == "argparse" for n in names):
                offenders.append(module)
    assert not offenders


def test_library_modules_import_each_other_at_module_level():
    # Imports inside functions are for optional third-party dependencies only; the package's own
    # modules import each other at the top (no cycle needs hiding).
    offenders = []
    for module in _modules() + ["app.py", "wrdscore.py"]:
        tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("wrd_score")):
                    offenders.append(f"{module}:{node.lineno}")
    assert not offenders, offenders


def test_readme_options_table_is_generated_from_the_metadata():
    from wrd_score.options import with_options_table

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme == with_options_table(readme), (
        "README's options table is stale: python -c \"import wrd_score.options as o; o.update_options_table('README.md')\"")


def test_readme_commands_are_the_lean_install_then_the_ci_test_command():
    blocks = re.findall(r"```bash\n(.*?)\n```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)
    first, second = blocks[0].strip(), blocks[1].strip()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install ." in first and "torch" not in first and "gradio" not in first
    assert first in ci, "the first README command must be the one .ci/run checks in a fresh environment"
    # .ci/run keeps pip quiet and runs the two halves of the README's test command apart (the MoverScore
    # package goes in between, in its own virtual environment); otherwise the command is the README's.
    normalised = ci.replace("pip install -q", "pip install")
    install, test = second.split(" && ")
    assert install in normalised and test in normalised.split(install, 1)[1]
    assert "python3 -m venv" in ci and "python3 -m pip" not in ci, "CI installs into its own virtual environments"
