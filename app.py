"""The WRDScore Hugging Face Space: score a pair, score a file, read how the metric works.

The Gradio layout and its handlers, nothing else: every number shown, the page's options, its limits, the reading
of uploads and the writing of the scored file are the library's (:mod:`wrd_score.space`, tested without Gradio).
The handlers turn the library's results into what the page shows and its errors into messages.

Run it locally with ``python app.py`` (http://127.0.0.1:7860; ``GRADIO_SERVER_NAME`` /
``GRADIO_SERVER_PORT`` override the address, e.g. ``0.0.0.0`` on a Space).  Nothing is downloaded
at run time: the models are the ones installed with the requirements.
"""
from __future__ import annotations

import os

# Before gradio is imported: no telemetry and no version check, no Hub access, no GUI backend.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import functools
import inspect
import json
import time
from pathlib import Path
from typing import Any, Dict, Mapping, Tuple

import gradio as gr

import wrd_score
from wrd_score.plot import alignment_figure, histogram_figure
from wrd_score.space import (FORMULAS, LIMITS, MAX_TEXT_CHARS, PAPER_EXAMPLES, SIBLING_METRICS, PageOptions,
                             file_record, launch_settings, means_table, metric_label, options_markdown, pair_record,
                             read_upload, rescale_unavailable, row_limit, score_pair, score_table, validation_markdown,
                             write_scored)

ROOT = Path(__file__).resolve().parent

# --------------------------------------------------------------------------- handlers
CSS = """
.score-cards {display: flex; gap: 12px; flex-wrap: wrap;}
.score-card {flex: 1 1 120px; border: 1px solid var(--border-color-primary); border-radius: 10px;
             padding: 10px 14px; background: var(--block-background-fill);}
.score-card .name {font-size: 0.85em; color: var(--body-text-color-subdued);}
.score-card .value {font-size: 1.9em; font-weight: 700; font-variant-numeric: tabular-nums;}
.score-card.f1 .value {color: var(--color-accent);}
#file-means td, #file-means th, #correlations td, #correlations th {word-break: keep-all; overflow-wrap: normal;}
"""


def _cards_html(precision: float, recall: float, f1: float) -> str:
    cards = [("precision", "Precision", precision), ("recall", "Recall", recall), ("f1", "F1", f1)]
    body = "".join(f'<div class="score-card {key}"><div class="name">{label}</div>'
                   f'<div class="value" id="wrd-{key}">{value:.4f}</div></div>' for key, label, value in cards)
    return f'<div class="score-cards">{body}</div>'


def _library_options(page: PageOptions) -> Dict[str, Any]:
    try:
        return page.library_options()
    except (ValueError, TypeError) as exc:
        raise gr.Error(str(exc)) from None


def on_options_change(*values):
    """Keep the rescale box usable only where a baseline exists, and say why when it is not."""
    page = PageOptions(*values)
    try:
        reason = rescale_unavailable(page._replace(rescale_with_baseline=False).library_options())
    except (ValueError, TypeError) as exc:
        reason = str(exc)
    return gr.Checkbox(interactive=not reason, value=page.rescale_with_baseline and not reason,
                       info=f"Unavailable: {reason}" if reason else "unrelated pairs centre on 0")


def on_score_pair(prediction, reference, *values):
    """Score button: score cards, comparison table, signatures (one line per metric), two heatmaps, a note."""
    page = PageOptions(*values)
    try:
        result = score_pair(prediction or "", reference or "", _library_options(page), siblings=bool(page.siblings))
    except (ValueError, TypeError, OSError) as exc:
        raise gr.Error(str(exc)) from None
    d = result.detail
    note = f"{len(d.tokens_p)} prediction tokens × {len(d.tokens_r)} reference tokens. {result.note}".strip()
    return (_cards_html(result.precision, result.recall, result.f1), result.comparison(),
            "\n".join(result.signatures.values()), alignment_figure(d), note)


def _file_view(summary: str, scored: Any = None, options: Mapping[str, Any] = None, path: str = None) -> tuple:
    """What the file tab shows: the summary, then (once a file is scored) the means, the rows, the histogram, the
    download, the signatures and the correlations; hidden before, so nothing stands empty or labelled "1 2 3"."""
    if scored is None:
        return (summary,) + tuple(gr.update(visible=False, value=None) for _ in range(6))
    display = scored.table.copy()
    for column in display.columns:
        if column not in ("prediction", "reference"):
            display[column] = display[column].astype(float).round(4)
    corr = scored.correlations
    return (summary, gr.update(value=means_table(scored.means, options), visible=True),
            gr.update(value=display, visible=True),
            gr.update(value=histogram_figure(scored.table["wrdscore_f1"]), visible=True),
            gr.update(value=path, visible=True), gr.update(value="\n".join(scored.signatures.values()), visible=True),
            gr.update(value=corr, visible=corr is not None))


def on_upload(upload):
    """A new upload clears the last file's results (they would read as this file's)."""
    return _file_view("")


def on_score_file(upload, *values, progress=gr.Progress()):
    """Score file button. A missing or unreadable file gets one message in the summary (and nothing else shown)."""
    page = PageOptions(*values)
    if not upload:
        return _file_view("Upload a `.csv`, `.tsv` or `.jsonl` file first, then click **Score file**.")
    options = _library_options(page)
    try:
        frame = read_upload(upload, max_rows=row_limit(options))
        scored = score_table(frame, options, siblings=bool(page.siblings),
                             progress=lambda fraction, desc: progress(fraction, desc=desc))
    except (ValueError, TypeError, OSError) as exc:
        return _file_view(f"**This file cannot be scored:** {exc}")
    summary = f"Scored **{len(scored.table)}** rows; the means of every metric are in the table below."
    if scored.note:
        summary += f"\n\n{scored.note}"
    if scored.correlations is not None:
        summary += (f"\n\nCorrelations with `human` (the table under the means) use the "
                    f"{int(scored.correlations['n'].iloc[0])} rows that have one.")
    return _file_view(summary, scored, options, write_scored(scored.table, Path(upload).name))


# --------------------------------------------------------------------------- API (raw JSON in, JSON out)
def _page_from_api(values: Tuple[Any, ...]) -> Tuple[PageOptions, Dict[str, Any]]:
    try:
        page = PageOptions.from_api(dict(zip(PageOptions._fields, values)))
        return page, page.library_options()
    except (ValueError, TypeError) as exc:
        raise gr.Error(str(exc)) from None


def api_score_pair(prediction, reference, *values) -> dict:
    """WRDScore of one pair, as data: ``precision``, ``recall``, ``f1`` (rescaled when asked), ``signature``
    (WRDScore's), ``signatures`` (metric -> signature), ``metrics`` (one record per metric: ``metric``,
    ``precision``, ``recall``, ``f1``; null where a metric has no such part), ``tokens`` and ``note``. The options
    are the page's (``embedding``: one of its choices; ``variant``/``weights``: "from preset" or a value)."""
    page, options = _page_from_api(values)
    try:
        return pair_record(score_pair(prediction, reference, options, siblings=page.siblings))
    except (ValueError, TypeError, OSError) as exc:
        raise gr.Error(str(exc)) from None


def api_score_file(file, *values) -> Tuple[dict, str]:
    """Every row of an uploaded CSV/TSV/JSONL file, as data (``rows``, ``means``, ``correlations``, ``signature``,
    ``signatures``, ``note``), and the scored file (in the upload's format) as a file; the Space's limits hold."""
    page, options = _page_from_api(values)
    try:
        scored = score_table(read_upload(file, max_rows=row_limit(options)), options, siblings=page.siblings)
    except (ValueError, TypeError, OSError) as exc:
        raise gr.Error(str(exc)) from None
    return file_record(scored, options), write_scored(scored.table, Path(file).name)


def _page_signature(fn, head: Dict[str, type], returns: Any):
    """``fn(*head, *values)`` as an API function of the typed signature gr.api and the API page read (the head
    parameters, then one per :class:`PageOptions` field with its default), and that takes its arguments as the
    signature says: by position or by name. A call the signature does not admit (a value past the last option,
    one given twice, an unknown name) is refused in one line; ``zip`` dropped values past the last option."""
    params = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=kind)
              for name, kind in head.items()]
    params += [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=kind,
                                 default=PageOptions._field_defaults[name]) for name, kind in PageOptions.kinds().items()]
    signature = inspect.Signature(params, return_annotation=returns)

    @functools.wraps(fn)
    def api(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise gr.Error(f"{fn.__name__}: {exc}") from None
        bound.apply_defaults()
        return fn(*bound.args)

    api.__signature__ = signature
    api.__annotations__ = {**{p.name: p.annotation for p in params}, "return": returns}
    return api


api_score_pair = _page_signature(api_score_pair, {"prediction": str, "reference": str}, dict)
api_score_file = _page_signature(api_score_file, {"file": str}, Tuple[dict, str])


def warm_up() -> float:
    """Score what the page scores when it opens, once, before serving; returns the seconds it took.

    A cold process spent 24 s on the first request (imports of POT, sentence-transformers and NLTK's
    WordNet, loading the embedding and MiniLM, numba's first compilation, matplotlib's first
    figure) while the visitor looked at empty frames; served warm, that request takes about a second.
    """
    start = time.perf_counter()
    on_score_pair(*PAPER_EXAMPLES[0], *PageOptions())
    return time.perf_counter() - start


# --------------------------------------------------------------------------- layout
#: Each control: its widget, label and help; choices and defaults come from PageOptions.
_WIDGETS = {
    "preset": (gr.Radio, "Preset", "the defaults for identifiers or for sentences"),
    "embedding": (gr.Dropdown, "Embedding / backend", None),
    "variant": (gr.Radio, "Variant", "paper = equations 4-5; wrd = recall 1-WRD, greedy precision"),
    "weights": (gr.Dropdown, "Token masses (weights)", None),
    "tokenizer": (gr.Dropdown, "Tokenizer", "auto: the one that suits the embedding"),
    "oov": (gr.Dropdown, "Out-of-vocabulary tokens (static)", None),
    "clip_negative": (gr.Radio, "Clip negative cosines to 0", "no: scores in [-1, 1]"),
    "rescale_with_baseline": (gr.Checkbox, "Rescale with baseline", None),
    "siblings": (gr.Checkbox, "Also the literature's metrics (" + ", ".join(
        {"bertscore": "BERTScore's rule", "moverscore": "MoverScore's rule"}.get(m) or metric_label(m, {})
        for m in SIBLING_METRICS) + ")", None),
}
_ROWS = (("preset", "embedding", "variant", "weights"),
         ("tokenizer", "oov", "clip_negative", "rescale_with_baseline", "siblings"))


def _control(name: str):
    widget, label, info = _WIDGETS[name]
    kwargs = {} if widget is gr.Checkbox else {"choices": list(PageOptions.choices(name))}
    return widget(value=PageOptions._field_defaults[name], label=label, info=info, elem_id=name, **kwargs)


def build_demo() -> "gr.Blocks":
    """The Blocks app (not launched)."""
    with gr.Blocks(title="WRDScore", analytics_enabled=False) as demo:
        gr.Markdown("# WRDScore\nWord Rotator's Distance Score: precision, recall and F1 from the optimal transport "
                    "between the tokens of a prediction and a reference. Made for method names (`getCount` vs "
                    "`size`), usable for any short text.")
        controls = {}
        with gr.Accordion("Metric options", open=True):
            for row in _ROWS:
                with gr.Row():
                    controls.update({name: _control(name) for name in row})
        page_inputs = [controls[name] for name in PageOptions._fields]
        for name in PageOptions._fields:
            # api_visibility, not api_name=False: Gradio 6 reads False as the name "false" (/false, /false_1, ...).
            controls[name].change(on_options_change, inputs=page_inputs, outputs=controls["rescale_with_baseline"],
                                  api_visibility="private", show_progress="hidden")

        with gr.Tab("Score a pair"):
            with gr.Row():
                prediction = gr.Textbox(label="Prediction", value=PAPER_EXAMPLES[0][0], elem_id="prediction",
                                        max_length=MAX_TEXT_CHARS)
                reference = gr.Textbox(label="Reference", value=PAPER_EXAMPLES[0][1], elem_id="reference",
                                       max_length=MAX_TEXT_CHARS)
            gr.Examples(examples=[list(pair) for pair in PAPER_EXAMPLES], inputs=[prediction, reference],
                        label="The paper's examples (section 4; ROUGE-1 is 0 for all of them)", examples_per_page=5)
            score_button = gr.Button("Score", variant="primary", elem_id="score-pair")
            cards = gr.HTML(elem_id="pair-scores", label="Scores")
            # Full width: the sibling rows' names are long, and a half-width table cut off its last column.
            # Tall enough for every metric's row (Gradio's default of 500 px hid the last ones behind a scroll).
            comparison = gr.Dataframe(label="WRDScore beside the other metrics", elem_id="comparison",
                                      interactive=False, column_widths=["46%", "18%", "18%", "18%"], wrap=True,
                                      max_height=900)
            signature = gr.Textbox(label="Signatures, one per metric (report them with the scores)",
                                   elem_id="signature", lines=4, interactive=False, buttons=["copy"])
            pair_note = gr.Markdown(elem_id="pair-note", label="Note")
            plot_pair = gr.Plot(label="Cosine and optimal flow matrices", show_label=False, elem_id="plot-alignment",
                                format="png")
            # One queue for the page-load scoring and the button, one job at a time, first come first served.
            # The page's own events (HTML cards, a figure) are private; API clients get /score_pair (data).
            pair_outputs = [cards, comparison, signature, plot_pair, pair_note]
            score_button.click(on_score_pair, inputs=[prediction, reference, *page_inputs], outputs=pair_outputs,
                               api_name="show_pair", api_visibility="private", concurrency_id="pair",
                               concurrency_limit=1)

        with gr.Tab("Score a file"):
            gr.Markdown("Upload a `.csv`, `.tsv` (tab-separated, quoting off) or `.jsonl` file with columns "
                        "`prediction` and `reference`, and optionally `human` (a human score per row: the app then "
                        "reports each metric's correlation with it). " + LIMITS)
            upload = gr.File(label="File to score", file_types=[".csv", ".tsv", ".jsonl"], elem_id="upload")
            file_button = gr.Button("Score file", variant="primary", elem_id="score-file")
            file_summary = gr.Markdown(elem_id="file-summary", label="Summary")
            # Hidden until a file is scored. One row per metric: as one row, twenty-odd columns broke "rouge1" and
            # "0.0000" mid-word; the correlations get widths for what each column holds, and the note wraps.
            file_means = gr.Dataframe(label="Means", elem_id="file-means", interactive=False, wrap=False,
                                      datatype=["str", "number", "number", "number"], visible=False, max_height=900)
            correlation_table = gr.Dataframe(label="Correlation with the human column", visible=False,
                                             elem_id="correlations", interactive=False, wrap=True,
                                             column_widths=["24%", "5%", "7%", "12%", "7%", "12%", "7%", "12%", "14%"],
                                             max_height=1400)
            with gr.Row():
                histogram = gr.Plot(label="Histogram of WRDScore F1", show_label=False, elem_id="histogram",
                                    format="png", visible=False)
                with gr.Column():
                    download = gr.DownloadButton("Download the scored file", visible=False, elem_id="download")
                    file_signature = gr.Textbox(label="Signatures, one per metric", interactive=False,
                                                elem_id="file-signature", lines=4, visible=False)
            rows = gr.Dataframe(label="Per-row scores", elem_id="rows", interactive=False, max_height=420,
                                visible=False)
            file_outputs = [file_summary, file_means, rows, histogram, download, file_signature, correlation_table]
            upload.change(on_upload, inputs=upload, outputs=file_outputs, api_visibility="private",
                          show_progress="hidden")
            file_button.click(on_score_file, inputs=[upload, *page_inputs], outputs=file_outputs,
                              api_name="show_file", api_visibility="private")
            # The API's file endpoint: a file in (checked by Gradio: only uploaded files), raw JSON options, data
            # and the scored file out. No trigger on the page.
            api_file = gr.File(visible=False, label="file")
            api_options = [gr.JSON(value=json.dumps(default), visible=False, label=name)
                           for name, default in PageOptions._field_defaults.items()]
            gr.on(triggers=[], fn=api_score_file, inputs=[api_file, *api_options],
                  outputs=[gr.JSON(visible=False, label="result"), gr.File(visible=False, label="scored file")],
                  api_name="score_file")

        with gr.Tab("About"):
            # Folded sections: open, the formulas, options and validation made a page 11,700 px tall.
            latex = [{"left": "$$", "right": "$$", "display": True}, {"left": "$", "right": "$", "display": False}]
            with gr.Accordion("How WRDScore is computed", open=True):
                gr.Markdown(FORMULAS, latex_delimiters=latex)
            with gr.Accordion("Options", open=False):
                gr.Markdown(options_markdown())
            with gr.Accordion("Agreement with people (validation)", open=False):
                gr.Markdown(validation_markdown(ROOT), latex_delimiters=latex)
            gr.Markdown(f"`wrd_score` {wrd_score.__version__}")
        gr.api(api_score_pair, api_name="score_pair", concurrency_id="pair", concurrency_limit=1)
        # The first example is scored when the page opens: no empty table or blank plot frames before a click.
        demo.load(on_score_pair, inputs=[prediction, reference, *page_inputs], outputs=pair_outputs,
                  api_visibility="private", concurrency_id="pair", concurrency_limit=1)
    return demo


def main() -> None:
    print(f"warmed up in {warm_up():.1f} s (the first visitor's request is answered warm)", flush=True)
    demo = build_demo()
    # Two scoring jobs at a time: the Space has 2 CPU cores, more would only queue inside torch.
    demo.queue(default_concurrency_limit=2, max_size=32)
    demo.launch(theme=gr.themes.Soft(), css=CSS, **launch_settings())


if __name__ == "__main__":
    main()
