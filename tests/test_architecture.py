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
    # Imports inside functions are for third-party dependencies (see the next tests); the package's own
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


# ------------------------------------------------------------------ imports: the page's two rules
#: Core dependencies imported only inside functions of the library: slow to import, needed by few calls
#: (docs/architecture.md, "Imports inside functions", gives each one's import time and its users).
DEFERRED_CORE = {"ot", "gensim", "datasets", "scipy", "tqdm"}
#: Installed with a core dependency (gensim requires scipy) though pyproject names it only in an extra.
CORE_BY_DEPENDENCY = {"scipy"}


#: Distributions whose module is not their name.
MODULE_OF = {"pot": "ot"}


def _import_name(requirement):
    # "ray[data]>=2.40" -> "ray", "rouge-score>=0.1.2" -> "rouge_score", "pot>=0.9.4" -> "ot".
    name = re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].strip().lower().replace("-", "_")
    return MODULE_OF.get(name, name)


def _dependencies():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {_import_name(r) for r in project["dependencies"]} | CORE_BY_DEPENDENCY
    optional = {_import_name(r) for extra in project["optional-dependencies"].values() for r in extra
                if not r.startswith("wrd-score")} - core
    return core, optional


def _third_party_imports(module):
    """``(top-level name, line, inside a function)`` of each import of a module outside the standard
    library and the package; imports under ``if TYPE_CHECKING:`` are left out (they never run)."""
    import sys

    tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
    inside, typing_only = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update(id(n) for n in ast.walk(node))
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for n in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top not in sys.stdlib_module_names and top != "wrd_score":
                found.append((top, node.lineno, id(node) in inside))
    return found


def test_optional_dependencies_are_never_imported_at_module_level():
    # So that `import wrd_score`, the CLI and the evaluate module need the core install alone.
    _, optional = _dependencies()
    offenders = [f"{m}:{line} {name}" for m in _modules() + ["wrdscore.py"]
                 for name, line, in_function in _third_party_imports(m) if name in optional and not in_function]
    assert not offenders, offenders


def test_imports_inside_functions_are_optional_or_listed_slow_core_dependencies():
    core, optional = _dependencies()
    assert DEFERRED_CORE <= core, "DEFERRED_CORE names a module that is not a core dependency"
    deferred = {name for m in _modules() for name, _, in_function in _third_party_imports(m) if in_function}
    stray = sorted(deferred - optional - DEFERRED_CORE)
    assert not stray, f"core dependencies imported inside functions but not in DEFERRED_CORE (and the page): {stray}"
    assert DEFERRED_CORE <= deferred, f"DEFERRED_CORE lists modules no function imports: {DEFERRED_CORE - deferred}"
    # A deferred module imported at the top of any library module would be loaded by `import wrd_score`
    # anyway; the command line (a terminal tool, on top of everything) may.
    at_top = [f"{m}:{line} {name}" for m in _modules() if not m.startswith("wrd_score/cli/")
              for name, line, in_function in _third_party_imports(m) if name in DEFERRED_CORE and not in_function]
    assert not at_top, at_top
    for name in DEFERRED_CORE:
        assert f"| `{name}`" in PAGE, f"docs/architecture.md does not say why {name} is deferred"


def _table_rows():
    """The modules of each row of the data-flow table, in order (a folder row: its listed files, or
    every module under it)."""
    table = PAGE.split("## Data flow", 1)[1].split("\n\n", 2)[1]
    rows = []
    for line in table.splitlines()[2:]:
        cell = line.split("|")[2]
        modules = set(re.findall(r"`(wrd_score/[\w/]+\.py)`", cell))
        for folder, names in re.findall(r"`(wrd_score/\w+/)` \(([^)]*)\)", cell):
            modules |= {folder + name for name in re.findall(r"`([\w.]+\.py)`", names)}
            modules |= {m for m in _modules() if m.startswith(folder)}
        rows.append(modules)
    return rows


#: Imported from any row: they import nothing of the package but each other.
HELPERS = {"wrd_score/signature.py", "wrd_score/files.py", "wrd_score/deps.py"}


def _package_imports(module):
    """The package modules a module imports at module level (``from . import __version__`` left out)."""
    path = REPO / module
    package = module.rsplit("/", 1)[0].replace("/", ".") if not module.endswith("__init__.py") else \
        module[:-len("/__init__.py")].replace("/", ".")
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("wrd_score"):
                continue
            for alias in node.names:
                sub = (target + "." + alias.name).replace(".", "/")
                if (REPO / (sub + ".py")).exists():
                    found.add(sub + ".py")
                elif target == "wrd_score":
                    assert alias.name == "__version__", f"{module} imports {alias.name} from the package root"
                else:
                    path_of = target.replace(".", "/")
                    found.add(path_of + ".py" if (REPO / (path_of + ".py")).exists() else path_of + "/__init__.py")
        elif isinstance(node, ast.Import):
            found |= {a.name.replace(".", "/") + ".py" for a in node.names if a.name.startswith("wrd_score.")}
    return found


def test_each_row_of_the_table_imports_only_rows_above_it():
    rows = _table_rows()
    row_of = {m: i for i, modules in enumerate(rows) for m in modules}
    assert HELPERS <= set(row_of)
    wrong = []
    for module, row in sorted(row_of.items()):
        for target in sorted(_package_imports(module)):
            if module in HELPERS:
                ok = target in HELPERS
            else:
                ok = target in HELPERS or row_of.get(target, len(rows)) <= row
            if not ok:
                wrong.append(f"{module} (row {row}) imports {target} (row {row_of.get(target, 'none')})")
    assert not wrong, wrong


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
