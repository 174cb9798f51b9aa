"""What the load scripts share: a fresh database and a `catalog serve` on a free port."""
import os, re, subprocess, tempfile

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "SampleData")


def fresh_database(binary, demo=True):
    """A new database file in a scratch folder, holding the demo's catalogues when `demo`."""
    db = os.path.join(tempfile.mkdtemp(), "catalog.sqlite")
    if demo:
        subprocess.run([binary, "demo", "--db", db, "--samples", SAMPLES], check=True, stdout=subprocess.DEVNULL)
    return db


def serve(binary, db):
    """`catalog serve` on `db` and a free port: (process, port)."""
    server = subprocess.Popen([binary, "serve", "--port", "0", "--db", db, "--log-level", "warning"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return server, int(re.search(r":(\d+) ", server.stdout.readline()).group(1))


def memory(pid, field="VmRSS"):
    """A memory figure of the process from /proc, in bytes (VmRSS now, VmHWM at the peak)."""
    with open(f"/proc/{pid}/status") as status:
        return int(next(line for line in status if line.startswith(field)).split()[1]) * 1024
