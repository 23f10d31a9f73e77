"""Headless Chromium screenshots of the app, for docs/space.md: ``python tools/screenshots.py [--every DIR]``.

Starts ``app.py`` on 127.0.0.1:7931 (it warms up before it answers), waits for the page-load scoring, and writes
docs/images/app_pair.png (the Score a pair tab), docs/images/app_file_before.png (the Score a file tab before an
upload: nothing but the upload box and the button), docs/images/app_file.png (the same tab after scoring five of the
paper's examples with made-up human scores: the means table and an undefined correlation's note) and
docs/images/app_about.png (the About tab); prints the About tab's height in pixels.  ``--every DIR`` also writes every
tab before and after the upload, and the file tab after Score was clicked without a file, into DIR (to look at).
Needs Debian's chromium and playwright (requirements-test.txt).
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
PORT = 7931
TABS = {"pair": "Score a pair", "file": "Score a file", "about": "About"}


def _shoot(page, tab: str, path: Path) -> int:
    page.get_by_role("tab", name=TABS[tab]).click()
    time.sleep(2)
    page.screenshot(path=str(path), full_page=True)
    return page.evaluate("document.body.scrollHeight")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", metavar="DIR", help="also write every tab before and after the upload into DIR")
    args = parser.parse_args(argv)
    every = Path(args.every) if args.every else None
    if every:
        every.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, GRADIO_SERVER_PORT=str(PORT), GRADIO_ANALYTICS_ENABLED="False")
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):  # app.py warms up (imports, models, JIT) before it serves
            try:
                socket.create_connection(("127.0.0.1", PORT), 1).close()
                break
            except OSError:
                time.sleep(1)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                        args=["--no-sandbox", "--disable-background-networking"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"http://127.0.0.1:{PORT}/")
            page.wait_for_selector("#plot-alignment img", timeout=120000)
            _shoot(page, "pair", IMAGES / "app_pair.png")
            _shoot(page, "file", IMAGES / "app_file_before.png")
            if every:
                for tab in TABS:
                    _shoot(page, tab, every / f"before_upload_{tab}.png")
                page.get_by_role("tab", name=TABS["file"]).click()
                page.click("#score-file")  # no file yet: one message, nothing else
                page.wait_for_function("() => document.querySelector('#file-summary')?.innerText.includes('Upload')")
                page.screenshot(path=str(every / "file_scored_without_a_file.png"), full_page=True)
            page.get_by_role("tab", name=TABS["file"]).click()
            rows = ["prediction,reference,human", "set artwork entry,update image,0.3", "next char,advance,0.6",
                    "get count,size,0.8", "log,receive message,0.2", "validate url,perform validation,0.5"]
            upload = Path(tempfile.mkdtemp()) / "paper_examples.csv"
            upload.write_text("\n".join(rows) + "\n", encoding="utf-8")
            page.set_input_files("#upload input[type=file]", str(upload))
            page.wait_for_selector("#upload a[download='paper_examples.csv']")
            page.click("#score-file")
            page.wait_for_function("() => document.querySelector('#file-summary')?.innerText.includes('Scored')",
                                   timeout=300000)
            page.wait_for_selector("#histogram img")
            page.screenshot(path=str(IMAGES / "app_file.png"), full_page=True)
            if every:
                for tab in TABS:
                    _shoot(page, tab, every / f"after_upload_{tab}.png")
            height = _shoot(page, "about", IMAGES / "app_about.png")
            print("About tab height:", height, "px")
            browser.close()
    finally:
        proc.terminate()


if __name__ == "__main__":
    main()
