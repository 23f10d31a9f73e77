#!/usr/bin/env bash
# The literature-metrics tables of docs/validation.md (issue 16): every registered metric, each with its
# defaults, on STS-B test and IdBench, from `wrdscore validate --all-metrics`.
#   bash tools/literature_tables.sh [OUT_DIR]      (default OUT_DIR: /tmp/wrdscore-literature)
# Backend metrics (WRDScore, BERTScore, MoverScore, WMS, SMS, S+WMS) run on the static default embedding;
# sbert runs all-MiniLM-L6-v2. Needs ../shared/data beside the repository and the `siblings`, `meteor` and
# `sbert` extras. WRDZ selects the command (default `wrdscore`; a checkout that is not installed:
# WRDZ="env PYTHONPATH=$PWD python -m wrd_score.cli").
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/wrdscore-literature}
DATA=../shared/data
WRDZ=${WRDZ:-wrdscore}
mkdir -p "$OUT"

# STS-B test, scored once; sentences, so the n-gram metrics take their own tokenizers.
$WRDZ validate "$DATA"/stsb/stsb_test.tsv --all-metrics --human-range 0 5 \
  --output-dir "$OUT/stsb-test" > "$OUT/stsb-test.md"

# IdBench similarity: identifiers, so the n-gram metrics are also run on identifier subtokens (as
# ROUGE in the tables above), beside the benchmark authors' baseline_* columns.
$WRDZ validate "$DATA"/idbench/idbench_{small,medium,large}.tsv --human similarity --human-range 0 1 \
  --all-metrics -m bleu:split_identifiers=true -m rouge1:split_identifiers=true \
  -m rougeL:split_identifiers=true -m meteor:split_identifiers=true -m 'column:baseline_*' \
  --output-dir "$OUT/idbench-similarity" > "$OUT/idbench-similarity.md"
