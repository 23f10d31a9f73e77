#!/usr/bin/env bash
# The validation tables of docs/validation.md, each from one `wrdscore validate` command.
#   bash tools/validation_tables.sh [OUT_DIR]      (default OUT_DIR: /tmp/wrdscore-validate)
# Needs ../shared/data beside the repository. On 2 shared CPU cores the MiniLM rows dominate: about
# 15-25 minutes in all (14.4 min wall clock, 2.5 min CPU, with other jobs on the machine). Tables go to OUT_DIR/*.md, per-pair CSVs and scatter PNGs beside them.
# WRDZ selects the command (default `wrdscore`; tools/docs.py sets a stand-in that records the arguments).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/wrdscore-validate}
DATA=../shared/data
WRDZ=${WRDZ:-wrdscore}
mkdir -p "$OUT"

# Metrics shared by every table: WRDScore with the shipped static default (the identifiers preset: wrd-minilm-cf, its
# masses), the 0.1.x default (distilled MiniLM), the fastText embedding that was the first default, GloVe 50d and MiniLM, both variants, some rescaled; BERTScore and
# MoverScore on the same MiniLM.
COMMON=(
  -m wrdscore:variant=wrd,label=WRDScore-static-default
  -m wrdscore:variant=paper,label=WRDScore-static-paper
  -m wrdscore:variant=wrd,rescale_with_baseline=true,label=WRDScore-static-default-rescaled
  -m wrdscore:embedding=wrd-minilm-distilled,variant=wrd,weights=norm,label=WRDScore-0.1-default
  -m wrdscore:embedding=wrd-java-default,variant=paper,label=WRDScore-fastText-paper
  -m wrdscore:embedding=wrd-java-default,variant=wrd,label=WRDScore-fastText-wrd
  -m wrdscore:embedding=glove-6b-50d,variant=paper,label=WRDScore-GloVe-paper
  -m wrdscore:embedding=glove-6b-50d,variant=wrd,label=WRDScore-GloVe-wrd
  -m wrdscore:embedding=glove-6b-50d,variant=paper,rescale_with_baseline=true,label=WRDScore-GloVe-paper-rescaled
  -m wrdscore:backend=contextual,variant=paper,label=WRDScore-MiniLM-paper
  -m wrdscore:backend=contextual,variant=wrd,label=WRDScore-MiniLM-wrd
  -m wrdscore:backend=contextual,variant=paper,rescale_with_baseline=true,label=WRDScore-MiniLM-paper-rescaled
  -m wrdscore:backend=contextual,variant=wrd,pooling=wordpiece,weights=uniform,label=WRDScore-MiniLM-sentences
  -m bertscore:backend=contextual,label=BERTScore-MiniLM
  -m bertscore:backend=contextual,pooling=wordpiece,label=BERTScore-MiniLM-wordpiece
  -m moverscore:backend=contextual,label=MoverScore-MiniLM
)

# IdBench similarity (the `human` column) and relatedness; ROUGE on identifier subtokens (on raw
# identifiers rouge-score sees one token per name); the benchmark authors' baseline_* columns.
for HUMAN in similarity relatedness; do
  $WRDZ validate "$DATA"/idbench/idbench_{small,medium,large}.tsv --human "$HUMAN" --human-range 0 1 \
    "${COMMON[@]}" \
    -m rouge1:split_identifiers=true,label=ROUGE-1 -m rougeL:split_identifiers=true,label=ROUGE-L \
    -m 'column:baseline_*' \
    --output-dir "$OUT/idbench-$HUMAN" > "$OUT/idbench-$HUMAN.md"
done

# STS-B test, once, after the defaults were chosen on IdBench and STS-B dev.
$WRDZ validate "$DATA"/stsb/stsb_test.tsv --human-range 0 5 --reference-metric WRDScore-static-default \
  "${COMMON[@]}" -m rouge1:label=ROUGE-1 -m rougeL:label=ROUGE-L \
  --output-dir "$OUT/stsb-test" > "$OUT/stsb-test.md"
