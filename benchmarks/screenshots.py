"""Headless Chromium screenshots of the app, for docs/space.md: ``python benchmarks/screenshots.py``.

Starts ``app.py`` on 127.0.0.1:7931, waits for the page-load scoring, and writes docs/images/app_pair.png (the
Score a pair tab) and docs/images/app_about.png (the About tab); prints the About tab's height in pixels.
Needs Debian's chromium and playwright (requirements-test.txt).
"""
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
PORT = 7931


def main() -> None:
    env = dict(os.environ, GRADIO_SERVER_PORT=str(PORT), GRADIO_ANALYTICS_ENABLED="False")
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(120):
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
            page.screenshot(path=str(ROOT / "docs/images/app_pair.png"), full_page=True)
            page.get_by_role("tab", name="About").click()
            time.sleep(2)
            height = page.evaluate("document.body.scrollHeight")
            page.screenshot(path=str(ROOT / "docs/images/app_about.png"), full_page=True)
            print("About tab height:", height, "px")
            browser.close()
    finally:
        proc.terminate()


if __name__ == "__main__":
    main()
