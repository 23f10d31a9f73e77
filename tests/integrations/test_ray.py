"""wrd_score.integrations.ray: a local Ray cluster with two workers gives what one WRDScorer.score call gives."""
import os

import pytest

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

import wrd_score  # noqa: E402
from wrd_score.integrations.ray import map_scores, score  # noqa: E402

PREDS = ["getCount", "size", "isEmpty", "run", "", "toString", "hashCode", "close", "readLine", "getSize", "x",
         "setName", "getName", "toList", "asMap", "isOpen", "write", "flush", "reset", "clearAll"]
REFS = [["get_count", "count"], ["getSize", "length"], ["empty"], ["execute"], ["x"], ["asString"], ["hash"],
        ["dispose", "shutdown"], ["read line"], ["size", "get_size"], [""], ["set_name"], ["name"], ["list"],
        ["to map", "map"], ["is closed"], ["print"], ["flush all"], ["clear"], ["clear all"]]


@pytest.fixture(scope="module")
def cluster():
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # nothing leaves the machine
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    try:
        yield ray
    finally:
        ray.shutdown()
        # ray.shutdown() stops the processes ray.init started; none may outlive the tests.
        left = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
        gone, alive = psutil.wait_procs(left, timeout=30)
        for proc in alive:
            proc.kill()
        assert not alive, f"Ray left processes behind: {[p.pid for p in alive]}"


def _dataset(preds, refs, blocks=5):
    return ray.data.from_items([{"prediction": p, "reference": r} for p, r in zip(preds, refs)],
                               override_num_blocks=blocks)


def test_two_actors_match_one_call(cluster):
    # Batches of 3 over 5 blocks of 4 rows: actors finish out of order; the result must not.
    got = score(_dataset(PREDS, REFS), num_actors=2, map_batch_size=3)
    assert got == wrd_score.score(PREDS, REFS)


def test_idf_fitted_once_on_the_driver_matches_one_call(cluster):
    got = score(_dataset(PREDS, REFS), num_actors=2, map_batch_size=2, weights="norm*idf")
    single = wrd_score.score(PREDS, REFS, weights="norm*idf")
    assert got == single and "idf:refs" in got["signature"]


def test_map_scores_adds_columns_row_by_row(cluster):
    scored, signature = map_scores(_dataset(PREDS, [r[0] for r in REFS]), num_actors=2, map_batch_size=4,
                                   variant="paper")
    rows = scored.take_all()
    assert len(rows) == len(PREDS)
    for row in rows:  # whatever order the rows come in, each carries its own scores
        one = wrd_score.score([row["prediction"]], [row["reference"]], variant="paper")
        assert (row["wrdscore_precision"], row["wrdscore_recall"], row["wrdscore_f1"],
                row["wrdscore_best_reference"]) == (one["precision"][0], one["recall"][0], one["f1"][0], 0)
        assert signature == one["signature"]


def test_contextual_actors_match_one_call(cluster, tiny_bert, contextual_agrees):
    # Each actor loads the encoder once; the driver loads it on its CPU only to sign the run.
    model = tiny_bert
    got = score(_dataset(PREDS, REFS, blocks=4), num_actors=2, map_batch_size=4, backend="contextual", model=model,
                batch_size=3)
    single = wrd_score.score(PREDS, REFS, backend="contextual", model=model)
    # Actors run one torch thread on their blocks; this process more threads on everything at once:
    # the same scores up to float32 rounding (SCORE_TOLERANCE).
    contextual_agrees(got, single)


def test_batch_size_reaches_the_actors_scorer_and_map_batch_size_the_map(cluster, tiny_bert, monkeypatch):
    # batch_size was map_batches' and never reached the encoder (the scorer's option of that name).
    seen = {}

    def spy(self, fn, **kwargs):
        seen.update(kwargs)
        return self

    monkeypatch.setattr(ray.data.Dataset, "map_batches", spy)
    map_scores(_dataset(PREDS, REFS), map_batch_size=5, backend="contextual", model=tiny_bert, batch_size=3)
    assert seen["batch_size"] == 5 and seen["fn_constructor_kwargs"]["options"]["batch_size"] == 3


@pytest.mark.parametrize("kwargs, error, message", [
    ({"predictions": "pred"}, ValueError, "predictions='pred' is not a column"),
    ({"num_actors": 0}, ValueError, "num_actors"),
    ({"map_batch_size": "8"}, ValueError, "map_batch_size"),
    # batch_size is the scorer's (the contextual encoder's); it was the map batch's, and never reached the encoder.
    ({"batch_size": 8}, ValueError, r"batch_size=8 is an option of backend='contextual' .* map_batch_size="),
    ({"idf": {"get": 1.0}}, ValueError, "does not use it"),
    ({"variant": "nope"}, ValueError, "variant"),
    # Issue 22.19: NaN passed the number checks and failed in int() with a message naming nothing.
    ({"num_cpus": float("nan")}, ValueError, "num_cpus must be a number > 0, got nan"),
    ({"num_gpus": float("inf")}, ValueError, "num_gpus must be a finite non-negative number, got inf"),
])
def test_bad_arguments_are_refused_by_name(cluster, kwargs, error, message):
    with pytest.raises(error, match=message):
        score(_dataset(PREDS[:2], REFS[:2], blocks=1), **kwargs)


def test_an_empty_dataset_without_columns_is_named(cluster):
    # Issue 22.19: "argument of type 'NoneType' is not iterable".
    with pytest.raises(ValueError, match=r"ds has no columns .*'prediction' and a 'reference' column"):
        score(ray.data.from_items([]))  # message: ... needs a 'prediction' and a 'reference' column


def test_a_taken_column_name_and_a_non_dataset_are_refused(cluster):
    ds = ray.data.from_items([{"prediction": "a", "reference": "b", "wrdscore_f1": 0.0}])
    with pytest.raises(ValueError, match="already has column"):
        map_scores(ds)
    with pytest.raises(TypeError, match="ray.data.Dataset"):
        score([{"prediction": "a", "reference": "b"}])


@pytest.mark.parametrize("rows, error, message", [
    # Ray hands a null as NaN: refused as a float, by name.
    ([{"prediction": None, "reference": "a"}], TypeError, r"predictions\[0\] must be a string, got float"),
    ([{"prediction": 3, "reference": "b"}, {"prediction": 4, "reference": "b"}], TypeError,
     r"predictions\[0\] must be a string, got int"),
    ([{"prediction": "a", "reference": []}], ValueError, r"references\[0\] is an empty list"),
])
def test_bad_rows_are_refused_by_name_not_with_a_ray_traceback(cluster, rows, error, message):
    with pytest.raises(error, match=message) as info:
        score(ray.data.from_items(rows), num_actors=1)
    text = str(info.value)
    assert text.startswith("wrd_score.integrations.ray: a batch of the dataset was refused:") and "\n" not in text
    assert "columns 'prediction' and 'reference'" in text
