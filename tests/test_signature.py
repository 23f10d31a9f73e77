"""Signatures: what they pin (the configuration, the user IDF table) and the baseline key read from them."""
import wrd_score
from wrd_score import score
from wrd_score.rescale import baseline_key


def test_signature_pins_the_configuration():
    sig = score(["a"], ["b"])["signature"]
    for part in ("wrdscore:v" + wrd_score.__version__, "variant:wrd", "backend:static", "emb:", "sha256:",
                 "tok:identifier", "weights:norm", "clip:no", "oov:auto"):
        assert part in sig
    assert "variant:paper" in score(["a"], ["b"], variant="paper")["signature"]


def test_signature_pins_the_user_idf_table():
    """Issue 22 item 1: two user tables give two signatures; the same table (any order, int or float) one."""
    from wrd_score.signature import Signature

    a = score(["get count"], ["get size"], weights="idf", idf={"get": 1.0, "count": 3.0, "size": 2.0})
    b = score(["get count"], ["get size"], weights="idf", idf={"get": 3.0, "count": 1.0, "size": 2.0})
    same = score(["get count"], ["get size"], weights="idf", idf={"size": 2, "count": 3, "get": 1})
    assert a["signature"] != b["signature"] and a["signature"] == same["signature"]
    assert Signature.parse(a["signature"])["idf"].startswith("user@sha256:")


def test_key_ignores_version_and_rescale_flag_only():
    sig = "wrdscore:v9.9|variant:paper|backend:static|emb:x@sha256:ab|tok:identifier|oov:auto|weights:norm|clip:yes"
    assert baseline_key(sig) == baseline_key(sig.replace("v9.9", "v0.1.0") + "|rescale:baseline")
    assert baseline_key(sig) != baseline_key(sig.replace("variant:paper", "variant:wrd"))
