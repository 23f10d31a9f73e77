#!/usr/bin/env bash
# The static rows of docs/validation-summary.md: both presets (0.3.0: each with its own file), the 0.6.0 default
# (wrd-minilm-cf-morph-post, negative cosines kept; by its name alone it is clipped, the 0.5.x default), the 0.4.0 default
# (wrd-minilm-cf-morph, wrd, norm), the 0.2.0 default (wrd-minilm-code, wrd, norm*corpus-idf), the 0.1.x default
# (wrd-minilm-distilled, wrd, norm) and ROUGE-1, on IdBench (similarity, relatedness) and STS-B test.
#   bash tools/validation_static.sh [OUT_DIR]      (default OUT_DIR: /tmp/wrdscore-validate-static)
# About 30 s on 2 CPU cores. The contextual, BERTScore and MoverScore rows come from validation_tables.sh.
# WRDZ selects the command (default `wrdscore`; tools/docs.py sets a stand-in that records the arguments).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/wrdscore-validate-static}
DATA=../shared/data
WRDZ=${WRDZ:-wrdscore}
mkdir -p "$OUT"
WRD=(
  -m wrdscore:preset=identifiers,label=WRDScore-identifiers-preset
  -m wrdscore:preset=sentences,label=WRDScore-sentences-preset
  -m wrdscore:embedding=wrd-minilm-cf-morph-post,variant=wrd,weights=norm,clip_negative=false,label=WRDScore-0.6-default
  -m wrdscore:embedding=wrd-minilm-cf-morph,variant=wrd,weights=norm,label=WRDScore-0.4-default
  -m wrdscore:embedding=wrd-minilm-code,variant=wrd,weights=norm*corpus-idf,label=WRDScore-0.2-default
  -m wrdscore:embedding=wrd-minilm-distilled,variant=wrd,weights=norm,label=WRDScore-0.1-default
)
for HUMAN in similarity relatedness; do
  $WRDZ validate "$DATA"/idbench/idbench_{small,medium,large}.tsv --human "$HUMAN" --human-range 0 1 "${WRD[@]}" \
    -m rouge1:split_identifiers=true,label=ROUGE-1 --reference-metric ROUGE-1 --no-files --quiet \
    > "$OUT/idbench-$HUMAN.md"
done
$WRDZ validate "$DATA"/stsb/stsb_test.tsv --human-range 0 5 "${WRD[@]}" -m rouge1:label=ROUGE-1 \
  --reference-metric ROUGE-1 --no-files --quiet > "$OUT/stsb-test.md"
echo "tables in $OUT" >&2
