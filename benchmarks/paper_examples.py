"""Print WRDScore (shipped default embedding) and ROUGE-1 for the paper's section-4 examples: what the README's
*Examples* show (tools/docs.py checks that they show exactly this output).

    python benchmarks/paper_examples.py
"""
from wrd_score import WRDScorer, score
from wrd_score.metrics import rouge
from wrd_score.rescale import lookup_baseline

# (reference, prediction) as listed in section 4 of the paper; ROUGE-1 is 0 for every one.
EXAMPLES = [
    ("update image", "set artwork entry"), ("advance", "next char"), ("size", "get count"),
    ("receive message", "log"), ("advance", "next char"), ("perform validation", "validate url"),
    ("do until result", "execute"), ("detect capital use", "is all capitalized"),
    ("longest consecutive", "max path"), ("schedule course", "get number of days"), ("process username", "verify"),
]


def _span(values) -> str:
    """``-0.02 to -0.00``; one value where both ends print alike (``-0.01``, not ``-0.01 to -0.01``)."""
    low, high = f"{min(values):+.2f}", f"{max(values):+.2f}"
    return low if low == high else f"{low} to {high}"


def main() -> None:
    refs = [r for r, _ in EXAMPLES]
    preds = [p for _, p in EXAMPLES]
    out = score(preds, refs)
    rescaled = score(preds, refs, rescale_with_baseline=True)["f1"]
    b = lookup_baseline(WRDScorer().signature())["f1"]
    r1 = rouge(preds, refs, rouge_types=("rouge1",))["rouge1"]
    distinct = {pair: (f, x) for pair, f, x in zip(EXAMPLES, out["f1"], rescaled)}
    above = [pair for pair, (f, _) in distinct.items() if f > b]
    below = [pair for pair, (f, _) in distinct.items() if f <= b]
    best = max(distinct, key=lambda pair: distinct[pair][0])
    print(f"Random pairs of unrelated Java method names average F1 {b:.3f} with these settings (the stored rescaling "
          f"baseline, `embeddings/baselines.json`). {len(above)} of the {len(distinct)} distinct pairs land above that "
          f"(best: `{best[1]}` / `{best[0]}`, F1 {distinct[best][0]:.3f}, rescaled {distinct[best][1]:+.2f})"
          + (f"; {', '.join(f'`{p}` / `{r}`' for r, p in below)} stay at or below it (rescaled "
             f"{_span([distinct[x][1] for x in below])})." if below else ".")
          + f" Mean rescaled F1 of the distinct pairs: {sum(x for _, x in distinct.values()) / len(distinct):.3f}.\n")
    print("| reference | prediction | ROUGE-1 | precision | recall | F1 |")
    print("|---|---|---:|---:|---:|---:|")
    seen = set()
    for (ref, pred), a, p, r, f in zip(EXAMPLES, r1, out["precision"], out["recall"], out["f1"]):
        if (ref, pred) not in seen:  # the paper lists advance / next char twice
            seen.add((ref, pred))
            print(f"| {ref} | {pred} | {a:.2f} | {p:.4f} | {r:.4f} | {f:.4f} |")
    print(f"\nsignature: `{out['signature']}`")


if __name__ == "__main__":
    try:
        main()
    except ImportError as exc:  # ROUGE-1 needs the siblings extra: say so in one line
        raise SystemExit(f"paper_examples.py: {exc}")
