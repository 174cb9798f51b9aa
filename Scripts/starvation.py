#!/usr/bin/env python3
"""Whether expensive reads starve everything else on `catalog serve`.

Imports a 100,000-book catalogue (1,000 shelves) beside the demo's, then runs CLIENTS clients
that loop the most expensive layout requests there are on the large one — a waterfall picture of
the whole catalogue (refused: too many elements) and pictures of the visible part at a fresh
offset each time (never cached) — while one client reads the demo bookshelf's snapshot and
another moves its books, for SECONDS seconds. Prints the
median and p99 latency of the snapshot reads and the moves, beside a baseline of the same reads
and moves with no picture load, measured in the same run.

Usage: Scripts/starvation.py PATH/TO/catalog [--clients 8] [--seconds 10] [--json]
"""
import argparse, catalog_server, http.client, json, os, random, re, subprocess, tempfile, threading, time, urllib.parse

parser = argparse.ArgumentParser()
parser.add_argument("binary")
parser.add_argument("--clients", type=int, default=8)
parser.add_argument("--seconds", type=float, default=10)
parser.add_argument("--json", action="store_true")
args = parser.parse_args()

db = catalog_server.fresh_database(args.binary, demo=False)
file = os.path.join(os.path.dirname(db), "books.json")
subprocess.run([args.binary, "generate", "--items", "100000", "--sections", "1000", "--kind", "bookshelf",
                "--name", "books", "--out", file], check=True, stdout=subprocess.DEVNULL)
subprocess.run([args.binary, "import", file, "--db", db], check=True, stdout=subprocess.DEVNULL)
subprocess.run([args.binary, "import", os.path.join(catalog_server.SAMPLES, "bookshelf.json"), "--db", db],
               check=True, stdout=subprocess.DEVNULL)
server, port = catalog_server.serve(args.binary, db)
snapshot = json.loads(subprocess.run([args.binary, "show", "bookshelf", "--json", "--db", db], capture_output=True, check=True).stdout)
first_shelf = snapshot["sections"][0]
book, shelf = first_shelf["items"][0]["id"], first_shelf["id"]

def percentile(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * fraction))] * 1000 if values else float("nan")

def measure(seconds, load):
    stop = threading.Event()
    reads, moves, pictures = [], [], []

    def loop(record, request):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while not stop.is_set():
            method, path, body, headers = request()
            started = time.monotonic()
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            record.append((time.monotonic() - started, response.status))
            if record is not pictures:
                time.sleep(0.01)

    config = urllib.parse.quote(json.dumps({"style": "waterfall", "columns": 3}))
    def picture():
        if random.random() < 0.5:
            return "GET", f"/catalogs/books/layout?config={config}&width=390&height=844", None, {"Accept": "image/svg+xml"}
        offset = random.randint(0, 4_000_000)
        return ("GET", f"/catalogs/books/layout?config={config}&width=390&height=844&visible=true&offset=0,{offset}",
                None, {"Accept": "image/svg+xml"})
    index = [0]
    def move():
        index[0] = 1 - index[0]
        return "POST", "/catalogs/bookshelf/moves", json.dumps({"item": book, "toSection": shelf, "index": index[0]}), {}

    threads = [threading.Thread(target=loop, args=(reads, lambda: ("GET", "/catalogs/bookshelf", None, {}))),
               threading.Thread(target=loop, args=(moves, move))]
    threads += [threading.Thread(target=loop, args=(pictures, picture)) for _ in range(load)]
    for thread in threads: thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads: thread.join()
    bad = [s for _, s in reads + moves if s != 200]
    return {"reads": [t for t, _ in reads], "moves": [t for t, _ in moves], "pictures": len(pictures),
            "picture_statuses": sorted({s for _, s in pictures}), "errors": len(bad)}

baseline = measure(args.seconds / 2, 0)
loaded = measure(args.seconds, args.clients)
server.terminate()
server.wait()
rows = []
for case, key in (("snapshot GET", "reads"), ("move", "moves")):
    rows.append({"case": f"{case} p99 with {args.clients} clients looping pictures", "p99_ms": round(percentile(loaded[key], 0.99), 2),
                 "median_ms": round(percentile(loaded[key], 0.5), 2), "baseline_p99_ms": round(percentile(baseline[key], 0.99), 2),
                 "baseline_median_ms": round(percentile(baseline[key], 0.5), 2), "requests": len(loaded[key])})
if args.json:
    print(json.dumps(rows))
else:
    for row in rows:
        print(f"{row['case']}: median {row['median_ms']} ms, p99 {row['p99_ms']} ms over {row['requests']} requests "
              f"(no load: median {row['baseline_median_ms']} ms, p99 {row['baseline_p99_ms']} ms)")
    print(f"pictures answered: {loaded['pictures']} (statuses {loaded['picture_statuses']}); errors on reads and moves: {loaded['errors'] + baseline['errors']}")
