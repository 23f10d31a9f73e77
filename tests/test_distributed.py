"""evaluate's own distributed mode: two processes add their shards, process 0 gets everything."""
import json
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MODULE = REPO / "wrdscore.py"

PREDS = ["getCount", "size", "isEmpty", "run", "", "toString", "hashCode", "close", "readLine"]
REFS = [["get_count"], ["getSize", "length"], ["empty"], ["execute"], ["x"], ["asString"], ["hash"],
        ["dispose", "shutdown"], ["read line"]]

WORKER = textwrap.dedent("""
    import json, sys
    import evaluate
    rank, cache_dir, experiment, module, payload = sys.argv[1:6]
    data = json.loads(payload)
    preds, refs = data["preds"], data["refs"]
    half = (len(preds) + 1) // 2  # contiguous shards: process 0's concatenation keeps the order
    start, stop = (0, half) if rank == "0" else (half, len(preds))
    metric = evaluate.load(module, num_process=2, process_id=int(rank), experiment_id=experiment,
                           cache_dir=cache_dir)
    for i in range(start, stop, 2):  # several add_batch calls per process
        j = min(i + 2, stop)
        metric.add_batch(predictions=preds[i:j], references=refs[i:j])
    result = metric.compute(weights=data["weights"])
    print("RESULT " + json.dumps(result))
""")


# Issue 12, item 1: each process inferred its own schema from its first example, so mixed
# references (lists in one shard, strings first in the other) were read differently per shard.
MIXED_REFS = [["get_count"], "getSize", ["empty", "isBlank"], "execute", "x", ["asString"], "hash",
              ["dispose", "shutdown"], "read line"]


@pytest.mark.parametrize("refs", [REFS, MIXED_REFS], ids=["lists", "mixed"])
def test_two_processes_match_one(tmp_path, refs):
    # IDF weights fit on all references: a process scoring only its own shard would get other scores.
    weights = "idf"
    import wrd_score
    evaluate = pytest.importorskip("evaluate")
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    experiment = f"wrdscore-test-{uuid.uuid4().hex[:8]}"
    payload = json.dumps({"preds": PREDS, "refs": refs, "weights": weights})
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(rank), str(tmp_path / "cache"), experiment,
                               str(MODULE), payload], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env)
             for rank in (0, 1)]
    outputs = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, err[-3000:]
            lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
            assert len(lines) == 1, out + err[-3000:]
            outputs.append(json.loads(lines[0][len("RESULT "):]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    distributed, other = outputs
    assert other is None  # only process 0 computes

    single = evaluate.load(str(MODULE)).compute(predictions=PREDS, references=refs, weights=weights)
    assert distributed == single == wrd_score.score(PREDS, refs, weights=weights)
    assert len(distributed["f1"]) == len(PREDS) and distributed["f1"][0] == 1.0
