"""WRDScore beside BERTScore, MoverScore and ROUGE on a few pairs, static and contextual.

    python benchmarks/side_by_side.py
"""
from wrd_score.metrics import column_name, compare

PAIRS = [  # (prediction, reference)
    ("getCount", "size"),
    ("getCount", "get_count"),
    ("readFileToString", "loadTextFile"),
    ("isAllCapitalized", "detectCapitalUse"),
    ("setArtworkEntry", "updateImage"),
    ("A man is playing a guitar.", "A man plays the guitar."),
    ("A woman is slicing an onion.", "A man is driving a car."),
]

COLUMNS = [("wrdscore_f1", "WRDScore F1"), ("{bertscore}_f1", "BERTScore rule F1"), ("{moverscore}", "MoverScore rule"),
           ("rouge1", "ROUGE-1"), ("rougeL", "ROUGE-L")]


def main() -> None:
    preds = [p for p, _ in PAIRS]
    refs = [r for _, r in PAIRS]
    for title, options in (("shipped static embedding", {}), ("contextual MiniLM-L6", {"backend": "contextual"})):
        table = compare(preds, refs, rouge_split_identifiers=True, **options)
        names = {m: column_name(m, options.get("backend", "static")) for m in ("bertscore", "moverscore")}
        print(f"\n**{title}** (ROUGE after identifier splitting)\n")
        print("| prediction | reference | " + " | ".join(name for _, name in COLUMNS) + " |")
        print("|---|---|" + "---:|" * len(COLUMNS))
        for k, (p, r) in enumerate(PAIRS):
            print(f"| {p} | {r} | " + " | ".join(f"{table[key.format(**names)][k]:.3f}" for key, _ in COLUMNS) + " |")
        print()
        for name, sig in table["signatures"].items():
            print(f"- {name}: `{sig}`")


if __name__ == "__main__":
    main()
