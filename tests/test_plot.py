"""wrd_score.plot: the alignment figure (structure, no overlapping labels, readable cell text), the
pair detail's repr and table, `show`'s PNG, and the validation scatter grid."""
import itertools
import threading

import numpy as np
import pytest

pytest.importorskip("matplotlib")
from matplotlib.colors import to_rgb  # noqa: E402
from matplotlib.image import imread  # noqa: E402

from wrd_score import WRDScorer  # noqa: E402
from wrd_score import plot  # noqa: E402
from wrd_score.scoring import PairDetail  # noqa: E402

WORDS = ["get", "count", "size", "buffered", "output", "stream", "writer", "element", "identifier", "for",
         "name", "append", "mode", "flag", "character", "encoding", "x", "to", "disk", "lines", "text", "now"]


@pytest.fixture(scope="module")
def scorer():
    return WRDScorer()


def synthetic_detail(m: int, n: int, seed: int = 0) -> PairDetail:
    """A pair of m x n tokens of mixed lengths, cosines over the whole colour map, a sparse flow."""
    rng = np.random.default_rng(seed)
    tokens_p = [f"{WORDS[i % len(WORDS)]}{i}" for i in range(m)]
    tokens_r = [f"{WORDS[(3 * i) % len(WORDS)]}{i}" for i in range(n)]
    cos = rng.random((m, n))
    mass_p, mass_r = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(n))
    flow = np.zeros((m, n))
    flow[np.arange(m), rng.integers(0, n, m)] = mass_p
    return PairDetail(tokens_p, tokens_r, cos, mass_p, mass_r, flow, 0.5, 0.4)


def label_texts(fig):
    """Every visible text of the figure but the cell values: tick labels, titles, axis labels."""
    texts = [fig._suptitle, fig._supxlabel]
    for ax in fig.axes:
        texts += ax.get_xticklabels() + ax.get_yticklabels()
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label]
    return [t for t in texts if t is not None and t.get_visible() and t.get_text()]


def overlapping(texts, renderer):
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    return [(a, b) for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2) if box_a.overlaps(box_b)]


def luminance(rgb):
    c = np.asarray(to_rgb(rgb), dtype=float)
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(c @ [0.2126, 0.7152, 0.0722])


def contrast(a, b):
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# --------------------------------------------------------------------------- alignment figure
def test_two_heatmaps_labelled_with_tokens_and_masses(scorer):
    detail = scorer.explain("set artwork entry", "update image")
    fig = plot.alignment_figure(detail)
    heatmaps = [ax for ax in fig.axes if ax.images]
    assert len(heatmaps) == 2
    cos_ax, flow_ax = heatmaps
    assert [t.get_text() for t in cos_ax.get_yticklabels()] == detail.tokens_p == ["set", "artwork", "entry"]
    assert [t.get_text() for t in cos_ax.get_xticklabels()] == detail.tokens_r == ["update", "image"]
    np.testing.assert_array_equal(cos_ax.images[0].get_array(), detail.cos)
    np.testing.assert_array_equal(flow_ax.images[0].get_array(), detail.flow)
    assert [t.get_text() for t in flow_ax.get_yticklabels()] == [
        f"{t} ({m:.2f})" for t, m in zip(detail.tokens_p, detail.mass_p)]
    assert [t.get_text().replace("\n", " ") for t in flow_ax.get_xticklabels()] == [
        f"{t} ({m:.2f})" for t, m in zip(detail.tokens_r, detail.mass_r)]
    # Side by side: the flow panel starts right of the cosine panel, at the same height.
    assert flow_ax.get_position().x0 > cos_ax.get_position().x1
    assert flow_ax.get_position().y0 == pytest.approx(cos_ax.get_position().y0)
    heading = fig._suptitle.get_text()
    assert f"P {detail.precision:.4f}" in heading and f"F1 {detail.f1:.4f}" in heading
    # Cells without flow stay blank; the others carry their value.
    shown = [t.get_text() for t in flow_ax.texts]
    assert len(shown) == np.count_nonzero(detail.flow) and f"{detail.flow.max():.2f}" in shown


@pytest.mark.parametrize("prediction, reference, options", [
    ("get count", "size", {}),  # the README's pair: its 149-character signature was cut at both edges
    ("", "size", {}),
    ("A man plays a guitar.", "A man is playing music.", {"weights": "idf", "rescale_with_baseline": False}),
    (" ".join(WORDS * 3), "size", {}),
])
def test_the_signature_footer_lies_inside_the_figure(prediction, reference, options):
    fig = plot.plot_alignment(prediction, reference, **options)
    fig.canvas.draw()
    box = fig._supxlabel.get_window_extent(fig.canvas.get_renderer())
    width, height = fig.canvas.get_width_height()
    assert 0 <= box.x0 and box.x1 <= width and 0 <= box.y0 and box.y1 <= height, (box, width, height)
    assert fig._supxlabel.get_text().replace("\n", "").startswith("wrdscore:v")


def test_plot_alignment_scores_the_pair_and_signs_the_figure(scorer):
    fig = plot.plot_alignment("get count", "size", variant="paper")
    detail = WRDScorer(variant="paper").explain("get count", "size")
    heading = fig._suptitle.get_text()
    assert "“get count”" in heading and "“size”" in heading and f"R {detail.recall:.4f}" in heading
    assert "variant:paper" in fig._supxlabel.get_text().replace("\n", "")
    same = plot.plot_alignment("get count", "size", scorer=scorer)
    assert same.axes[0].get_yticklabels()[1].get_text() == "count"
    with pytest.raises(TypeError, match="scorer= or options"):
        plot.plot_alignment("a", "b", scorer=scorer, variant="paper")
    with pytest.raises(TypeError, match="detail must be a PairDetail"):
        plot.alignment_figure({"cos": []})


@pytest.mark.parametrize("size", [22, 40])
def test_no_labels_overlap_on_long_pairs(size):
    fig = plot.alignment_figure(synthetic_detail(size, size), title="a long pair")
    fig.draw_without_rendering()
    texts = label_texts(fig)
    assert len(texts) > 2 * size  # tick labels are there, not dropped to avoid the question
    assert overlapping(texts, fig.canvas.get_renderer()) == []
    cos_ax = fig.axes[0]
    ticks = [t.get_text() for t in cos_ax.get_yticklabels()]
    assert ticks[0] == "get0" and len(ticks) >= size // 2  # every token, or every other one at most


def test_labels_thin_out_when_even_the_smallest_font_cannot_hold_them():
    fig = plot.alignment_figure(synthetic_detail(150, 3))
    fig.draw_without_rendering()
    ticks = fig.axes[0].get_yticklabels()
    assert 20 < len(ticks) < 150
    assert overlapping(label_texts(fig), fig.canvas.get_renderer()) == []
    assert max(fig.get_size_inches()) < 20


def test_cell_text_contrasts_with_its_cell(scorer):
    # A cosine map from 0 to 1 (viridis: dark to light) and a flow from 0 to its largest value.
    detail = synthetic_detail(9, 11, seed=3)
    fig = plot.alignment_figure(detail)
    checked = 0
    for ax in (a for a in fig.axes if a.images):
        image = ax.images[0]
        matrix = image.get_array()
        for text in ax.texts:
            j, i = (int(round(v)) for v in text.get_position())
            cell = image.cmap(image.norm(matrix[i, j]))
            assert contrast(text.get_color(), cell) >= 4.5, (text.get_text(), text.get_color(), cell)
            checked += 1
    assert checked == detail.cos.size + np.count_nonzero(detail.flow)
    colours = {t.get_color() for t in fig.axes[0].texts}
    assert colours == {"black", "white"}  # both are needed on viridis


def test_an_empty_side_says_so(scorer):
    fig = plot.alignment_figure(scorer.explain("", "size"))
    message = " ".join(t.get_text() for ax in fig.axes for t in ax.texts)
    assert "no tokens in the prediction" in message and "reference tokens: size" in message
    assert not any(ax.images for ax in fig.axes)


def test_tokens_are_text_not_mathtext():
    detail = synthetic_detail(2, 2)
    detail.tokens_p = ["$a$", "b"]
    fig = plot.alignment_figure(detail)
    fig.draw_without_rendering()  # a parsed "$a$" would show as an italic a
    assert fig.axes[0].get_yticklabels()[0].get_text() == r"\$a\$"


def test_figures_drawn_in_threads_equal_those_drawn_alone(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    details = [synthetic_detail(3 + k, 2 + k, seed=k) for k in range(2)]

    def png(k: int) -> bytes:
        path = tmp_path / f"{k}-{threading.get_ident()}.png"
        plot._save_figure(plot.alignment_figure(details[k % 2]), str(path), dpi=60)
        return path.read_bytes()

    alone = [png(k) for k in range(2)]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(png, range(4)))
    assert together == alone + alone


# --------------------------------------------------------------------------- PairDetail
def test_to_pandas_is_the_matrices_cell_by_cell(scorer):
    pytest.importorskip("pandas")
    detail = scorer.explain("getCount of items", "size")
    frame = detail.to_pandas()
    assert len(frame) == detail.cos.size
    np.testing.assert_array_equal(frame.cosine.to_numpy().reshape(detail.cos.shape), detail.cos)
    np.testing.assert_array_equal(frame.flow.to_numpy().reshape(detail.flow.shape), detail.flow)
    for row in frame.itertuples():
        assert row.prediction_token == detail.tokens_p[row.prediction_index]
        assert row.reference_token == detail.tokens_r[row.reference_index]
        assert row.prediction_mass == detail.mass_p[row.prediction_index]
        assert row.reference_mass == detail.mass_r[row.reference_index]
    assert scorer.explain("", "size").to_pandas().shape == (0, 8)


def test_repr_names_tokens_scores_and_shape_by_their_attributes(scorer):
    # Issue 32: the repr said prediction=/reference=/P= while the attributes are tokens_p, precision, ...
    import operator
    import re

    detail = scorer.explain("get count", "size")
    text = repr(detail)
    assert text.startswith("PairDetail(tokens_p=['get', 'count'], tokens_r=['size'], ")
    assert f"f1={detail.f1:.4f}" in text and "cos.shape=(2, 1)" in text
    names = re.findall(r"([A-Za-z_][\w.]*)=", text)
    assert names == ["tokens_p", "tokens_r", "precision", "recall", "f1", "cos.shape"]
    for name in names:  # every name shown is the attribute that holds the value
        value = operator.attrgetter(name)(detail)
        shown = re.search(re.escape(name) + r"=(\[.*?\]|\(.*?\)|[\d.]+)", text).group(1)
        assert shown == (f"{value:.4f}" if isinstance(value, float) else str(list(value) if name.startswith("tokens")
                                                                                else tuple(value)))
    long = repr(synthetic_detail(60, 3))
    assert "(60 tokens)" in long and "'get0'" in long and "'get15'" not in long and len(long) < 220


# --------------------------------------------------------------------------- files
def test_show_writes_a_png_of_the_figure_size(tmp_path, scorer):
    path = tmp_path / "pair.png"
    assert plot.show("get count", "size", str(path), dpi=80) == str(path)
    image = imread(str(path))
    fig = plot.plot_alignment("get count", "size", dpi=80)
    width, height = fig.get_size_inches() * 80
    assert abs(image.shape[0] - height) < 1 and abs(image.shape[1] - width) < 1  # Agg truncates to whole pixels
    assert [p.name for p in tmp_path.iterdir()] == ["pair.png"]  # no temporary file left
    with pytest.raises(FileNotFoundError, match="does not exist"):
        plot.show("a", "b", str(tmp_path / "missing" / "pair.png"))
    with pytest.raises(TypeError, match="output_png"):
        plot.show("a", "b", None)


def test_scatter_grid_shares_ranges_and_draws_trend_lines(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    human = rng.random(80) * 4
    scores = {"good": human / 4 + rng.normal(scale=0.05, size=80), "noise": rng.random(80) * 3 - 1,
              "gappy": np.where(rng.random(80) < 0.2, np.nan, human / 8), "a": human, "b": -human}
    drawn = []
    real_save = plot._save_figure
    monkeypatch.setattr(plot, "_save_figure", lambda fig, path, dpi: drawn.append(fig) or real_save(fig, path, dpi))
    path = tmp_path / "grid.png"
    assert plot.plot_scatter(human, scores, str(path), human_label="similarity", title="test",
                             rho={"good": 0.95}) == str(path)
    assert imread(str(path)).shape[0] > 100
    fig, = drawn
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == len(scores)
    assert len({ax.get_xlim() for ax in panels}) == 1 and len({ax.get_ylim() for ax in panels}) == 1
    low, high = panels[0].get_ylim()
    assert low <= -4 and high >= 2  # every metric's values fit in the shared range
    assert all(len(ax.lines) == 1 for ax in panels)  # the least-squares line
    slope = np.polyfit(*panels[0].lines[0].get_data(), 1)[0]
    assert slope == pytest.approx(np.polyfit(human, scores["good"], 1)[0])
    assert "ρ = 0.950" in panels[0].get_title() and "ρ = –" in panels[1].get_title()
    assert "n = 80" in panels[0].get_title() and f"n = {np.isfinite(scores['gappy']).sum()}" in panels[2].get_title()
    assert panels[0].get_ylabel() == "metric score"
    # The panel above an empty slot carries its own x axis.
    assert panels[1].get_xlabel() == "similarity" and panels[4].get_xlabel() == "similarity"
    with pytest.raises(ValueError, match=r"scores\['b'\] has 3 values for 80"):
        plot.plot_scatter(human, {"b": [1, 2, 3]}, str(path))
    with pytest.raises(ValueError, match="at least one metric"):
        plot.plot_scatter(human, {}, str(path))


def test_missing_matplotlib_names_the_extra(monkeypatch):
    import sys

    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it now raises ImportError
    with pytest.raises(ImportError, match=r"pip install '\.\[plot\]'") as info:
        plot.alignment_figure(synthetic_detail(2, 2))
    assert "\n" not in str(info.value)


def test_hostile_texts_are_drawn_as_the_library_reads_them(tmp_path):
    # Undecodable argv bytes reach Python as lone surrogates; matplotlib cannot draw them.
    out = plot.show("a\udcedb", "size", str(tmp_path / "s.png"))
    assert imread(out).shape[0] > 100
    with pytest.raises(TypeError, match="prediction"):
        plot.plot_alignment(None, "size")


# --------------------------------------------------------------------------- issue 22/23 regressions
@pytest.mark.parametrize("n", [1, 2, 5])
def test_every_scatter_panel_carries_its_x_axis(tmp_path, monkeypatch, n):
    # Issue 23.7: with 5 metrics the first panel had no x tick labels and no "human" label.
    rng = np.random.default_rng(1)
    human = rng.random(50) * 5
    scores = {f"m{k}": human / 5 + rng.normal(scale=0.1, size=50) for k in range(n)}
    drawn = []
    real_save = plot._save_figure
    monkeypatch.setattr(plot, "_save_figure", lambda fig, path, dpi: drawn.append(fig) or real_save(fig, path, dpi))
    plot.plot_scatter(human, scores, str(tmp_path / "g.png"), human_label="human")
    fig, = drawn
    fig.draw_without_rendering()
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == n
    for ax in panels:
        assert ax.get_xlabel() == "human"
        assert any(t.get_visible() and t.get_text() for t in ax.get_xticklabels()), ax.get_title()


def test_titles_are_literal_text_not_mathtext(tmp_path):
    # Issue 22.17: 'get$Count$Value' was drawn as mathtext; an unbalanced '$' failed with a 4-line error.
    import matplotlib.text

    fig = plot.plot_alignment("get$Count$Value", "size")
    fig.draw_without_rendering()
    heading = [t for t in fig.findobj(matplotlib.text.Text) if "get$Count$Value" in t.get_text()]
    assert heading and all(not t.get_parse_math() for t in heading)
    out = plot.show("a$b", "size$", str(tmp_path / "u.png"))
    assert imread(out).shape[0] > 100


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".pdf", b"%PDF"), (".svg", b"<?xml"),
                                           (".PDF", b"%PDF")])
def test_show_writes_the_format_its_suffix_names(tmp_path, suffix, magic):
    # Issue 23.6: -o x.pdf / x.svg held PNG bytes.
    out = tmp_path / f"pair{suffix}"
    plot.show("get count", "size", str(out), dpi=60)
    assert out.read_bytes().startswith(magic)


def test_show_refuses_a_suffix_it_cannot_write(tmp_path):
    for name in ("pair.docx", "pair"):
        with pytest.raises(ValueError, match=r"output .* must end in a figure format.*\.png.*\.pdf.*\.svg"):
            plot.show("get count", "size", str(tmp_path / name))
    assert list(tmp_path.iterdir()) == []


def test_show_signs_the_figure_in_its_metadata(tmp_path):
    # Issue 32.2: a figure in the docs says what made it, as a score does, so the docs check can tell a stale one.
    pytest.importorskip("matplotlib")
    from PIL import Image

    from wrd_score import WRDScorer
    from wrd_score.plot import show

    want = WRDScorer(variant="paper").signature()
    png = show("get count", "size", str(tmp_path / "pair.png"), variant="paper")
    assert Image.open(png).text["Signature"] == want
    svg = show("get count", "size", str(tmp_path / "pair.svg"), variant="paper")
    assert want.replace("<", "&lt;") in open(svg, encoding="utf-8").read()
    pdf = show("get count", "size", str(tmp_path / "pair.pdf"), variant="paper")
    data = open(pdf, "rb").read()
    assert data.startswith(b"%PDF") and b"/Subject (" + want.encode() in data
