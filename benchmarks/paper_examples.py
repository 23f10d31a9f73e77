"""Print WRDScore (shipped default embedding) and ROUGE-1 for the paper's section-4 examples.

    python benchmarks/paper_examples.py
"""
from wrd_score import score
from wrd_score.metrics import rouge

# (reference, prediction) as listed in section 4 of the paper; ROUGE-1 is 0 for every one.
EXAMPLES = [
    ("update image", "set artwork entry"), ("advance", "next char"), ("size", "get count"),
    ("receive message", "log"), ("advance", "next char"), ("perform validation", "validate url"),
    ("do until result", "execute"), ("detect capital use", "is all capitalized"),
    ("longest consecutive", "max path"), ("schedule course", "get number of days"), ("process username", "verify"),
]


def main() -> None:
    refs = [r for r, _ in EXAMPLES]
    preds = [p for _, p in EXAMPLES]
    out = score(preds, refs)
    r1 = rouge(preds, refs, rouge_types=("rouge1",))["rouge1"]
    print("| reference | prediction | ROUGE-1 | precision | recall | F1 |")
    print("|---|---|---:|---:|---:|---:|")
    for (ref, pred), a, p, r, f in zip(EXAMPLES, r1, out["precision"], out["recall"], out["f1"]):
        print(f"| {ref} | {pred} | {a:.2f} | {p:.4f} | {r:.4f} | {f:.4f} |")
    print(f"\nsignature: `{out['signature']}`")


if __name__ == "__main__":
    main()
