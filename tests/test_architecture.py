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
    ("plan_prf", "wrd_score/transport/variants.py"), ("cosine_range", "wrd_score/transport/variants.py"),
    ("uses_idf", "wrd_score/weights.py"), ("reference_lists", "wrd_score/checks.py"),
    ("check_int", "wrd_score/checks.py"), ("unknown_message", "wrd_score/checks.py"),
    ("write_table", "wrd_score/files.py"), ("shared_backends", "wrd_score/metrics/backend_idf.py"),
    ("read_table", "wrd_score/files.py"), ("open_input", "wrd_score/files.py"),
    ("read_json", "wrd_score/files.py"), ("atomic_write", "wrd_score/files.py"),
    ("check_output", "wrd_score/files.py"), ("resolve_inputs", "wrd_score/cli/io.py"),
    ("normalise_with_offsets", "wrd_score/tokenize.py"), ("score_chunked", "wrd_score/stream.py"),
    ("get_metric", "wrd_score/metrics/base.py"), ("require", "wrd_score/deps.py"),
    ("_forward_all", "wrd_score/backends/encoder.py"), ("pool_onto_units", "wrd_score/backends/pooling.py"),
    ("load_embedding", "wrd_score/embeddings/store.py"),
    ("unit_rows", "wrd_score/embeddings/vectors.py"), ("shared_idf", "wrd_score/weights.py"),
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


#: Where the library parses signature text: text it did not just print (shard records read back from disk;
#: ``baseline_key``, whose public argument may be a user's string).
PARSES_SIGNATURE_TEXT = {"wrd_score/signature.py", "wrd_score/shards.py", "wrd_score/rescale.py"}


def test_signatures_stay_objects_until_printed():
    """Inside the library a Signature is an object until it is printed: nothing turns one into a string and
    parses it back (`Signature.parse(scorer.signature(...))` was written in the CLI, the metric interface and
    the baseline maker)."""
    parsers = {m for m in _modules() + ["app.py", "wrdscore.py"]
               for node in ast.walk(ast.parse((REPO / m).read_text(encoding="utf-8")))
               if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("Signature.parse")}
    assert parsers <= PARSES_SIGNATURE_TEXT, sorted(parsers - PARSES_SIGNATURE_TEXT)
    for module in sorted(parsers - {"wrd_score/signature.py"}):
        tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
        printed = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
                   and ast.unparse(node.func).endswith("Signature.parse") and node.args
                   and isinstance(node.args[0], ast.Call)
                   and ast.unparse(node.args[0].func).endswith(("signature", "str"))]
        assert not printed, f"{module} parses a signature it just printed, lines {printed}"


def test_nothing_imports_a_deprecated_module_name():
    """The old names (wrd_score/deprecated.py) are for users' code for one release; the repository itself
    imports the new ones (tests/test_deprecated.py aside, which checks the old ones)."""
    from wrd_score.deprecated import MOVED

    sources = sorted({*_modules(), "app.py", "wrdscore.py"} | {p.relative_to(REPO).as_posix() for folder in
                     ("tests", "benchmarks", "tools") for p in (REPO / folder).rglob("*.py")})
    offenders = []
    for source in sources:
        if source == "tests/test_deprecated.py" or source.replace("/", ".")[:-3] in MOVED:
            continue
        package = source.rsplit("/", 1)[0].replace("/", ".")
        for node in ast.walk(ast.parse((REPO / source).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            offenders += [f"{source}:{node.lineno} {name}" for name in names if name in MOVED]
    assert not offenders, offenders


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
HELPERS = {"wrd_score/signature.py", "wrd_score/files.py", "wrd_score/deps.py", "wrd_score/checks.py",
           "wrd_score/_kernels.py"}


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
                elif (REPO / sub / "__init__.py").exists():  # a subpackage (`from . import transport`)
                    found.add(sub + "/__init__.py")
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


def _string_collections(tree):
    """Every tuple, list or set of string constants, and every dict with string-constant keys (but not a
    table of tables such as PRESETS, keyed by backend, nor the values of a ``Literal[...]`` type, which
    test_enumerated_options_are_typed_with_the_owners_values checks against the owner), as (line, frozenset of
    the strings)."""
    literal_values = {id(node.slice) for node in ast.walk(tree)
                      if isinstance(node, ast.Subscript) and ast.unparse(node.value).split(".")[-1] == "Literal"}
    for node in ast.walk(tree):
        if id(node) in literal_values:
            continue
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict) and not all(isinstance(v, ast.Dict) for v in node.values):
            items = node.keys
        else:
            continue
        if len(items) >= 2 and all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
            yield node.lineno, frozenset(i.value for i in items)


def test_allowed_values_are_spelled_out_once():
    """Each option's allowed values are written once, by the module that owns them (a second copy, e.g.
    in options.py beside the pipeline module's, would drift from it)."""
    from wrd_score.options import Options, option_info
    from wrd_score.train import TrainOptions

    choices = {f"{of.__name__}.{info.name}": frozenset(info.choices) for of in (Options, TrainOptions)
               for info in option_info(of=of) if len(info.choices) >= 2}
    found = {name: [] for name in choices}
    for module in _modules() + ["app.py", "wrdscore.py"]:
        tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
        for line, strings in _string_collections(tree):
            for name, allowed in choices.items():
                if strings == allowed:
                    found[name].append(f"{module}:{line}")
    copies = {name: places for name, places in found.items() if len(places) > 1}
    assert not copies, f"allowed values written more than once: {copies}"


def test_options_show_the_allowed_values_their_pipeline_modules_own():
    # The very objects, not copies: a value added to a step is shown (and accepted) by every surface.
    from dataclasses import fields

    from wrd_score import backends, embeddings, tokenize, transport, weights
    from wrd_score.backends import contextual, static
    from wrd_score.options import Options, option_info

    values = {f.name: f.metadata["values"] for f in fields(Options)}
    owners = {"variant": transport.VARIANTS, "backend": backends.BACKENDS, "weights": weights.WEIGHTS,
              "embedding": embeddings.NAMED_EMBEDDINGS, "oov": static.OOV_POLICIES, "pooling": contextual.POOLINGS,
              "runtime": contextual.RUNTIMES}
    for name, owned in owners.items():
        assert values[name] is owned, name
    derived = {"tokenizer": {n: t.meaning for n, t in tokenize.TOKENIZERS.items()},
               "embedding_format": dict.fromkeys(embeddings.EMBEDDING_FORMATS, ""),
               "dtype": dict.fromkeys(contextual.DTYPES, "")}
    for name, owned in derived.items():
        assert values[name] == owned, name
    assert {info.name for info in option_info() if info.values} == set(owners) | set(derived) | {"preset"}


def test_option_types_are_dispatched_on_in_options_py_only():
    # One reading of option text (OptionInfo.parse): a second table keyed on the field types, as the CLI
    # once had beside validate's converter, would read the same text differently.
    from wrd_score.options import _KINDS

    spellings = {kind.spelling for kind in _KINDS.values() if "[" in kind.spelling}
    offenders = [f"{m}:{node.lineno}" for m in _modules() if m != "wrd_score/options.py"
                 for node in ast.walk(ast.parse((REPO / m).read_text(encoding="utf-8")))
                 if isinstance(node, ast.Constant) and node.value in spellings]
    assert not offenders, offenders


def test_enumerated_options_are_typed_with_the_owners_values():
    """Every option with a set of allowed values (and nothing else accepted, as a path) is typed
    ``Literal[...]`` (or ``Optional`` of one) whose values are its owner's, in its owner's order: the type a
    checker sees and the values every surface shows cannot drift apart."""
    from typing import Literal, Union, get_args, get_origin, get_type_hints

    from wrd_score.options import Options, option_info
    from wrd_score.train import TrainOptions

    checked = []
    for of in (Options, TrainOptions):
        hints = get_type_hints(of)
        for info in option_info(of=of):
            if len(info.choices) < 2 or info.accepts:
                continue
            hint = hints[info.name]
            if get_origin(hint) is Union:
                hint = next(h for h in get_args(hint) if h is not type(None))
            assert get_origin(hint) is Literal, f"{of.__name__}.{info.name} is typed {hints[info.name]}, not a Literal"
            assert get_args(hint) == info.choices, (info.name, get_args(hint), info.choices)
            checked.append(info.name)
    assert {"variant", "backend", "tokenizer", "weights", "oov", "pooling", "dtype", "runtime", "preset",
            "embedding_format", "method", "architecture"} <= set(checked), checked


def test_cli_flags_and_validate_specs_read_option_text_alike():
    import argparse

    from wrd_score.cli.common import add_metric_arguments
    from wrd_score.options import option_info
    from wrd_score.validation import parse_metric

    parser = argparse.ArgumentParser()
    add_metric_arguments(parser)
    texts = {"bool": ["false", "true"], "Optional[bool]": ["false", "true"], "int": ["3"], "Optional[int]": ["7"],
             "Optional[Union[int, str]]": ["-1", "4,5,6"]}
    for info in option_info():
        for text in texts.get(info.type, [info.choices[0] if info.choices else "some-text"]):
            flag = "--" + info.name.replace("_", "-")
            argv = [("--" if info.parse(text) else "--no-") + flag[2:]] if info.flag else [flag, text]
            from_cli = getattr(parser.parse_args(argv), info.name)
            from_spec = parse_metric(f"wrdscore:{info.name}={text}").kwargs[info.name]
            assert from_cli == from_spec == info.parse(text) and type(from_cli) is type(from_spec), (info.name, text)


def _tests(folder):
    return sorted(p.name for p in (REPO / "tests" / folder).glob("test_*.py"))


@pytest.mark.parametrize("folder", ["metrics", "backends", "integrations"])
def test_tests_of_a_subpackage_mirror_its_modules(folder):
    """tests/<folder>/test_X.py tests wrd_score/<folder>/X.py; every metric module has its test file."""
    ghosts = [name for name in _tests(folder) if not (PACKAGE / folder / name[len("test_"):]).is_file()]
    assert not ghosts, f"tests/{folder}/ has test files for modules that do not exist: {ghosts}"
    if folder == "metrics":
        # metrics/wrdscore.py only hands WRDScorer (tests/test_scorer.py) to the interface: its doctest is its test.
        untested = [p.name for p in sorted((PACKAGE / folder).glob("*.py"))
                    if p.name not in ("__init__.py", "wrdscore.py") and f"test_{p.name}" not in _tests(folder)]
        assert not untested, f"metric modules without tests/metrics/test_<module>.py: {untested}"


def test_top_level_tests_mirror_a_module_or_are_named_on_the_page():
    named = set(re.findall(r"`tests/(test_\w+\.py)`", PAGE))
    ghosts = sorted(name for name in named if not (REPO / "tests" / name).is_file())
    assert not ghosts, f"docs/architecture.md names test files that do not exist: {ghosts}"
    stray = [name for name in _tests(".") if name not in named and not (
        (PACKAGE / name[len("test_"):]).is_file() or (PACKAGE / name[len("test_"):-len(".py")]).is_dir())]
    assert not stray, f"tests/ files that mirror no module and are not on docs/architecture.md: {stray}"


def test_tools_hold_the_documentation_generators():
    named = set(re.findall(r"`tools/([\w.]+)`", PAGE))
    present = {p.name for p in (REPO / "tools").iterdir() if p.is_file()}
    assert named == present, f"tools/ and docs/architecture.md disagree: {sorted(named ^ present)}"
    elsewhere = [f"{folder}/{name}" for folder in ("benchmarks", "docs") for name in sorted(named)
                 if (REPO / folder / name).exists()]
    assert not elsewhere, f"documentation generators outside tools/: {elsewhere}"
    # A benchmark measures; one that wrote into docs/ would be a tool.
    writers = [p.name for p in sorted((REPO / "benchmarks").iterdir())
               if p.suffix == ".sh" or re.search(r"""["']docs/images|ROOT / "docs""", p.read_text(encoding="utf-8"))]
    assert not writers, f"benchmarks/ scripts that write documentation (move them to tools/): {writers}"
