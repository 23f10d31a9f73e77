"""Figures: the alignment of one pair (cosine matrix beside the optimal flow) and validation scatter grids.

Every figure of the project is drawn here (the app, ``wrdscore show`` and ``wrdscore validate`` call
these functions).  matplotlib is optional: it is imported inside the functions, and a missing one
gives one line naming the extra to install.  Figures are built on :class:`matplotlib.figure.Figure`
with their own Agg canvas, never through ``pyplot``: no global state, so threads (the app's
requests) can draw at once, and nothing is left open.

>>> from wrd_score.plot import plot_alignment
>>> fig = plot_alignment("getCount", "size")
>>> [ax.get_title() for ax in fig.axes if ax.images]
['cosine similarity', 'optimal flow (token masses in brackets)']
"""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, Callable, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from .deps import require
from .files import atomic_write
from .checks import check_pair
from .scorer import WRDScorer, mean as mean_of_scores
from .scoring import PairDetail

if TYPE_CHECKING:  # pragma: no cover - typing only; matplotlib is optional
    from matplotlib.figure import Figure

__all__ = ["plot_alignment", "alignment_figure", "show", "plot_scatter", "histogram_figure", "contrast_ratio", "text_colour",
           "MAX_SCATTER_PANELS"]

#: Dots per inch of the figures and PNGs.
DPI = 110

# Heatmap geometry, in inches and points.  A panel grows with its token counts up to the maximum,
# then its labels shrink to the smallest font, then only every k-th token is labelled.
_PANEL_MAX = (6.0, 7.5)  # one heatmap, width x height
_PANEL_MIN = (2.6, 1.3)  # room for the panel title over a one-token side
_CELL_MAX = (0.62, 0.42)
_ANNOTATE_MIN = (0.3, 0.2)  # a cell at least this large carries its value ("0.13" is 2.2 em wide)
_FONT_MAX, _FONT_MIN = 9.0, 6.5  # tick labels
_ANNOTATION_FONT = 8.5  # at most
_PITCH = 1.5  # label spacing / font size: one label's height plus a clear gap
_LABEL_CHARS = 24  # longer tokens are cut with an ellipsis in labels


def _matplotlib():
    """The pieces of matplotlib this module uses; one clear line naming the extra when it is not installed."""
    matplotlib = require("matplotlib", "plot")
    backend_agg = require("matplotlib.backends.backend_agg", "plot")
    figure = require("matplotlib.figure", "plot")
    return matplotlib, figure.Figure, backend_agg.FigureCanvasAgg


def _figure(width: float, height: float, dpi: int = DPI) -> "Figure":
    _, Figure, FigureCanvasAgg = _matplotlib()
    fig = Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)  # its own canvas: measuring text and saving need no pyplot
    return fig


def figure_format(path: Any) -> str:
    """The file format ``path``'s suffix names (``.png``, ``.pdf``, ``.svg``, ...: what matplotlib
    writes without LaTeX), or a one-line ``ValueError`` naming the suffixes it can write.

    >>> figure_format("pair.PDF"), figure_format("grid.png")
    ('pdf', 'png')
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"output path must be a file path (str), got {type(path).__name__}")
    _, _, FigureCanvasAgg = _matplotlib()
    known = set(FigureCanvasAgg.get_supported_filetypes()) - {"pgf"}  # pgf needs a LaTeX install
    formats = [f for f in ("png", "pdf", "svg") if f in known] + sorted(known - {"png", "pdf", "svg"})
    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if suffix not in formats:
        got = f"'.{suffix}'" if suffix else "no suffix"
        raise ValueError(f"output {os.fspath(path)!r} must end in a figure format ({', '.join('.' + f for f in formats)}), "
                         f"got {got}")
    return suffix


#: Where each format keeps a text field that names what made the figure (matplotlib's ``metadata=``).
_METADATA_KEYS = {"png": "Signature", "svg": "Description", "pdf": "Subject"}


def _save_figure(fig: "Figure", path: Any, dpi: int = DPI, signature: Optional[str] = None) -> str:
    """Write ``fig`` at once, in the format its suffix names (:func:`figure_format`).

    ``signature`` is also written into the file's metadata (a PNG ``tEXt`` chunk ``Signature``, the SVG
    description, the PDF subject), so that a figure says what made it, as a score does: the docs check
    (``tools/docs.py``) reads it back to tell a stale figure.
    """
    fmt = figure_format(path)
    metadata = {_METADATA_KEYS[fmt]: signature} if signature is not None and fmt in _METADATA_KEYS else None
    with atomic_write(path, "wb", encoding=None) as handle:
        fig.savefig(handle, format=fmt, dpi=dpi, metadata=metadata)
    return os.fspath(path)


# ------------------------------------------------------------------------------------ colour
def _luminance(rgb: Sequence[float]) -> float:
    """WCAG 2 relative luminance of an sRGB colour with channels in [0, 1]."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(a: Sequence[float], b: Sequence[float]) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (1 to 21; 4.5 is the minimum for small text).

    >>> round(contrast_ratio((0, 0, 0), (1, 1, 1)), 1)
    21.0
    """
    la, lb = sorted((_luminance(a), _luminance(b)))
    return (lb + 0.05) / (la + 0.05)


def text_colour(background: Sequence[float]) -> str:
    """Black or white, whichever contrasts more with ``background``: never under 4.58 (WCAG AA is 4.5).

    Decided from the colour the cell really has, not from its value: on viridis the high values
    are light (black text) and the low ones dark (white text).

    >>> text_colour((0.993, 0.906, 0.144)), text_colour((0.267, 0.005, 0.329))  # viridis' ends
    ('black', 'white')
    """
    return "black" if contrast_ratio(background, (0, 0, 0)) >= contrast_ratio(background, (1, 1, 1)) else "white"


# ------------------------------------------------------------------------------ alignment
def _label(token: str) -> str:
    token = token if len(token) <= _LABEL_CHARS else token[: _LABEL_CHARS - 1] + "…"
    return token.replace("$", r"\$")  # a token is text, never mathtext


def _cell_text(value: float) -> str:
    if 0 < value < 0.005:
        return "<.01"  # some flow, too little to show as 0.01: not the blank of no flow
    return f"{value:.2f}"


def _clamp(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


class _Layout:
    """Sizes of one alignment figure, from its token counts (see the constants above)."""

    def __init__(self, m: int, n: int):
        cell_w = min(_CELL_MAX[0], _PANEL_MAX[0] / n)
        cell_h = min(_CELL_MAX[1], _PANEL_MAX[1] / m)
        self.panel = (max(_PANEL_MIN[0], cell_w * n), max(_PANEL_MIN[1], cell_h * m))
        self.annotate = cell_w >= _ANNOTATE_MIN[0] and cell_h >= _ANNOTATE_MIN[1]
        self.annotation_font = min(_ANNOTATION_FONT, 72 * cell_w / 2.8, 72 * cell_h / 1.5)
        # Each axis' labels get the largest font its spacing holds (a long side need not shrink a short one's)...
        self.col_font = _clamp(72 * self.panel[0] / n / _PITCH, _FONT_MIN, _FONT_MAX)
        self.row_font = _clamp(72 * self.panel[1] / m / _PITCH, _FONT_MIN, _FONT_MAX)
        # ...and every k-th token is labelled where even the smallest font does not fit them all.
        self.col_step = max(1, math.ceil(n * _PITCH * self.col_font / (72 * self.panel[0])))
        self.row_step = max(1, math.ceil(m * _PITCH * self.row_font / (72 * self.panel[1])))


def alignment_figure(detail: PairDetail, *, title: Optional[str] = None, footer: Optional[str] = None,
                     dpi: int = DPI) -> "Figure":
    """Draw one scored pair: its cosine matrix and its optimal flow side by side.

    Rows are prediction tokens, columns reference tokens.  The flow panel's labels carry each
    token's mass in brackets; cells without flow stay blank.  Small matrices show every value,
    in black or white, whichever contrasts more with the cell.  Long texts get a larger figure,
    then smaller labels, then every k-th label, so that no two labels overlap.  A side without
    tokens gives a message instead of empty axes.

    Args:
        detail: from :meth:`wrd_score.WRDScorer.explain`.
        title: first line(s) of the heading; a line with P, R and F1 always follows.
        footer: small grey text under the panels (``plot_alignment`` puts the signature there).
    """
    if not isinstance(detail, PairDetail):
        raise TypeError(f"detail must be a PairDetail (from WRDScorer.explain), got {type(detail).__name__}")
    cos = np.asarray(detail.cos, dtype=np.float64)
    flow = np.asarray(detail.flow, dtype=np.float64)
    m, n = len(detail.tokens_p), len(detail.tokens_r)
    heading = f"P {detail.precision:.4f}    R {detail.recall:.4f}    F1 {detail.f1:.4f}"
    if title:
        heading = f"{title}\n{heading}"

    def decorate(fig: "Figure") -> None:  # before the layout is fitted: heading and footer take room
        fig.suptitle(heading, fontsize=11, parse_math=False)  # texts are literal: '$' is never mathtext
        if footer:
            _fit_footer(fig, footer)

    if m == 0 or n == 0:
        fig = _empty_figure(detail, dpi)
        decorate(fig)
        return fig
    return _heatmaps(detail, cos, flow, _Layout(m, n), dpi, decorate)


def _fit_footer(fig: "Figure", footer: str) -> None:
    """The footer, wrapped at its "|" into as few lines as fit the figure's width, measured as drawn (a
    guess of the characters per line, 0.55 em each, cut a 149-character signature at both edges)."""
    label = fig.supxlabel(footer, fontsize=7, color="0.35", parse_math=False)
    renderer = fig.canvas.get_renderer()
    room = 0.96 * fig.bbox.width  # centred: a margin of 2% a side
    chars = len(footer)
    while chars > 8 and label.get_window_extent(renderer).width > room:
        chars = int(chars * 0.9)
        label.set_text(_wrap(footer, chars))


def _wrap(text: str, width: int, sep: str = "|") -> str:
    """``text`` in lines of at most ``width`` characters, broken before a ``sep`` where possible.

    >>> print(_wrap("wrdscore:v1|variant:wrd|backend:static", 24))
    wrdscore:v1|variant:wrd
    |backend:static
    """
    lines = [""]
    for part in text.split(sep):
        joined = f"{lines[-1]}{sep}{part}" if lines[-1] else part
        if len(joined) > width and lines[-1]:
            lines.append(sep + part)
        else:
            lines[-1] = joined
    # A part longer than a line (a long file name) is cut where it must be.
    return "\n".join(line[i:i + width] for line in lines for i in range(0, max(len(line), 1), width))


def _empty_figure(detail: PairDetail, dpi: int) -> "Figure":
    fig = _figure(6.4, 2.6, dpi)
    ax = fig.add_subplot()
    ax.set_axis_off()
    sides = [name for name, tokens in (("prediction", detail.tokens_p), ("reference", detail.tokens_r))
             if not tokens]
    which = " and the ".join(sides)
    message = f"no tokens in the {which}:\nnothing to transport, no matrix to draw"
    for name, tokens in (("prediction", detail.tokens_p), ("reference", detail.tokens_r)):
        if tokens:
            shown = " ".join(_label(t) for t in tokens[:12]) + (" …" if len(tokens) > 12 else "")
            message += f"\n\n{name} tokens: {shown}"
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=12, transform=ax.transAxes)
    return fig


class _Panel(NamedTuple):
    matrix: np.ndarray
    title: str
    cmap: str
    vmin: float
    vmax: float
    blank_zeros: bool  # leave cells of value 0 without text
    rows: List[str]
    columns: Tuple[List[str], List[str]]  # labels lying flat, labels standing up


def _heatmaps(detail: PairDetail, cos: np.ndarray, flow: np.ndarray, layout: _Layout, dpi: int,
              decorate: Callable[["Figure"], None]) -> "Figure":
    matplotlib, _, _ = _matplotlib()
    width, height = layout.panel
    fig = _figure(2 * width + 3.0, height + 2.0, dpi)
    axes = fig.subplots(1, 2)
    tokens_r = [_label(t) for t in detail.tokens_r]
    masses_r = [f"({w:.2f})" for w in detail.mass_r]
    panels = [
        _Panel(cos, "cosine similarity", "viridis", -1.0 if cos.min() < 0 else 0.0, 1.0, False,
               [_label(t) for t in detail.tokens_p], (tokens_r, tokens_r)),
        # Flow column labels: two lines when they lie flat, one when they stand up.
        _Panel(flow, "optimal flow (token masses in brackets)", "Blues", 0.0, max(float(flow.max()), 1e-12), True,
               [f"{_label(t)} ({w:.2f})" for t, w in zip(detail.tokens_p, detail.mass_p)],
               ([f"{t}\n{w}" for t, w in zip(tokens_r, masses_r)], [f"{t} {w}" for t, w in zip(tokens_r, masses_r)])),
    ]
    for ax, panel in zip(axes, panels):
        image = ax.imshow(panel.matrix, cmap=matplotlib.colormaps[panel.cmap], vmin=panel.vmin, vmax=panel.vmax,
                          aspect="auto", interpolation="nearest")
        ax.set_title(panel.title, fontsize=10)
        ax.set_xlabel("reference tokens", fontsize=9)
        if ax is axes[0]:  # the flow's rows are the same tokens: one axis title, less clutter between the panels
            ax.set_ylabel("prediction tokens", fontsize=9)
        _set_ticks(ax, panel.rows, panel.columns, layout)
        bar = fig.colorbar(image, ax=ax, shrink=0.9 if len(panel.rows) > 2 else 1.0, pad=0.02)
        bar.ax.tick_params(labelsize=7)
    decorate(fig)
    labelled = [(ax, panel.rows, panel.columns) for ax, panel in zip(axes, panels)]
    for _ in range(64):
        _fit_panels(fig, axes, layout.panel)
        if not _thin_overlapping(fig, labelled, layout):
            break
    # The footer was wrapped for the figure's first width; fitting the panels then set the width (a long signature
    # ran off both edges of a narrower figure), so it is wrapped again for the width they chose.
    for _ in range(3):
        size = fig.get_size_inches().copy()
        decorate(fig)
        _fit_panels(fig, axes, layout.panel)
        if np.allclose(size, fig.get_size_inches(), atol=0.01):
            break
    if layout.annotate:
        for ax, panel in zip(axes, panels):
            _annotate(ax, panel.matrix, panel.blank_zeros, layout.annotation_font)
    return fig


def _set_ticks(ax, rows: List[str], columns: Tuple[List[str], List[str]], layout: _Layout,
               vertical: Optional[bool] = None) -> None:
    """Tick labels; ``columns`` holds the column labels to lie flat and those to stand up."""
    if vertical is None:
        # Flat when each fits its cell (about 0.6 em a character on its longest line), else standing.
        cell_pt = 72 * layout.panel[0] / len(columns[0])
        longest = max(len(line) for c in columns[0] for line in c.split("\n"))
        vertical = layout.col_step > 1 or longest * 0.6 * layout.col_font > 0.92 * cell_pt
    cols = columns[1] if vertical else columns[0]
    ax.set_xticks(range(0, len(cols), layout.col_step), labels=cols[::layout.col_step], fontsize=layout.col_font,
                  rotation=90 if vertical else 0, ha="center")
    ax.set_yticks(range(0, len(rows), layout.row_step), labels=rows[::layout.row_step], fontsize=layout.row_font)
    ax.tick_params(length=2, pad=2)


def _fit_panels(fig: "Figure", axes, panel: Tuple[float, float]) -> None:
    """Resize the figure until each heatmap has its planned size (the layout's margins hold the labels).

    A panel's size grows linearly with the figure's (fixed margins for labels, a colorbar in
    proportion), so secant steps land on it in two or three layouts; it returns just after one.
    """
    # Panel inches per figure inch: the width is shared by two panels, each giving 17% to its colorbar
    # (colorbar fraction 0.15 and pad 0.02); the height is the panel's alone.
    rate = np.array([0.415, 1.0])
    last = None
    for _ in range(5):
        fig.draw_without_rendering()
        size = np.array(fig.get_size_inches())
        box = axes[0].get_position()
        have = np.array([box.width, box.height]) * size
        gap = np.array(panel) - have
        if np.all(np.abs(gap) < 0.08):
            return
        if last is not None:
            moved = size - last[0]
            rate = np.where(np.abs(moved) > 1e-3, (have - last[1]) / np.where(moved == 0, 1, moved), rate)
            rate = np.clip(rate, 0.1, 1.0)
        last = (size, have)
        fig.set_size_inches(*np.maximum(size + gap / rate, (3.0, 2.0)))
    fig.draw_without_rendering()


def _overlaps(texts, renderer) -> bool:
    boxes = [t.get_window_extent(renderer) for t in texts if t.get_visible() and t.get_text()]
    return any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def _thin_overlapping(fig: "Figure", labelled, layout: _Layout) -> bool:
    """Check the labels as drawn; where two still overlap (an estimate was off), stand the column labels
    up, else label fewer tokens.  Returns whether anything changed (the caller then looks again)."""
    renderer = fig.canvas.get_renderer()  # the layout was just drawn by _fit_panels
    wide = any(_overlaps(ax.get_xticklabels(), renderer) for ax, _, _ in labelled)
    tall = any(_overlaps(ax.get_yticklabels(), renderer) for ax, _, _ in labelled)
    if not (wide or tall):
        return False
    standing = [ax.get_xticklabels()[0].get_rotation() == 90 for ax, _, _ in labelled]
    if wide and all(standing):
        layout.col_step += 1
    if tall:
        layout.row_step += 1
    for (ax, rows, cols), up in zip(labelled, standing):
        _set_ticks(ax, rows, cols, layout, vertical=up or wide)
    return True


def _annotate(ax, matrix: np.ndarray, blank_zeros: bool, font: float) -> None:
    image = ax.images[0]
    for (i, j), value in np.ndenumerate(matrix):
        if blank_zeros and value == 0:
            continue  # no flow: an empty cell reads faster than "0.00"
        colour = text_colour(image.cmap(image.norm(value)))
        ax.text(j, i, _cell_text(value), ha="center", va="center", fontsize=font, color=colour)


def _quote(text: str, limit: int = 48) -> str:
    text = " ".join(text.split())
    return "“" + (text if len(text) <= limit else text[: limit - 1] + "…") + "”"


def plot_alignment(prediction: str, reference: str, *, scorer: Any = None,
                   idf: Optional[Mapping[str, float]] = None, dpi: int = DPI, **options: Any) -> "Figure":
    """Score one pair and draw its cosine matrix and optimal flow side by side (see :func:`alignment_figure`).

    Args:
        prediction, reference: the two texts.
        scorer: a :class:`wrd_score.WRDScorer` to use; else one is built from ``options``.
        idf: an IDF dict, as for :meth:`WRDScorer.explain`.
        **options: :class:`wrd_score.Options` fields (``variant``, ``embedding``, ...).

    The heading quotes the texts and gives the raw P, R and F1 of the drawn matrices (with
    ``rescale_with_baseline``, the rescaled ones :meth:`WRDScorer.score` gives come first); the footer is the
    metric's signature.

    >>> fig = plot_alignment("get count", "size")
    >>> fig.axes[0].get_yticklabels()[1].get_text(), fig.axes[0].get_xticklabels()[0].get_text()
    ('count', 'size')
    """
    return _alignment(prediction, reference, scorer=scorer, idf=idf, dpi=dpi, **options)[0]


def _alignment(prediction: str, reference: str, *, scorer: Any = None, idf: Optional[Mapping[str, float]] = None,
               dpi: int = DPI, **options: Any) -> Tuple["Figure", str]:
    """:func:`plot_alignment`'s figure and the signature its footer shows."""
    if scorer is None:
        scorer = WRDScorer(**options)
    elif options:
        raise TypeError(f"give scorer= or options, not both (got options {sorted(options)})")
    elif not isinstance(scorer, WRDScorer):
        raise TypeError(f"scorer must be a WRDScorer, got {type(scorer).__name__}")
    # The library's reading of the texts (lone surrogates, e.g. from undecodable argv bytes, become U+FFFD): the
    # title shows what was scored, and matplotlib cannot draw a surrogate.
    prediction, reference = check_pair(prediction, reference)
    detail = scorer.explain(prediction, reference, idf=idf)
    title = f"prediction {_quote(prediction)}    reference {_quote(reference)}"
    if scorer.options.rescale_with_baseline:
        # The scores the signature stands for (score()'s), then the raw ones the matrices give: the heading
        # showed only the raw ones under a "rescale:baseline" signature, so the option changed no number.
        scores = scorer.score([prediction], [reference], idf=idf)
        title += (f"\nrescaled with the baseline: P {scores['precision'][0]:.4f}    R {scores['recall'][0]:.4f}    "
                  f"F1 {scores['f1'][0]:.4f}\nthe matrices' raw scores, before rescaling:")
    signature = scorer.signature(scorer.idf_table([[reference]], idf))
    return alignment_figure(detail, title=title, footer=signature, dpi=dpi), signature


def show(prediction: str, reference: str, output_png: str, *, dpi: int = DPI, **options: Any) -> str:
    """Write the alignment figure of one pair to ``output_png`` (what ``wrdscore show`` runs); return its path.

    The format is the one the suffix names (``.png``, ``.pdf``, ``.svg``, ...; :func:`figure_format`,
    checked before any scoring).  The file is written at once (a partial file never stands under
    that name), with the signature in its metadata as well as in its footer (:func:`_save_figure`).
    ``options`` are as for :func:`plot_alignment` (``scorer=``, ``idf=`` or :class:`wrd_score.Options` fields).
    """
    if not isinstance(output_png, (str, os.PathLike)):
        raise TypeError(f"output_png must be a file path (str), got {type(output_png).__name__}")
    figure_format(output_png)
    fig, signature = _alignment(prediction, reference, dpi=dpi, **options)
    return _save_figure(fig, output_png, dpi, signature=signature)


def histogram_figure(f1: Sequence[float]) -> "Figure":
    """The distribution of per-row F1 over a scored file, with its mean (the app's Score a file tab)."""
    values = np.asarray(f1, dtype=float)
    fig = _figure(6.0, 3.2)
    ax = fig.add_subplot()
    low = min(0.0, float(values.min())) if values.size else 0.0
    ax.hist(values, bins=20, range=(low, 1.0), color="#4c72b0", edgecolor="white")
    if values.size:
        mean = mean_of_scores(values.tolist())  # the mean every entry point reports
        ax.axvline(mean, color="#dd8452", linestyle="--", label=f"mean {mean:.4f}")
        ax.legend(loc="upper left")
    ax.yaxis.set_major_locator(require("matplotlib.ticker", "plot").MaxNLocator(integer=True))
    ax.set_xlabel("WRDScore F1")
    ax.set_ylabel("rows")
    ax.set_title(f"WRDScore F1 over {values.size} rows", fontsize=11)
    return fig


# -------------------------------------------------------------------------------- validation
def _finite_range(values: Sequence[np.ndarray], fallback: Tuple[float, float]) -> Tuple[float, float]:
    finite = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.zeros(0)
    if finite.size == 0:
        return fallback
    low, high = float(finite.min()), float(finite.max())
    pad = 0.04 * (high - low) if high > low else 0.5
    return low - pad, high + pad


#: Most panels of a scatter grid (16 rows of 4, a figure 50 inches tall): 800 panels (`validate -m 'column:*'` on a
#: wide file) drew for over 10 minutes and would have passed matplotlib's limit of 2^16 pixels a side.
MAX_SCATTER_PANELS = 64


def plot_scatter(human: Any, scores: Mapping[str, Any], path: str, *, human_label: str = "human",
                 title: str = "", rho: Optional[Mapping[str, float]] = None, dpi: int = DPI) -> str:
    """A grid of scatter plots, one panel per metric: metric score against the human score; write it as a PNG.

    Every panel has the same x and y ranges (so slopes and spreads compare), a least-squares line,
    and its Spearman ρ in the title when ``rho`` has it.  Rows where either value is missing are
    left out of the points and of the line.

    Args:
        human: the human score of each row.
        scores: metric label -> the metric's score of each row (as many as ``human``).
        path: the figure to write, in the format its suffix names (at once: a partial file never
            stands under that name).
        human_label: the x axis' label; title: the figure's heading.
        rho: metric label -> Spearman's ρ with the human score, shown in the panel titles.

    Returns:
        ``path``.
    """
    human = np.asarray(human, dtype=np.float64)
    if human.ndim != 1:
        raise ValueError(f"human must be one score per row (1-D), got shape {human.shape}")
    if not isinstance(scores, Mapping) or not scores:
        raise ValueError("scores must map at least one metric label to its scores")
    if len(scores) > MAX_SCATTER_PANELS:
        raise ValueError(f"scores has {len(scores):,} metrics; a scatter grid draws at most {MAX_SCATTER_PANELS} panels")
    columns = {}
    for label, values in scores.items():
        try:
            values = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"scores[{label!r}] must be numbers") from None
        if values.shape != human.shape:
            raise ValueError(f"scores[{label!r}] has {values.size} values for {human.size} human scores")
        columns[str(label)] = values
    rho = dict(rho or {})

    n = len(columns)
    ncols = min(4, n)
    nrows = math.ceil(n / ncols)
    fig = _figure(3.3 * ncols, 3.1 * nrows + 0.6, dpi)
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False).ravel()
    # Big, fairly opaque dots for a few hundred rows; smaller and lighter as they pile up.
    size, alpha = (18, 0.65) if human.size <= 600 else (8, 0.35)
    for k, (ax, (label, values)) in enumerate(zip(axes, columns.items())):
        keep = np.isfinite(human) & np.isfinite(values)
        x, y = human[keep], values[keep]
        ax.scatter(x, y, s=size, alpha=alpha, color="#4c72b0", edgecolors="white", linewidths=0.3, zorder=2)
        if x.size >= 2 and np.ptp(x) > 0:
            slope, intercept = np.polyfit(x, y, 1)
            ends = np.array([x.min(), x.max()])
            ax.plot(ends, intercept + slope * ends, color="#dd8452", linewidth=2, zorder=3,
                    label="least-squares line")
        value = rho.get(label, float("nan"))
        shown = f"{value:.3f}" if math.isfinite(value) else "–"
        ax.set_title(f"{label if len(label) <= 40 else label[:39] + '…'}\nSpearman ρ = {shown}   n = {x.size}",
                     fontsize=9, parse_math=False)
        ax.grid(True, color="0.9", linewidth=0.6, zorder=0)
        ax.tick_params(labelsize=8)
        if k % ncols == 0:
            ax.set_ylabel("metric score", fontsize=9)
        # Every panel carries its x axis: a panel read alone (the first of a row with a panel below
        # it had none) still says what its points are plotted against.
        ax.set_xlabel(human_label, fontsize=9, parse_math=False)
        ax.xaxis.set_tick_params(labelbottom=True)
    for ax in axes[n:]:
        ax.set_visible(False)
    axes[0].set_xlim(*_finite_range([human], (0.0, 1.0)))
    axes[0].set_ylim(*_finite_range(list(columns.values()), (0.0, 1.0)))
    lines = [ax.lines[0] for ax in axes[:n] if ax.lines]
    if lines:  # outside the panels, where it covers no point
        fig.legend(handles=lines[:1], loc="outside lower right", fontsize=8, frameon=False)
    if title:
        fig.suptitle(title, fontsize=11, parse_math=False)
    return _save_figure(fig, path, dpi)
