"""Take the README's screenshot of the web table (docs/images/table.png).

    .venv/bin/python scripts/screenshot.py [--out docs/images/table.png]

Starts ``hearts serve`` on a temporary SQLite database, makes a table of one person and three
``hard`` bots (a fixed seed), opens the person's invite link in Debian's chromium (Playwright),
passes and plays a card by clicks, and saves the page while the bots answer it.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post(url: str, body: object) -> dict[str, object]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        data: dict[str, object] = json.loads(r.read())
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "table.png")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen(
            [sys.executable, "-m", "hearts", "serve", "--port", str(port), "--db", f"sqlite:///{folder}/t.db",
             "--bot-delay", "0.3", "--log-level", "error"], stdout=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.1)
            seats = [{"kind": "human", "name": "Ann"}] + [{"kind": "bot", "level": "hard"}] * 3
            table = post(base + "/api/tables", {"seats": seats})
            link = table["seats"][0]["link"]  # type: ignore[index]
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(viewport={"width": 1100, "height": 760})
                page.goto(str(link))
                page.wait_for_function("() => window.heartsState && window.heartsState.view.must_pass", timeout=30_000)
                view = page.evaluate("window.heartsState.view")
                for card in view["hand"][-view["pass_count"]:]:
                    page.click(f'#hand .card[data-card="{card}"]')
                page.click("#pass-btn")
                page.wait_for_function("() => !window.heartsState.view.must_pass", timeout=30_000)
                page.wait_for_function("() => { const v = window.heartsState.view;"
                                       " return v.to_move === v.seat && v.legal.length > 0; }", timeout=60_000)
                page.locator("#hand .card.legal").first.click()
                page.wait_for_timeout(1200)  # the bots answer: a trick on the table
                args.out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(args.out))
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
