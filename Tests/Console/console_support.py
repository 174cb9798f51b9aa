"""What the console's browser tests and benchmark share: a `catalog serve` of their own on a
temporary database, headless Chromium through selenium, and the store read back through the
`catalog` command line (not through the page)."""

import json
import os
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLE_DATA = os.path.join(REPOSITORY, "SampleData")
# Generous: every wait ends as soon as its condition holds, so a slow machine only waits longer.
PATIENCE = 30


def catalog_binary():
    """The `catalog` executable: $CATALOG_BIN, or the debug build's."""
    binary = os.environ.get("CATALOG_BIN") or os.path.join(REPOSITORY, ".build", "debug", "catalog")
    if not os.access(binary, os.X_OK):
        raise RuntimeError(f"no catalog executable at {binary}: run `swift build --product catalog` or set CATALOG_BIN")
    return binary


def run_catalog(*arguments, check=True, cwd=None):
    """Runs the command line; answers the finished process (stdout and stderr as text)."""
    return subprocess.run([catalog_binary(), *arguments], capture_output=True, text=True, check=check, timeout=600, cwd=cwd)


class Server:
    """`catalog serve` on a free port and a database of its own, stopped by `stop()`."""

    def __init__(self, *arguments, database=None):
        self.folder = tempfile.mkdtemp(prefix="catalog-console-")
        self.database = database or os.path.join(self.folder, "catalog.sqlite")
        self.log = open(os.path.join(self.folder, "serve.log"), "w")
        self.process = subprocess.Popen(
            [catalog_binary(), "serve", "--db", self.database, "--port", "0", *arguments],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline()
        # "catalog serve: listening on http://127.0.0.1:PORT (database …); the console: http://127.0.0.1:PORT/"
        if "listening on http://" not in line:
            self.stop()
            raise RuntimeError(f"catalog serve did not start: {line!r}; see {self.log.name}")
        self.url = line.split("the console: ")[1].strip()
        self.base = self.url.rstrip("/")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process.stdout.close()
        self.log.close()

    def request(self, method, path, body=None, headers=None):
        """An HTTP request from outside the browser; answers (status, headers, parsed body)."""
        data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers or {})
        if isinstance(body, (dict, list)):
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.headers, _parsed(response.read(), response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.headers, _parsed(error.read(), error.headers)

    def stored(self, name):
        """The catalogue as the database holds it, read by `catalog show --json` (not by the server)."""
        return json.loads(run_catalog("show", name, "--json", "--db", self.database).stdout)


def _parsed(body, headers):
    return json.loads(body) if "json" in (headers.get("Content-Type") or "") and body else body


def section_of(catalog, item):
    """The id of the section holding `item`, and its index there."""
    for section in catalog["sections"]:
        for index, candidate in enumerate(section["items"]):
            if candidate["id"] == item:
                return section["id"], index
    return None, None


def browser(width=1280, height=1300):
    """Headless Chromium (Debian's chromium and chromium-driver) through selenium."""
    options = Options()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}"]:
        options.add_argument(argument)
    if os.path.exists("/usr/bin/chromium"):
        options.binary_location = "/usr/bin/chromium"
    driver_path = "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None
    driver = webdriver.Chrome(service=Service(driver_path) if driver_path else Service(), options=options)
    driver.set_script_timeout(PATIENCE)
    return driver


def wait(driver, condition, message, patience=PATIENCE):
    return WebDriverWait(driver, patience, poll_frequency=0.02).until(condition, message)


def wait_for_css(driver, selector, patience=PATIENCE):
    return wait(driver, conditions.presence_of_element_located((By.CSS_SELECTOR, selector)),
                f"nothing matches {selector}", patience)


def cell(driver, item):
    return driver.find_element(By.CSS_SELECTOR, f'.cell[data-id="{item}"]')


def drawn_section(driver, item):
    """The section the page draws `item` in, or None."""
    return driver.execute_script(
        "const node = document.querySelector(`.cell[data-id=\"${arguments[0]}\"]`); return node ? node.dataset.section : null;", item)
