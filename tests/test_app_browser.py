"""End to end: `python app.py` in a subprocess, driven by a real headless Chromium through Playwright.

Needs the Debian package ``chromium`` (``/usr/bin/chromium``) and the Python package ``playwright``
(its own browser download is not used).  Set ``WRDSCORE_SCREENSHOTS=DIR`` to keep screenshots.
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from wrd_score import WRDScorer

REPO = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
START_TIMEOUT_S = 300  # app.py warms up (imports, models, JIT) before it serves
SCORE_TIMEOUT_MS = 90_000


def _chromium() -> str:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("no Chromium found (/usr/bin/chromium or `chromium` on PATH); install the Debian package `chromium`")


server_log = {}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log_path = tmp_path_factory.mktemp("app") / "app.log"
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "app.py"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"app.py exited with {proc.returncode}:\n{log_path.read_text(errors='replace')[-3000:]}")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"app.py did not answer on {url} within {START_TIMEOUT_S} s:\n"
                            f"{log_path.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        server_log[url] = log_path
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="the Python package playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server, request):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(SCORE_TIMEOUT_MS)
    outside = []
    # The page must work offline: record every request that leaves the app's own address.
    page.on("request", lambda r: outside.append(r.url)
            if not r.url.startswith((server, "data:", "blob:", "about:")) else None)
    page.goto(server)
    page.wait_for_selector("#score-pair")
    yield page
    keep = os.environ.get("WRDSCORE_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(keep) / f"{request.node.name}.png"), full_page=True)
    context.close()
    assert outside == [], f"the page requested outside addresses: {outside}"


def _fill(page, elem_id: str, text: str) -> None:
    box = page.locator(f"#{elem_id} textarea, #{elem_id} input").first
    box.fill("")
    box.type(text)


def _rendered_image_width(page, selector: str) -> int:
    page.wait_for_selector(selector)
    return page.eval_on_selector(selector, "img => img.complete ? img.naturalWidth : 0")


def _upload(page, path: Path) -> None:
    page.get_by_role("tab", name="Score a file").click()
    page.set_input_files("#upload input[type=file]", str(path))
    # The file is on the server once its preview links to the server's copy.
    page.wait_for_selector(f"#upload a[href*='gradio_api/file='][download='{path.name}']")


def _error_toasts(page) -> str:
    return " | ".join(page.locator(".toast-body").all_inner_texts())


def test_score_a_pair(page):
    prediction, reference = "get count", "size"
    expected = WRDScorer().score([prediction], [reference])
    f1_text = f"{expected['f1'][0]:.4f}"
    _fill(page, "prediction", prediction)
    _fill(page, "reference", reference)
    page.click("#score-pair")
    page.wait_for_function("t => document.querySelector('#wrd-f1')?.textContent === t", arg=f1_text)
    assert page.inner_text("#wrd-precision") == f"{expected['precision'][0]:.4f}"
    assert page.inner_text("#wrd-recall") == f"{expected['recall'][0]:.4f}"
    # The two heatmaps (one figure) arrived as an image the browser could decode.
    assert _rendered_image_width(page, "#plot-alignment img") > 400
    signature = page.locator("#signature textarea").input_value()
    assert signature.splitlines()[0] == expected["signature"]
    comparison = page.inner_text("#comparison")
    assert "WRDScore" in comparison and f1_text in comparison


def test_paper_example_is_one_click_away(page):
    from playwright.sync_api import expect

    page.get_by_text("next char", exact=True).first.click()
    expect(page.locator("#prediction textarea, #prediction input").first).to_have_value("next char")
    expect(page.locator("#reference textarea, #reference input").first).to_have_value("advance")


def test_score_a_file(page, tmp_path):
    rows = pd.DataFrame({"prediction": ["getCount", "removeItem", "set artwork entry", "next char", "validate url"],
                         "reference": ["size", "deleteItem", "update image", "advance", "perform validation"],
                         "human": [0.8, 0.9, 0.3, 0.6, 0.5]})
    path = tmp_path / "small.csv"
    rows.to_csv(path, index=False)
    expected = WRDScorer().score(rows["prediction"].tolist(), rows["reference"].tolist())
    _upload(page, path)
    page.click("#score-file")
    page.wait_for_function("() => document.querySelector('#file-summary')?.innerText.includes('Scored')"
                           " || document.querySelector('.toast-body') !== null")
    assert "Scored 5 rows" in page.inner_text("#file-summary"), _error_toasts(page)
    table = page.inner_text("#rows")
    for prediction, f1 in zip(rows["prediction"], expected["f1"]):
        assert prediction in table
        assert f"{round(f1, 4):g}" in table
    assert "wrdscore_f1" in page.inner_text("#correlations")
    assert _rendered_image_width(page, "#histogram img") > 200
    assert page.locator("#download").is_visible()


def test_bad_upload_gets_a_message(page, tmp_path):
    path = tmp_path / "wrong.csv"
    path.write_text("pred,ref\na,b\n", encoding="utf-8")
    _upload(page, path)
    page.click("#score-file")
    message = page.get_by_text("needs columns 'prediction' and 'reference'")
    message.first.wait_for(state="visible")
    assert "Traceback" not in page.content()


def test_about_tab_renders_the_formulas(page):
    page.get_by_role("tab", name="About").click()
    page.get_by_text("How WRDScore works").wait_for(state="visible")
    # KaTeX turned the $$...$$ blocks into typeset formulas (no raw LaTeX left on the page).
    assert page.locator(".katex-display").count() >= 2
    assert "\\sum" not in page.inner_text("body")
    # The options table is folded (the tab was 11,700 px tall open); it opens on a click.
    page.get_by_text("Options", exact=True).click()
    page.get_by_text("rescale_with_baseline", exact=True).first.wait_for(state="visible")


# ------------------------------------------------------------------------------ issue 23, item 10
PAPER_ROWS = pd.DataFrame({"prediction": ["set artwork entry", "next char", "get count", "log", "validate url"],
                           "reference": ["update image", "advance", "size", "receive message", "perform validation"],
                           "human": [0.3, 0.6, 0.8, 0.2, 0.5]})


def test_served_warm(server, page):
    """The first result took 24 s after a cold start: app.py now warms up before it serves, so
    the page-load scoring of the first example is answered warm."""
    log = server_log[server].read_text(errors="replace")
    assert "warmed up in" in log, log[-2000:]
    page.wait_for_selector("#wrd-f1")
    assert page.inner_text("#wrd-f1") == f"{WRDScorer().score(['set artwork entry'], ['update image'])['f1'][0]:.4f}"


def _scored_paper_rows(page, tmp_path):
    path = tmp_path / "paper.csv"
    PAPER_ROWS.to_csv(path, index=False)
    _upload(page, path)
    page.click("#score-file")
    page.wait_for_function("() => document.querySelector('#file-summary')?.innerText.includes('Scored')"
                           " || document.querySelector('.toast-body') !== null")
    assert "Scored 5 rows" in page.inner_text("#file-summary"), _error_toasts(page)


# Lines each table cell's text takes on screen (1 everywhere: nothing breaks mid-word).
_CELL_LINES = """sel => [...document.querySelectorAll(sel + ' th, ' + sel + ' [role=gridcell]')]
  .filter(c => c.innerText.trim() && !c.closest('[aria-hidden="true"]')).map(c => {
    const walker = document.createTreeWalker(c.querySelector('span.text') || c, NodeFilter.SHOW_TEXT);
    const tops = new Set();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange(); range.selectNodeContents(node);
        for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
    }
    return [c.innerText.trim(), tops.size];
})"""


def test_file_means_table_fits(page, tmp_path):
    """The means were a markdown row of twenty-odd columns ("roug/e1", "0.00/00"): now one row per
    metric, every header and number on one line."""
    _scored_paper_rows(page, tmp_path)
    page.locator("#file-means").scroll_into_view_if_needed()
    cells = page.evaluate(_CELL_LINES, "#file-means")
    texts = [text for text, _ in cells]
    assert "WRDScore" in texts and "ROUGE-1" in texts and "f1" in texts, texts
    broken = [text for text, lines in cells if lines != 1]
    assert broken == [], broken


def test_undefined_correlation_shows_its_reason(page, tmp_path):
    """ROUGE-1 is 0 on all the paper's examples: its correlation is undefined, and the table says so."""
    _scored_paper_rows(page, tmp_path)
    table = page.inner_text("#correlations")
    assert "rouge1 is 0 on every row" in table, table
    # Readable where it stands: wrapped at spaces, never cut by the table's edge or mid-word.
    page.locator("#correlations").scroll_into_view_if_needed()
    cells = page.evaluate(_CELL_LINES, "#correlations")
    broken = [text for text, lines in cells if lines != 1 and " " not in text]
    assert broken == [], broken
    clipped = page.evaluate("""() => [...document.querySelectorAll('#correlations [role=gridcell]')]
        .filter(c => c.innerText.includes('every row'))
        .map(c => c.getBoundingClientRect().right <= document.querySelector('#correlations').getBoundingClientRect().right)""")
    assert clipped and all(clipped), clipped


def test_api_as_a_client(server, tmp_path):
    """The API as a client uses it: named endpoints and parameters, data not HTML or update dicts, one signature
    per metric, the scored file as a file (issue 32)."""
    client_module = pytest.importorskip("gradio_client")
    client = client_module.Client(server, verbose=False)
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert set(endpoints) == {"/score_pair", "/score_file"}, set(endpoints)
    got = client.predict("getCount", "size", api_name="/score_pair")
    want = WRDScorer().score(["getCount"], ["size"])
    assert got["f1"] == want["f1"][0] and got["precision"] == want["precision"][0]
    assert got["signature"] == want["signature"] == got["signatures"]["WRDScore"]
    assert "ROUGE-1" in got["signatures"] and any(row["metric"] == "ROUGE-1" for row in got["metrics"])
    # The file endpoint: a file in, the rows as records and the scored file out; options by name.
    path = tmp_path / "paper.csv"
    PAPER_ROWS.to_csv(path, index=False)
    names = [p["parameter_name"] for p in endpoints["/score_file"]["parameters"]]
    assert names[:2] == ["file", "embedding"] and "siblings" in names and "preset" in names
    record, scored = client.predict(client_module.handle_file(str(path)), siblings=False, api_name="/score_file")
    expected = WRDScorer().score(PAPER_ROWS["prediction"].tolist(), PAPER_ROWS["reference"].tolist())
    assert [row["wrdscore_f1"] for row in record["rows"]] == expected["f1"]
    assert record["means"][0]["metric"] == "WRDScore" and record["signatures"] == {"WRDScore": expected["signature"]}
    assert pd.read_csv(scored)["wrdscore_f1"].tolist() == expected["f1"]  # downloaded by the client, a file


def test_hostile_api_calls_are_refused_in_one_line(server, tmp_path):
    """Calls that bypass the page: huge texts, many rows, wrong types, unknown options, a server path."""
    client_module = pytest.importorskip("gradio_client")
    from wrd_score import space

    client = client_module.Client(server, verbose=False)
    for args, kwargs, message in (
            (("getCount " * 2000, "size"), {}, "5,000"),
            ((12, "size"), {}, "prediction must be a string, got int"),
            (("a", "b", "no such embedding"), {}, "embedding must be one of"),
            (("a", "b"), {"siblings": "yes"}, "siblings must be True or False"),
            (("a", "b"), {"weights": "idff"}, "did you mean 'idf'")):
        with pytest.raises(Exception, match=message):
            client.predict(*args, **kwargs, api_name="/score_pair")
    many = tmp_path / "many.csv"
    pd.DataFrame({"prediction": ["a"] * (space.MAX_ROWS + 1), "reference": ["b"] * (space.MAX_ROWS + 1)}).to_csv(
        many, index=False)
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\x00\x01binary" * 100)
    for path, kwargs, message in ((many, {}, f"limit is {space.MAX_ROWS}"), (bad, {}, "binary"),
                                  (many, {"variant": "wdr"}, "did you mean 'wrd'"),
                                  (many, {"clip_negative": "maybe"}, "clip_negative must be one of 'from preset', 'yes', 'no'")):
        with pytest.raises(Exception, match=message):
            client.predict(client_module.handle_file(str(path)), **kwargs, api_name="/score_file")
    # Raw HTTP, as no client would send it: a path on the server that was never uploaded is not read.
    status, events = _raw_call(server, "score_file", [{"path": "/etc/hostname", "meta": {"_type": "gradio.FileData"}}])
    assert "event: error" in events and "prediction" not in events, (status, events[:500])


def _raw_call(server: str, api_name: str, data: list):
    import json
    import urllib.request

    request = urllib.request.Request(f"{server}gradio_api/call/{api_name}", data=json.dumps({"data": data}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        event_id = json.load(response)["event_id"]
    with urllib.request.urlopen(f"{server}gradio_api/call/{api_name}/{event_id}", timeout=120) as response:
        return response.status, response.read().decode("utf-8", "replace")


def test_file_tab_before_and_without_an_upload(page):
    """Issue 32: before an upload the tab showed empty tables headed "1 2 3" and a blank plot, and Score without a
    file showed "Error" in all seven outputs. Now nothing stands empty, and one message says what to do."""
    page.get_by_role("tab", name="Score a file").click()
    page.locator("#score-file").wait_for(state="visible")
    for elem_id in ("file-means", "rows", "histogram", "download", "file-signature", "correlations"):
        assert page.locator(f"#{elem_id}").count() == 0 or not page.locator(f"#{elem_id}").is_visible(), elem_id
    page.click("#score-file")
    page.wait_for_function("() => document.querySelector('#file-summary')?.innerText.includes('Upload')")
    assert "Upload a .csv" in page.inner_text("#file-summary")
    text = page.inner_text("body")
    assert "Error" not in text and page.locator(".toast-body").count() == 0, text[-500:]
