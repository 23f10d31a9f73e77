"""Seconds from starting ``python app.py`` to its first HTTP answer, and from opening the page in headless
Chromium to the first result (the F1 card of the page-load scoring): what a Space visitor waits.

Usage::

    python benchmarks/app_first_load.py                 # this checkout
    python benchmarks/app_first_load.py --repo ../main  # another checkout, for a before/after pair

Needs Debian's ``chromium`` and the ``playwright`` package (as ``tests/test_app_browser.py``).
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default=str(ROOT), help="checkout whose app.py to start (default: this one)")
    parser.add_argument("--screenshot", help="save a full-page PNG of the first result here")
    args = parser.parse_args(argv)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "PYTHONPATH": args.repo, "GRADIO_ANALYTICS_ENABLED": "False"}
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "app.py"], cwd=args.repo, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        while True:
            if proc.poll() is not None:
                sys.exit(f"app.py exited with {proc.returncode}")
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        ready = time.monotonic() - start
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            opened = time.monotonic()
            page.goto(url)
            page.wait_for_selector("#wrd-f1", timeout=600_000)
            first = time.monotonic() - opened
            if args.screenshot:
                page.screenshot(path=args.screenshot, full_page=True)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(f"server answered after {ready:.1f} s; first result {first:.1f} s after opening the page; "
          f"total {ready + first:.1f} s (load average {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
