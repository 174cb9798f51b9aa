"""The console's figures in BENCHMARKS.md, measured in headless Chromium: the first screen of a
100,000-item catalogue, and how long an update to it takes to be applied in the page.

    swift build -c release --product catalog
    CATALOG_BIN=.build/release/catalog python3 Tests/Console/bench_console.py

The catalogue is `catalog generate --items 100000 --sections 25000 --kind bookshelf`, imported
with the command line; `catalog serve` runs in its own process, and the writes come from this
one over HTTP, as an editor's would.

- first screen: `performance.now()` in the page when the view has drawn its first layout (from
  the navigation's start: the page, its modules, the layout request and the drawing), over fresh
  page loads; the first load after the server starts reads the catalogue from the database.
- scroll: from setting the viewport's offset 5,000 points further to the page holding the
  elements around it (a layout request with the rect, and the drawing), over 40 jumps.
- update: the page's own figure, from the event's arrival to the new frames being in the page
  (the layout asked for again and drawn; the 250 ms glide starts then), and write → drawn: from
  this process sending the move to that moment, on the machine's clock.
"""

import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from console_support import Server, browser, run_catalog, wait, wait_for_css  # noqa: E402

ITEMS, SECTIONS, LOADS, UPDATES = 100_000, 25_000, 10, 100


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    folder = tempfile.mkdtemp(prefix="catalog-console-bench-")
    path = os.path.join(folder, "big.json")
    run_catalog("generate", "--items", str(ITEMS), "--sections", str(SECTIONS), "--kind", "bookshelf", "--name", "big", "--out", path)
    database = os.path.join(folder, "catalog.sqlite")
    run_catalog("import", path, "--db", database)
    server = Server(database=database)
    driver = browser()
    try:
        url = server.url + "#/catalog/big?style=shelf&device=phone"
        loads = []
        for _ in range(LOADS):
            driver.get("about:blank")
            driver.get(url)
            wait(driver, lambda d: d.execute_script("return window.catalogConsole && window.catalogConsole.firstScreen"),
                 "the first screen was never drawn")
            loads.append(driver.execute_script("return window.catalogConsole.firstScreen"))
        cells = driver.execute_script("return document.querySelectorAll('.cell').length")
        wait(driver, lambda d: d.find_element("id", "live").text == "live", "the event stream never opened")

        # Scrolling: jumps of 5,000 points down the catalogue, each timed from the scroll to the
        # page holding the elements of the new rect (one layout request: the rect query).
        scrolls = []
        for n in range(1, 41):
            took = driver.execute_async_script("""
                const [y, done] = arguments;
                const viewport = document.getElementById("viewport");
                const start = performance.now();
                viewport.scrollTop = y;
                const wanted = Math.max(0, viewport.scrollTop - viewport.clientHeight);
                (function check() {
                  const draw = window.catalogConsole.lastDraw;
                  if (draw && draw.at > start && Math.abs(draw.rect[1] - wanted) < 1) done(draw.at - start);
                  else setTimeout(check, 1);
                })();
            """, n * 5000)
            scrolls.append(took)

        # Swap the first shelf's first book with the second shelf's, back and forth: both on screen.
        in_page, end_to_end = [], []
        status, _, snapshot = server.request("GET", "/catalogs/big/layout?config=%7B%22style%22%3A%22shelf%22%7D&width=390&height=844&visible=true&include=items")
        first = [e for e in snapshot["elements"] if e["kind"] == "cell"][:1][0]
        book, sections = first["id"], ["s2", "s1"]
        for n in range(UPDATES):
            sent = time.time() * 1000
            status, _, written = server.request("POST", "/catalogs/big/moves",
                                                {"item": book, "toSection": sections[n % 2], "index": 0, "policy": "swap"})
            assert status == 200, written
            revision = written["revision"]
            wait(driver, lambda d: (d.execute_script("return window.catalogConsole.lastUpdate") or {}).get("revision", 0) >= revision,
                 f"revision {revision} was never drawn")
            update = driver.execute_script("return window.catalogConsole.lastUpdate")
            in_page.append(update["milliseconds"])
            end_to_end.append(update["drawnAt"] - sent)
            time.sleep(0.3)  # the glide ends before the next write, as an editor's would
        print(f"catalogue: {ITEMS:,} items on {SECTIONS:,} shelves; cells in the page: {cells}")
        print(f"first screen (ms, {LOADS} loads): first {loads[0]:.0f}, median {statistics.median(loads):.0f}, max {max(loads):.0f}; all: {[round(x) for x in loads]}")
        for label, values in [("scroll → drawn", scrolls), ("update, event → drawn", in_page), ("update, write → drawn", end_to_end)]:
            print(f"{label} (ms, {len(values)} times): p50 {percentile(values, 0.5):.1f}, p99 {percentile(values, 0.99):.1f}, max {max(values):.1f}")
    finally:
        driver.quit()
        server.stop()


if __name__ == "__main__":
    main()
