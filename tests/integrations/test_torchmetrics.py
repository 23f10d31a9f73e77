"""wrd_score.integrations.torchmetrics: two gloo processes on CPU give what one WRDScorer.score call gives."""
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torchmetrics")
torch = pytest.importorskip("torch")

import wrd_score  # noqa: E402
from wrd_score import WRDScorer  # noqa: E402
from wrd_score.integrations.torchmetrics import WRDScore  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

PREDS = ["getCount", "size", "isEmpty", "run", "", "toString", "hashCode", "close", "readLine", "getSize", "x"]
REFS = [["get_count"], ["getSize", "length"], "empty", ["execute"], ["x"], "asString", ["hash"],
        ["dispose", "shutdown"], "read line", ["size", "get_size", "length"], ""]

# Each rank runs every scenario; a scenario's compute() gathers across both ranks.
WORKER = textwrap.dedent("""
    import json, os, sys
    import torch.distributed as dist
    from wrd_score import WRDScorer
    from wrd_score.integrations.torchmetrics import WRDScore

    # Imports take most of the time (torchmetrics imports transformers): pay them once, then fork
    # the second rank, before torch or numba start a thread.
    world = 2
    child = os.fork()
    rank = 1 if child == 0 else 0
    dist.init_process_group("gloo", rank=rank, world_size=world)
    preds, refs = json.loads(sys.argv[1])
    n = len(preds)
    results = {}

    def batches(positions, size=2):
        for i in range(0, len(positions), size):
            chunk = positions[i:i + size]
            yield [preds[j] for j in chunk], [refs[j] for j in chunk], chunk

    # DistributedSampler(shuffle=False): rank r gets r, r + world, ... of the list padded with its
    # first examples up to a multiple of world (example 0 is scored twice here).
    padded = list(range(n)) + list(range(-n % world))
    metric = WRDScore()
    for p, r, idx in batches(padded[rank::world]):
        metric.update(p, r, indexes=idx)
    results["interleaved"] = metric.compute()

    # Contiguous slices and no indexes: gathered order is the dataset order.
    half = (n + 1) // 2
    metric = WRDScore()
    for p, r, _ in batches(list(range(n))[:half] if rank == 0 else list(range(n))[half:], size=3):
        metric.update(p, r)
    results["contiguous"] = metric.compute()

    # IDF weights: one table fitted on every reference, passed to every rank.
    table = WRDScorer(weights="idf").idf_table([r] if isinstance(r, str) else r for r in refs)
    metric = WRDScore(weights="idf", idf=table)
    for p, r, idx in batches(padded[rank::world], size=3):
        metric.update(p, r, indexes=idx)
    results["idf"] = metric.compute()

    # The contextual backend: each rank encodes only its own texts, on one thread.
    metric = WRDScore(backend="contextual", model=sys.argv[3])
    for p, r, idx in batches(padded[rank::world], size=3):
        metric.update(p, r, indexes=idx)
    results["contextual"] = metric.compute()

    # A rank without a single update still takes part in the gather.
    metric = WRDScore()
    if rank == 0:
        for p, r, idx in batches(list(range(n)), size=4):
            metric.update(p, r, indexes=idx)
    results["idle_rank"] = metric.compute()

    # Ranks configured differently (issue 22 item 6): compute() must refuse, on every rank, not mix them.
    for scenario, options in (("mixed_variant", [dict(variant="wrd"), dict(variant="paper")]),
                              ("mixed_idf", [dict(weights="idf", idf={"get": 1.0, "count": 3.0}),
                                             dict(weights="idf", idf={"get": 3.0, "count": 1.0})]),
                              ("mixed_idle", [dict(variant="wrd"), dict(variant="paper")])):
        metric = WRDScore(**options[rank])
        if scenario != "mixed_idle" or rank == 0:  # an idle rank must still notice
            for p, r, idx in batches(padded[rank::world]):
                metric.update(p, r, indexes=idx)
        try:
            results[scenario] = metric.compute()
        except ValueError as exc:
            results[scenario] = "refused: " + str(exc)

    with open(os.path.join(sys.argv[2], f"rank{rank}.json"), "w") as out:
        json.dump(results, out)
    dist.destroy_process_group()
    if child:
        _, status = os.waitpid(child, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
""")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory, tiny_bert):
    folder = tmp_path_factory.mktemp("ranks")
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()),
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, "-c", WORKER, json.dumps([PREDS, REFS]), str(folder), tiny_bert], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=150)
    finally:
        if proc.poll() is None:  # the forked rank is in the same process group
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, out + err[-3000:]
    return [json.loads((folder / f"rank{rank}.json").read_text()) for rank in (0, 1)]


@pytest.mark.parametrize("scenario", ["interleaved", "contiguous", "idle_rank"])
def test_two_processes_match_one_call(two_ranks, scenario):
    single = wrd_score.score(PREDS, REFS)
    for rank_result in two_ranks:  # every rank gets the whole result
        assert rank_result[scenario] == single
    assert single["f1"][0] == 1.0 and len(single["f1"]) == len(PREDS)


def test_two_processes_with_one_idf_table_match_one_call_that_fits_it(two_ranks):
    # The one call fits IDF on all its references: the table every rank was given.
    single = wrd_score.score(PREDS, REFS, weights="idf")
    assert "idf:refs" in single["signature"]
    for rank_result in two_ranks:
        assert rank_result["idf"] == single


def test_two_processes_on_the_contextual_backend_match_one_call(two_ranks, tiny_bert, contextual_agrees):
    # Each rank encodes its own texts on one torch thread; this process encodes them all at once on
    # its threads: the same scores up to float32 rounding (SCORE_TOLERANCE).
    single = wrd_score.score(PREDS, REFS, backend="contextual", model=tiny_bert)
    assert "backend:contextual" in single["signature"]
    for rank_result in two_ranks:
        contextual_agrees(rank_result["contextual"], single)


@pytest.mark.parametrize("scenario", ["mixed_variant", "mixed_idf", "mixed_idle"])
def test_ranks_configured_differently_are_refused_on_every_rank(two_ranks, scenario):
    """Issue 22 item 6: variant="wrd" on rank 0 and "paper" on rank 1 (or two idf tables) were mixed in compute()."""
    for rank_result in two_ranks:
        message = rank_result[scenario]
        assert isinstance(message, str) and message.startswith("refused: ") and "configured differently" in message
        assert "\n" not in message


# ------------------------------------------------------------------------------ one process
def test_updates_in_one_process_match_one_call_and_reset_clears():
    metric = WRDScore(variant="paper")
    metric.update(PREDS[:4], REFS[:4])
    metric.update(PREDS[4:], REFS[4:])
    assert metric.compute() == WRDScorer(variant="paper").score(PREDS, REFS)
    metric.reset()
    empty = metric.compute()
    assert empty["f1"] == [] and empty["mean_f1"] == 0.0


def test_bootstrap_intervals_come_from_the_gathered_scores_not_from_bootstrapper():
    # Issue 23.11: BootStrapper(WRDScore()) raised a bare TypeError. It resamples tensor inputs along
    # dim 0 and stacks tensor outputs; text in, a dict out cannot be wrapped (docs/distributed.md says
    # why), and the gathered per-example scores give the interval `wrdscore score --confidence` gives.
    from torchmetrics.wrappers import BootStrapper

    from wrd_score.stats import system_confidence

    metric = WRDScore()
    metric.update(PREDS, REFS)
    gathered = system_confidence(metric.compute()["f1"], n_boot=500, seed=0)
    assert gathered == system_confidence(WRDScorer().score(PREDS, REFS)["f1"], n_boot=500, seed=0)
    assert gathered.low <= gathered.mean <= gathered.high
    with pytest.raises(TypeError):
        BootStrapper(WRDScore()).update(PREDS, REFS)
    doc = (REPO / "docs" / "distributed.md").read_text(encoding="utf-8")
    assert "BootStrapper" in doc and "system_confidence(metric.compute()[\"f1\"]" in doc


def test_indexes_put_examples_back_in_order_and_drop_repeats():
    metric = WRDScore()
    order = [3, 0, 2, 1, 0]  # example 0 twice, as DistributedSampler padding repeats it
    metric.update([PREDS[i] for i in order], [REFS[i] for i in order], indexes=torch.tensor(order))
    assert metric.compute() == wrd_score.score(PREDS[:4], REFS[:4])


def test_forward_returns_the_batch_and_keeps_the_total():
    metric = WRDScore()
    batch = metric(PREDS[:2], REFS[:2])
    assert batch == wrd_score.score(PREDS[:2], REFS[:2])
    metric(PREDS[2:], REFS[2:])
    assert metric.compute() == wrd_score.score(PREDS, REFS)


@pytest.mark.parametrize("kwargs, message", [
    ({"weights": "norm*idf"}, "needs idf="),
    ({"idf": {"get": 1.0}}, "does not use it"),
    ({"no_such_option": 1}, "no_such_option"),
    ({"variant": "nope"}, "variant"),
])
def test_bad_construction_is_refused_by_name(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        WRDScore(**kwargs)


@pytest.mark.parametrize("args, message", [
    (("getCount", ["x"]), "preds must be a list"),
    ((["a", "b"], ["x"]), "same length"),
    ((["a"], [3]), "target: references\\[0\\]"),
    ((["a"], ["x"], [0, 1]), "one entry per example"),
    ((["a"], ["x"], [-1]), "indexes\\[0\\]"),
    ((["a"], ["x"], [1.5]), "indexes\\[0\\]"),
    ((["a"], ["x"], "0"), "indexes must be a list"),
])
def test_bad_update_is_refused_by_name(args, message):
    with pytest.raises((ValueError, TypeError), match=message):
        WRDScore().update(*args)


def test_indexes_in_some_updates_only_are_refused():
    metric = WRDScore()
    metric.update(["a"], ["b"], indexes=[0])
    metric.update(["c"], ["d"])
    with pytest.raises(ValueError, match="in some update calls"):
        metric.compute()


def test_one_index_for_two_different_examples_is_refused():
    metric = WRDScore()
    metric.update(["getCount", "size"], ["get_count", "size"], indexes=[0, 0])
    with pytest.raises(ValueError, match="index 0 was given to two different examples"):
        metric.compute()


def test_merge_state_keeps_this_metrics_examples_first():
    """Red-team finding: torchmetrics' cat put the incoming state first, so a.merge_state(b) listed b's examples
    before a's: f1 [1.0, 0.145, 1.0, 1.0, 1.0] against one call's [1.0, 1.0, 1.0, 0.145, 1.0]."""
    preds = ["getCount", "setValue", "readFile", "size", "isEmpty"]
    target = ["get_count", ["getValue", "set_value"], "read_file", "length", ["empty", "is_empty"]]
    want = wrd_score.score(preds, target)
    for incoming in ("metric", "dict"):
        a, b = WRDScore(), WRDScore()
        a.update(preds[:2], target[:2])
        b.update(preds[2:], target[2:])
        a.merge_state(b if incoming == "metric" else {attr: getattr(b, attr) for attr in b._defaults})
        got = a.compute()
        assert got["f1"] == want["f1"] and got["best_reference"] == want["best_reference"], incoming
        assert got["mean_f1"] == want["mean_f1"]
    with pytest.raises(ValueError, match="Expected incoming state"):
        WRDScore().merge_state([1])
    with pytest.raises(ValueError, match="Expected state variable"):  # a dict missing states: torchmetrics' refusal
        WRDScore().merge_state({"f1": [], "extra": []})


# ------------------------------------------------------------------------------ plot
def _lines(ax):
    return {line.get_label(): list(line.get_ydata()) for line in ax.get_lines() if not line.get_label().startswith("_")}


def _saved_png(fig, path):
    fig.savefig(path, format="png")
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 1000
    from matplotlib.image import imread

    height, width = imread(str(path)).shape[:2]
    assert height > 100 and width > 100
    return path


def test_plot_draws_compute_means(tmp_path):
    """torchmetrics' base plot() raised NotImplementedError; compute()'s dict also holds lists and a signature,
    which torchmetrics' plotting cannot draw: only the three means are plotted."""
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    metric = WRDScore()
    metric.update(PREDS, REFS)
    want = metric.compute()
    fig, ax = metric.plot()
    assert isinstance(fig, Figure) and isinstance(ax, Axes) and ax in fig.axes
    assert _lines(ax) == {"mean_precision": [want["mean_precision"]], "mean_recall": [want["mean_recall"]],
                          "mean_f1": [want["mean_f1"]]}
    assert ax.get_ylabel() == "WRDScore"
    import matplotlib.pyplot as plt

    assert not plt.get_fignums()  # a figure of its own: none left open in pyplot for the caller to close
    low, high = ax.get_ylim()
    assert low < 0.0 and high > 1.0  # the score range [0, 1] is in view, with its bounds drawn
    _saved_png(fig, tmp_path / "one.png")
    # The same result passed as val draws the same, as does one with one-element tensors (BERTScore.plot's form).
    assert _lines(metric.plot(want)[1]) == _lines(ax)
    as_tensors = {name: torch.tensor(want[name], dtype=torch.float64) for name in ("mean_precision", "mean_recall", "mean_f1")}
    assert _lines(metric.plot(as_tensors)[1]) == _lines(ax)


def test_plot_over_steps_draws_one_line_a_mean_and_onto_a_given_axes(tmp_path):
    from matplotlib.figure import Figure

    metric = WRDScore()
    steps = [metric(PREDS[i:i + 3], REFS[i:i + 3]) for i in range(0, len(PREDS), 3)]
    fig, ax = metric.plot(steps)
    assert _lines(ax) == {name: [step[name] for step in steps] for name in ("mean_precision", "mean_recall",
                                                                            "mean_f1")}
    assert ax.get_xlabel() == "Step"
    _saved_png(fig, tmp_path / "steps.png")
    # A tuple is a list of steps too; onto an axes of the caller's own figure, which is returned with it.
    own = Figure()
    axes = own.add_subplot()
    got_fig, got_ax = metric.plot(tuple(steps), ax=axes)
    assert got_ax is axes and got_fig is own
    assert _lines(axes)["mean_f1"] == [step["mean_f1"] for step in steps]


def test_plot_keeps_scores_below_zero_in_view():
    """With rescale_with_baseline (or clip_negative=False) scores go below 0; torchmetrics' [0, 1] bounds would
    put the axes' floor at -0.1 and cut the points off."""
    metric = WRDScore(rescale_with_baseline=True)
    value = dict(metric(["getCount"], ["zebra"]), mean_precision=-0.9, mean_recall=-0.4, mean_f1=-0.6)
    _, ax = metric.plot(value)
    low, high = ax.get_ylim()
    # A margin under the lowest point, as torchmetrics leaves beside its bounds: a tenth of the range shown.
    assert low == pytest.approx(-0.9 - 0.19) and high == pytest.approx(1.0 + 0.19)
    _, ax = WRDScore(clip_negative=False).plot(dict(value, mean_precision=-1.0))
    assert ax.get_ylim() == pytest.approx((-1.2, 1.2))


@pytest.mark.parametrize("val, error, message", [
    ("f1", TypeError, r"val must be a compute\(\) result .* or a list of them, got str"),
    (0.5, TypeError, r"val must be .* got float"),
    (torch.tensor(0.5), TypeError, r"val must be .* got Tensor"),
    ([], ValueError, r"val is an empty list"),
    ({"f1": [1.0]}, ValueError, r"val has no 'mean_precision'"),
    ([{"mean_precision": 1.0, "mean_recall": 1.0, "mean_f1": 1.0}, "x"], TypeError, r"val\[1\] must be a compute"),
    ({"mean_precision": 1.0, "mean_recall": True, "mean_f1": 1.0}, TypeError, r"val\['mean_recall'\] must be a "
                                                                              r"finite number, got True"),
    ({"mean_precision": 1.0, "mean_recall": "0.5", "mean_f1": 1.0}, TypeError, r"val\['mean_recall'\] must be a "
                                                                               r"finite number, got '0.5'"),
    ([{"mean_precision": 1.0, "mean_recall": 1.0, "mean_f1": float("nan")}], ValueError,
     r"val\[0\]\['mean_f1'\] must be a finite number, got nan"),
    ({"mean_precision": float("inf"), "mean_recall": 1.0, "mean_f1": 1.0}, ValueError,
     r"val\['mean_precision'\] must be a finite number, got inf"),
    ({"mean_precision": torch.tensor([0.5, 0.5]), "mean_recall": 1.0, "mean_f1": 1.0}, ValueError,
     r"val\['mean_precision'\] must be one number \(a 0-d tensor or array\), got a Tensor of shape \(2,\)"),
    ({"mean_precision": np.array([0.5, 0.5]), "mean_recall": 1.0, "mean_f1": 1.0}, ValueError,
     r"val\['mean_precision'\] must be one number \(a 0-d tensor or array\), got a ndarray of shape \(2,\)"),
    ({"mean_precision": np.array(True), "mean_recall": 1.0, "mean_f1": 1.0}, TypeError,
     r"val\['mean_precision'\] must be a finite number, got True"),
    ({"mean_precision": np.array(np.nan), "mean_recall": 1.0, "mean_f1": 1.0}, ValueError,
     r"val\['mean_precision'\] must be a finite number, got nan"),
    ({"mean_precision": torch.tensor(0.5, device="meta"), "mean_recall": 1.0, "mean_f1": 1.0}, ValueError,
     r"val\['mean_precision'\] is a tensor on the meta device"),
    # Finite, but the axes' span overflowed: matplotlib's "Axis limits cannot be NaN or Inf" from deep inside.
    ({"mean_precision": -1e308, "mean_recall": 1.0, "mean_f1": 1e308}, ValueError,
     r"val\['mean_precision'\] must be a number in \[-1e\+300, 1e\+300\] .*, got -1e\+308"),
    ([{"mean_precision": 1.7e308, "mean_recall": 1.0, "mean_f1": 1.0}], ValueError,
     r"val\[0\]\['mean_precision'\] must be a number in \[-1e\+300, 1e\+300\]"),
])
def test_plot_refuses_a_bad_val_by_name(val, error, message):
    pytest.importorskip("matplotlib")
    with pytest.raises(error, match=message) as info:
        WRDScore().plot(val)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("zero_d", [np.array(0.5), np.float32(0.5), torch.tensor(0.5), torch.tensor([0.5]),
                                    np.array([[0.5]]), torch.tensor(0.5, dtype=torch.float16)])
def test_plot_takes_a_mean_as_any_one_number_compute_may_give(zero_d):
    """torchmetrics' own plot takes a tensor of one element; a compute() value may also be a 0-d numpy array."""
    pytest.importorskip("matplotlib")
    fig, ax = WRDScore().plot({"mean_precision": zero_d, "mean_recall": 0.25, "mean_f1": 1.0})
    drawn = sorted(float(y) for line in ax.get_lines() for y in line.get_ydata())
    assert drawn == [0.25, 0.5, 1.0]


def test_meta_tensors_are_refused_by_name():
    """A tensor on the meta device has a shape and no values: torch's own errors came from deep inside (.tolist():
    "Cannot copy out of meta tensor"; .item(): "cannot be called on meta tensors")."""
    meta = torch.tensor([0, 1], device="meta")
    with pytest.raises(ValueError, match=r"^indexes is a tensor on the meta device: it has a shape and no values"):
        WRDScore().update(["a", "b"], ["a", "b"], indexes=meta)
    with pytest.raises(TypeError, match=r"references\[0\] must be a string or a list of strings, got Tensor"):
        WRDScore().update(["a", "b"], torch.zeros(2, device="meta"))
    metric = WRDScore()
    metric.update(["a"], ["a"])
    metric.to("meta")
    with pytest.raises(ValueError, match=r"WRDScore is on the meta device"):
        metric.compute()
    with pytest.raises(ValueError, match=r"WRDScore is on the meta device"):
        metric.update(["a"], ["a"])


def test_plot_refuses_steps_of_different_configurations_and_a_bad_ax():
    pytest.importorskip("matplotlib")
    wrd, paper = WRDScore(), WRDScore(variant="paper")
    steps = [wrd(PREDS[:3], REFS[:3]), paper(PREDS[:3], REFS[:3])]
    with pytest.raises(ValueError, match=r"val\[1\] was computed with signature .*variant:paper.* val\[0\] with "
                                         r".*variant:wrd"):
        wrd.plot(steps)
    # A step without a signature (built by hand) is no reference: the steps that have one must still agree.
    unsigned = {name: steps[0][name] for name in ("mean_precision", "mean_recall", "mean_f1")}
    with pytest.raises(ValueError, match=r"val\[2\] was computed with signature .*variant:paper.* val\[1\] with "
                                         r".*variant:wrd"):
        wrd.plot([unsigned, *steps])
    wrd.plot([unsigned, steps[0], steps[0]])
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes, got Figure"):
        from matplotlib.figure import Figure

        wrd.plot(steps[0], ax=Figure())


def test_plot_without_matplotlib_names_the_extra(monkeypatch):
    import sys

    metric = WRDScore()
    metric.update(PREDS[:2], REFS[:2])
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")] or ["matplotlib"]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it now raises ImportError
    with pytest.raises(ImportError, match=r"pip install '\.\[plot\]'") as info:
        metric.plot()
    assert "\n" not in str(info.value)


def test_an_idf_table_with_a_weight_that_is_not_finite_is_refused():
    """The metric keeps the IDFTable it is given: a weight made NaN after that gave uniform masses without a word."""
    from wrd_score.weights import IDFTable

    table = WRDScorer(weights="idf").idf_table(REFS)
    metric = WRDScore(weights="idf", idf=table)
    table.weights["get"] = float("nan")
    with pytest.raises(ValueError, match="idf gave token 'get' the weight nan"):
        metric.update(PREDS[:2], REFS[:2])
    with pytest.raises(ValueError, match=r"IDFTable weights\['get'\] must be finite"):
        WRDScore(weights="idf", idf=IDFTable({"get": float("inf")}, 1.0, -1, "mine"))
    with pytest.raises(ValueError, match=r"idf\['get'\] must be finite"):
        WRDScore(weights="idf", idf={"get": float("inf")})


def test_a_mistyped_option_is_named_with_the_closest_one():
    # torchmetrics' own message ("Unexpected keyword arguments: `varient`") names no option to use instead, where the
    # library's and evaluate's say "did you mean 'variant'?".
    with pytest.raises(ValueError, match=r"'varient'.*did you mean 'variant'\?"):
        WRDScore(varient="paper")
    with pytest.raises(ValueError, match=r"'sync_on_compte'.*did you mean 'sync_on_compute'\?"):
        WRDScore(sync_on_compte=False)
    assert WRDScore(variant="paper", sync_on_compute=False).options.variant == "paper"
