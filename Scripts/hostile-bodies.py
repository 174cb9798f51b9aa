#!/usr/bin/env python3
"""Peak memory of `catalog serve` under hostile request bodies, and whether it keeps answering.

Starts the server on a fresh database (the demo's catalogues), sends CONCURRENT bodies of
BODY_MIB MiB at once — arrays of one-element arrays, arrays of short strings, batches of many
operations — and meanwhile asks GET /catalogs/bookshelf every 50 ms. Prints the server's peak
resident memory (VmHWM), the answers the hostile requests got, and the latency of the reads.

Usage: Scripts/hostile-bodies.py PATH/TO/catalog [--concurrent 8] [--body-mib 16]
"""
import argparse, catalog_server, http.client, os, re, subprocess, sys, tempfile, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("binary")
parser.add_argument("--concurrent", type=int, default=8)
parser.add_argument("--body-mib", type=int, default=16)
parser.add_argument("--json", action="store_true")
args = parser.parse_args()

server, port = catalog_server.serve(args.binary, catalog_server.fresh_database(args.binary))

def rss(field):
    return catalog_server.memory(server.pid, field) >> 20

size = (args.body_mib << 20) - 1024  # just under the default body limit
bodies = [
    ("PUT", "/catalogs/arrays", "application/json", b"[" + b"[0]," * (size // 4 - 1) + b"[0]]"),
    ("PUT", "/catalogs/strings", "application/json", b"[" + b'"a",' * (size // 4 - 1) + b'"a"]'),
    ("POST", "/catalogs/bookshelf/batches", "application/json",
     b'{"operations": [' + b'{"op": "deleteItem", "id": "x"},' * (size // 32 - 1) + b'{"op": "deleteItem", "id": "x"}]}'),
]
baseline = rss("VmRSS")
answers, latencies, failures = [], [], []
done = threading.Event()

def hostile(index):
    method, path, kind, body = bodies[index % len(bodies)]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    started = time.monotonic()
    try:
        connection.request(method, path, body=body, headers={"Content-Type": kind})
        response = connection.getresponse()
        response.read()
        answers.append((path, response.status, time.monotonic() - started))
    except Exception as error:
        answers.append((path, f"error {error}", time.monotonic() - started))

def reader():
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while not done.is_set():
        started = time.monotonic()
        try:
            connection.request("GET", "/catalogs/bookshelf")
            response = connection.getresponse()
            response.read()
            (latencies if response.status == 200 else failures).append(time.monotonic() - started)
        except Exception:
            failures.append(time.monotonic() - started)
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        time.sleep(0.05)

read_thread = threading.Thread(target=reader)
read_thread.start()
threads = [threading.Thread(target=hostile, args=(i,)) for i in range(args.concurrent)]
for thread in threads: thread.start()
for thread in threads: thread.join()
time.sleep(0.3)
done.set()
read_thread.join()
peak = rss("VmHWM")
server.terminate()
server.wait()
latencies.sort()
p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000 if latencies else float("nan")
print(f"{args.concurrent} concurrent {args.body_mib} MiB bodies: peak RSS {peak} MB (at rest {baseline} MB)")
for path, status, seconds in sorted(answers):
    print(f"  {path}: {status} after {seconds:.2f} s")
print(f"GET /catalogs/bookshelf meanwhile: {len(latencies)} answered, {len(failures)} failed, "
      f"median {latencies[len(latencies) // 2] * 1000:.1f} ms, p99 {p99:.1f} ms" if latencies else "no reads answered")
sys.exit(0 if peak <= 300 and not failures else 1)
