#!/usr/bin/env python3
"""Event-stream fan-out of `catalog serve`: SUBSCRIBERS clients follow one catalogue's events while
a writer moves a book MOVES_PER_SECOND times a second for SECONDS seconds.

Checks that every subscriber sees every revision exactly once and in order (a coalesced event
counts for the revisions it covers: its fromRevision is the previous event's id), and measures the
time from each move's answer to each subscriber's event for it (p50, p99 over all), and the
server's resident memory per subscriber (after all connected, less before).

Usage: Scripts/sse-fanout.py PATH/TO/catalog [--subscribers 1000] [--moves-per-second 100] [--seconds 30]
"""
import argparse, catalog_server, http.client, json, multiprocessing, os, re, resource, selectors, socket, subprocess, tempfile, time

parser = argparse.ArgumentParser()
parser.add_argument("binary")
parser.add_argument("--subscribers", type=int, default=1000)
parser.add_argument("--moves-per-second", type=float, default=100)
parser.add_argument("--seconds", type=float, default=30)
args = parser.parse_args()
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.subscribers + 256)), hard))

db = catalog_server.fresh_database(args.binary)
server, port = catalog_server.serve(args.binary, db)
start = json.loads(subprocess.run([args.binary, "show", "bookshelf", "--json", "--db", db], capture_output=True, check=True).stdout)["revision"]

def rss():
    return catalog_server.memory(server.pid)

before = rss()
selector = selectors.DefaultSelector()
subscribers = []
for n in range(args.subscribers):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET /catalogs/bookshelf/events?since={start} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    s.setblocking(False)
    state = {"socket": s, "last": start, "buffer": b"", "bad": 0, "events": 0}
    subscribers.append(state)
    selector.register(s, selectors.EVENT_READ, state)
time.sleep(1)
connected = rss()

latencies = []

def writer(answered, seconds):
    """In a process of its own, so that reading the streams does not slow the writes."""
    connection = http.client.HTTPConnection("127.0.0.1", port)
    index = 0
    interval = 1 / args.moves_per_second
    next_at = time.monotonic()
    end = next_at + seconds
    while time.monotonic() < end:
        index = 1 - index
        connection.request("POST", "/catalogs/bookshelf/moves", body=json.dumps({"item": "b-karamazov", "toSection": "classics", "index": index}))
        response = connection.getresponse()
        body = json.loads(response.read())
        answered[body["revision"]] = time.monotonic()
        next_at += interval
        time.sleep(max(0, next_at - time.monotonic()))

event = re.compile(rb"id: (\d+)\ndata: \{[^\n]*?\"fromRevision\":(\d+)")
answered = multiprocessing.Manager().dict()  # revision -> time the move's answer arrived
process = multiprocessing.Process(target=writer, args=(answered, args.seconds))
process.start()
deadline = time.monotonic() + args.seconds
peak = connected
received = []  # (revision, time) of every event
sampled = 0.0
while time.monotonic() < deadline + 2:
    for key, _ in selector.select(timeout=0.1):
        state = key.data
        data = state["socket"].recv(1 << 16)
        now = time.monotonic()
        buffer = state["buffer"] + data
        cut = buffer.rfind(b"\n\n")
        if cut < 0:
            state["buffer"] = buffer
            continue
        for revision, origin in event.findall(buffer[:cut]):
            revision, origin = int(revision), int(origin)
            if origin != state["last"] or revision <= origin: state["bad"] += 1
            state["last"] = revision
            state["events"] += 1
            received.append((revision, now))
        state["buffer"] = buffer[cut + 2:]
    # Sampled, not read every pass: reading /proc costs the reader time it owes the streams.
    if time.monotonic() - sampled >= 0.25:
        peak = max(peak, rss())
        sampled = time.monotonic()
process.join()
after = rss()
answered = dict(answered)
latencies = [now - answered[revision] for revision, now in received if revision in answered]
final = max(answered) if answered else start
server.terminate()
server.wait()
latencies.sort()
behind = sum(1 for s in subscribers if s["last"] != final)
bad = sum(s["bad"] for s in subscribers)
p = lambda q: latencies[min(len(latencies) - 1, int(len(latencies) * q))] * 1000 if latencies else float("nan")
print(f"{args.subscribers} subscribers, {len(answered)} moves in {args.seconds:.0f} s: "
      f"{sum(s['events'] for s in subscribers)} events, {bad} out of order or with a gap, {behind} subscribers not at the last revision")
print(f"move answered → subscriber's event: p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms")
print(f"server memory: {before / 2**20:.0f} MB before, {connected / 2**20:.0f} MB with every subscriber, peak {peak / 2**20:.0f} MB "
      f"→ {(peak - before) / args.subscribers / 1024:.1f} KiB per subscriber at the peak; {after / 2**20:.0f} MB after the writes")
