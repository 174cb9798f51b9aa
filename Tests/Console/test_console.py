"""The browser console (docs/Console.md) driven in headless Chromium through selenium, against a
`catalog serve` of the test's own: import, the bookshelf drawn, books dragged between shelves
with real pointer events, a second window following live, a full shelf refusing, hostile
titles shown as text, and a server with a token.

Run: `python3 -m unittest discover -s Tests/Console -v` (needs chromium, chromium-driver and
selenium; .ci/run installs them). CATALOG_BIN names the `catalog` executable (default: the
debug build); CONSOLE_SCREENSHOT a PNG file to write the bookshelf's picture to.
"""

import json
import os
import tempfile
import time
import unittest
import urllib.parse

from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from console_support import (SAMPLE_DATA, Server, browser, cell, drawn_section, run_catalog, section_of, wait,
                             wait_for_css)


def drag(driver, item, target, offset=(0, 0)):
    """Drags a book with the pointer (pointerdown, moves, pointerup) onto `target`, at `offset` from its centre."""
    (ActionChains(driver, duration=50)
     .move_to_element(cell(driver, item)).click_and_hold()
     .move_by_offset(6, 6)
     .move_to_element_with_offset(target, *offset).move_by_offset(1, 1)
     .release().perform())


def import_file(driver, path):
    """Picks a file in the list's import control (the page PUTs it)."""
    wait_for_css(driver, "#import-file").send_keys(path)


def shelf(driver, section):
    return driver.find_element(By.CSS_SELECTOR, f'.decoration[data-section="{section}"]')


def open_bookshelf(driver, server):
    driver.get(server.url + "#/catalog/bookshelf?style=shelf&device=phone")
    wait(driver, lambda d: d.find_element(By.ID, "live").text == "live", "the event stream never opened")
    wait_for_css(driver, '.cell[data-id="b-moby"]')


class ConsoleTests(unittest.TestCase):
    def setUp(self):
        self.server = Server()
        self.drivers = []

    def tearDown(self):
        for driver in self.drivers:
            driver.quit()
        self.server.stop()

    def new_browser(self):
        driver = browser()
        self.drivers.append(driver)
        return driver

    def test_served_with_a_policy_that_allows_only_its_own_scripts(self):
        status, headers, body = self.server.request("GET", "/")
        self.assertEqual(status, 200)
        policy = headers["Content-Security-Policy"]
        self.assertIn("script-src 'self'", policy)
        self.assertNotIn("unsafe-inline", policy)
        self.assertIn("connect-src 'self'", policy)
        self.assertNotIn(b"<script>", body)  # no inline script: every script is a file of the server's
        status, headers, _ = self.server.request("GET", "/console/view.js")
        self.assertEqual((status, headers["Content-Type"]), (200, "text/javascript; charset=utf-8"))
        self.assertEqual(self.server.request("GET", "/console/nothing.js")[0], 404)

    def test_import_drag_to_another_shelf_and_a_second_window_sees_it(self):
        driver, second = self.new_browser(), self.new_browser()
        driver.get(self.server.url)
        import_file(driver, os.path.join(SAMPLE_DATA, "bookshelf.json"))
        row = wait_for_css(driver, 'tr[data-catalog="bookshelf"]')
        self.assertEqual([cell.text for cell in row.find_elements(By.TAG_NAME, "td")][:4], ["bookshelf", "1", "7", "18"])

        row.find_element(By.LINK_TEXT, "bookshelf").click()
        wait(driver, lambda d: d.find_element(By.ID, "live").text == "live", "the event stream never opened")
        open_bookshelf(second, self.server)
        self.assertEqual(drawn_section(driver, "b-moby"), "classics")

        # Moby-Dick onto the poetry shelf's free end, with the pointer.
        drag(driver, "b-moby", shelf(driver, "poetry"), offset=(120, 0))
        dropped = time.monotonic()
        wait(second, lambda d: drawn_section(d, "b-moby") == "poetry", "the second window never saw the move", patience=5)
        seen = time.monotonic() - dropped
        self.assertLess(seen, 1.0, f"the second window saw the move after {seen:.3f} s")
        wait(driver, lambda d: drawn_section(d, "b-moby") == "poetry", "the page never drew the move")
        stored = self.server.stored("bookshelf")
        self.assertEqual(section_of(stored, "b-moby"), ("poetry", 2))
        self.assertEqual(stored["revision"], 2)
        self.assertEqual(driver.find_element(By.ID, "revision").text, "2")
        self.assertEqual(second.find_element(By.ID, "revision").text, "2")
        self.assertIn("Moved “Moby-Dick” to “Poetry”", driver.find_element(By.ID, "status").text)
        # The header counts the shelf's books again.
        self.assertIn("3 of 4", driver.find_element(By.CSS_SELECTOR, '.header[data-section="poetry"]').text)

        screenshot = os.environ.get("CONSOLE_SCREENSHOT")
        if screenshot:
            driver.set_window_size(760, 1120)
            time.sleep(0.5)  # the cells' glide (250 ms) ends, so the picture shows them at rest
            driver.save_screenshot(screenshot)

    def test_a_view_is_sorted_and_filtered_live_and_dragging_is_off_while_sorted(self):
        run_catalog("import", os.path.join(SAMPLE_DATA, "videos.json"), "--db", self.server.database)
        driver = self.new_browser()
        driver.get(self.server.url + "#/catalog/videos?style=flow&device=phone")
        wait(driver, lambda d: d.find_element(By.ID, "live").text == "live", "the event stream never opened")
        # The bar above the layout: a filter and a sort, shown by the Show button.
        driver.find_element(By.ID, "view-where").send_keys('status = "published"')
        driver.find_element(By.ID, "view-sort").send_keys("-playCount")
        driver.find_element(By.ID, "view-apply").click()
        wait(driver, lambda d: "sort=" in d.current_url and d.find_element(By.ID, "live").text == "live", "the view never opened")
        published = sorted((item for section in self.server.stored("videos")["sections"] for item in section["items"]
                            if item["status"] == "published"), key=lambda item: -item["playCount"])
        first = "const cells = [...document.querySelectorAll('.cell')].filter((n) => !n.hidden);" \
                "cells.sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index)); return cells.map((n) => n.dataset.id);"
        wait(driver, lambda d: d.execute_script(first)[:3] == [item["id"] for item in published[:3]], "the view is not sorted by plays")
        self.assertLessEqual(set(driver.execute_script(first)), {item["id"] for item in published}, "a cell the filter drops")
        self.assertIn("Dragging is off while the view is sorted", driver.find_element(By.ID, "view-message").text)
        # Live: another client's write makes the least played published video the most played.
        last = published[-1]["id"]
        status, _, _ = self.server.request("POST", "/catalogs/videos/batches",
                                           {"operations": [{"op": "updateItem", "id": last, "fields": {"playCount": 99999999}}]})
        self.assertEqual(status, 200)
        wait(driver, lambda d: d.execute_script(first)[:1] == [last], "the view never moved the video to the top")
        # A filter alone keeps the stored order: dragging stays on.
        driver.get(self.server.url + "#/catalog/videos?style=flow&device=phone&where=" + urllib.parse.quote('status = "published"'))
        wait(driver, lambda d: d.find_element(By.ID, "live").text == "live", "the filtered view never opened")
        self.assertEqual(driver.find_element(By.ID, "view-message").text, "")
        # A view the server refuses says why under the bar, which stays.
        driver.get(self.server.url + "#/catalog/videos?style=flow&device=phone&where=" + urllib.parse.quote('playCount contains "x"'))
        wait(driver, lambda d: "contains needs a text field" in d.find_element(By.ID, "view-message").text,
             "the refusal was never shown")
        self.assertEqual(driver.find_element(By.ID, "view-where").get_attribute("value"), 'playCount contains "x"')

    def test_a_full_shelf_refuses_with_its_reason_and_offers_displace_or_swap(self):
        run_catalog("import", os.path.join(SAMPLE_DATA, "bookshelf.json"), "--db", self.server.database)
        driver = self.new_browser()
        open_bookshelf(driver, self.server)
        before = self.server.stored("bookshelf")
        self.assertEqual(section_of(before, "b-joy"), ("cooking", 1))

        # Leaves of Grass onto The Joy of Cooking, on the full cooking shelf: refused, and nothing changes.
        drag(driver, "b-leaves", cell(driver, "b-joy"))
        dialog = wait_for_css(driver, "#full-dialog[open]")
        reason = driver.find_element(By.ID, "full-reason").text
        self.assertIn('shelf "cooking" is full', reason)
        self.assertIn("at most 4 books", reason)
        driver.find_element(By.ID, "full-cancel").click()
        wait(driver, lambda d: not dialog.get_attribute("open"), "the dialog stayed open")
        self.assertEqual(self.server.stored("bookshelf"), before)
        self.assertEqual(drawn_section(driver, "b-leaves"), "poetry")
        self.assertIn("Not moved", driver.find_element(By.ID, "status").text)

        # Again, and this time swap: The Joy of Cooking takes the book's old place.
        drag(driver, "b-leaves", cell(driver, "b-joy"))
        wait_for_css(driver, "#full-dialog[open]")
        driver.find_element(By.ID, "full-swap").click()
        wait(driver, lambda d: drawn_section(d, "b-leaves") == "cooking" and drawn_section(d, "b-joy") == "poetry",
             "the page never drew the swap")
        after = self.server.stored("bookshelf")
        self.assertEqual(section_of(after, "b-leaves"), ("cooking", 1))
        self.assertEqual(section_of(after, "b-joy"), ("poetry", 0))
        self.assertEqual(after["revision"], before["revision"] + 1)

    def test_a_book_dragged_to_the_viewports_edge_scrolls_to_a_shelf_far_below(self):
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "long.json")
        with open(path, "w") as file:
            json.dump({"catalog": "long", "sections": [
                {"id": f"s{s}", "kind": "bookshelf", "title": f"Shelf {s}", "capacity": 4, "items": [
                    {"id": f"b{s}-{i}", "title": f"Book {s}.{i}", "cover": f"{s}-{i}"} for i in range(2)]}
                for s in range(60)]}, file)
        run_catalog("import", path, "--db", self.server.database)
        driver = self.new_browser()
        driver.get(self.server.url + "#/catalog/long?style=shelf&device=phone")
        wait(driver, lambda d: d.find_element(By.ID, "live").text == "live", "the event stream never opened")
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, '.decoration[data-section="s30"]'), [])  # far below

        # Hold the book at the viewport's lower edge until a shelf from 30 on is well in view, then
        # drop it there. (Any of them: however slowly this test polls, one is in view.)
        viewport = driver.find_element(By.ID, "viewport")
        book = cell(driver, "b0-0")
        edge = viewport.rect["y"] + viewport.rect["height"] - 30 - (book.rect["y"] + book.rect["height"] / 2)
        ActionChains(driver, duration=50).move_to_element(book).click_and_hold().move_by_offset(0, 10).move_by_offset(0, edge - 10).perform()

        # Read in the page in one step: the boards come and go as the viewport scrolls.
        far_shelf_in_view = """
            const screen = document.getElementById("viewport").getBoundingClientRect();
            for (const board of document.querySelectorAll(".decoration")) {
              const box = board.getBoundingClientRect();
              if (Number(board.dataset.section.slice(1)) >= 30 && box.top > screen.top + 150 && box.bottom < screen.bottom - 60)
                return [board.dataset.section, Math.round(box.left + box.width / 2 + 120), Math.round(box.top + box.height / 2)];
            }
            return null;"""
        target, x, y = wait(driver, lambda d: d.execute_script(far_shelf_in_view),
                            "the viewport never scrolled to shelf 30 while the book was held at its edge", patience=300)
        drop = ActionBuilder(driver)
        drop.pointer_action.move_to_location(x, y)
        drop.pointer_action.release()
        drop.perform()
        wait(driver, lambda d: section_of(self.server.stored("long"), "b0-0") == (target, 2), f"the book never reached {target}")
        wait(driver, lambda d: drawn_section(d, "b0-0") == target, f"the page never drew the book on {target}")

    def test_a_book_is_moved_with_the_keyboard_too(self):
        run_catalog("import", os.path.join(SAMPLE_DATA, "bookshelf.json"), "--db", self.server.database)
        driver = self.new_browser()
        open_bookshelf(driver, self.server)
        driver.execute_script("document.querySelector('.cell[data-id=\"b-moby\"]').focus()")
        book = driver.switch_to.active_element
        self.assertEqual(book.get_attribute("data-id"), "b-moby")
        # Picked up; three shelves down (science, cooking, poetry); right to the end; put there.
        book.send_keys(Keys.ENTER)
        self.assertIn("Picked up “Moby-Dick”", driver.find_element(By.ID, "status").text)
        for key in [Keys.ARROW_DOWN] * 3 + [Keys.ARROW_RIGHT] * 5:
            book.send_keys(key)
        self.assertIn("to “Poetry”, place 3", driver.find_element(By.ID, "status").text)
        book.send_keys(Keys.ENTER)
        wait(driver, lambda d: drawn_section(d, "b-moby") == "poetry", "the keyboard's move was never drawn")
        self.assertEqual(section_of(self.server.stored("bookshelf"), "b-moby"), ("poetry", 2))

        # Escape leaves a picked-up book where it is.
        revision = self.server.stored("bookshelf")["revision"]
        book = cell(driver, "b-pride")
        driver.execute_script("arguments[0].focus()", book)
        book.send_keys(Keys.ENTER, Keys.ARROW_DOWN, Keys.ESCAPE)
        self.assertIn("stays where it is", driver.find_element(By.ID, "status").text)
        self.assertEqual(self.server.stored("bookshelf")["revision"], revision)

    def test_a_stale_revision_is_said_and_the_catalogue_read_again(self):
        run_catalog("import", os.path.join(SAMPLE_DATA, "bookshelf.json"), "--db", self.server.database)
        driver = self.new_browser()
        # The page does not hear of the write below: its event stream is blocked.
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/events*"]})
        driver.get(self.server.url + "#/catalog/bookshelf?style=shelf&device=phone")
        wait_for_css(driver, '.cell[data-id="b-moby"]')
        status, _, written = self.server.request("POST", "/catalogs/bookshelf/moves", {"item": "b-moby", "toSection": "poetry"})
        self.assertEqual((status, written["revision"]), (200, 2))
        self.assertEqual(driver.find_element(By.ID, "revision").text, "1")

        # Pride and Prejudice onto the poetry shelf, from revision 1: refused, said, and drawn as the store has it.
        drag(driver, "b-pride", shelf(driver, "poetry"), offset=(150, 0))
        wait(driver, lambda d: d.find_element(By.ID, "revision").text == "2", "the page never read the catalogue again")
        self.assertIn("changed while you dragged", driver.find_element(By.ID, "status").text)
        self.assertEqual(drawn_section(driver, "b-moby"), "poetry")
        self.assertEqual(drawn_section(driver, "b-pride"), "classics")
        stored = self.server.stored("bookshelf")
        self.assertEqual((stored["revision"], section_of(stored, "b-pride")[0]), (2, "classics"))

    def test_in_a_circular_layout_books_appear_from_the_centre_and_go_into_it(self):
        run_catalog("import", os.path.join(SAMPLE_DATA, "bookshelf.json"), "--db", self.server.database)
        driver = self.new_browser()
        driver.get(self.server.url + "#/catalog/bookshelf?style=circular&device=phone")
        wait(driver, lambda d: d.find_element(By.ID, "live").text == "live", "the event stream never opened")
        wait_for_css(driver, '.cell[data-id="b-pride"]')
        # Every style the two books take, as the page sets it: the style before each change, and
        # the last one of a book taken out of the page.
        driver.execute_script("""
            window.styles = {"b-new": [], "b-pride": []};
            new MutationObserver(records => {
                for (const record of records) {
                    if (record.type === "attributes" && record.target.dataset.id in window.styles) {
                        window.styles[record.target.dataset.id].push(record.oldValue);
                    }
                    for (const node of record.removedNodes) {
                        if (node.dataset && node.dataset.id in window.styles) window.styles[node.dataset.id].push(node.getAttribute("style"));
                    }
                }
            }).observe(document.querySelector(".content"),
                       {subtree: true, childList: true, attributes: true, attributeFilter: ["style"], attributeOldValue: true});
        """)
        status, _, _ = self.server.request("POST", "/catalogs/bookshelf/batches", {"operations": [
            {"op": "insertItem", "section": "poetry", "index": 0,
             "item": {"id": "b-new", "kind": "book", "title": "New", "cover": "new"}},
            {"op": "deleteItem", "id": "b-pride"}]})
        self.assertEqual(status, 200)
        wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, '.cell[data-id="b-pride"]'), "the deleted book stayed", patience=5)
        styles = driver.execute_script("return window.styles")
        new = cell(driver, "b-new")
        width, height = new.size["width"], new.size["height"]
        # The phone's viewport is 390×844: the circle's centre is (195, 422).
        centred = f"translate({195 - width / 2:g}px, {422 - height / 2:g}px)"
        self.assertTrue(any(centred in style and "opacity: 0" in style for style in styles["b-new"] if style),
                        f"the new book never started at the centre ({centred}): {styles['b-new']}")
        self.assertNotIn(centred, new.get_attribute("style"), "the new book stayed at the centre")
        self.assertIn(centred, styles["b-pride"][-1], f"the deleted book did not go into the centre: {styles['b-pride']}")
        self.assertIn("opacity: 0", styles["b-pride"][-1])

    def test_an_import_error_reads_as_the_command_line_words_it(self):
        folder = tempfile.mkdtemp()
        bad = os.path.join(folder, "bad.json")
        with open(bad, "w") as file:
            json.dump({"catalog": "bad", "sections": [{"id": "a", "kind": "bookshelf", "items": [
                {"id": "b1", "title": 5, "cover": "c"}]}]}, file)
        cli = run_catalog("import", "bad.json", "--db", "other.sqlite", check=False, cwd=folder)
        self.assertNotEqual(cli.returncode, 0)
        expected = cli.stderr.strip().splitlines()[0]
        self.assertEqual(expected, "error: bad.json: sections[0].items[0].title: expected a string, found the integer 5")

        driver = self.new_browser()
        driver.get(self.server.url)
        import_file(driver, bad)
        wait(driver, lambda d: d.find_element(By.ID, "import-result").get_attribute("class") == "problem", "no error shown")
        self.assertEqual(driver.find_element(By.ID, "import-result").text, expected)
        self.assertEqual(self.server.request("GET", "/catalogs")[2], [])

    def test_a_hostile_title_is_shown_as_text(self):
        hostile = "<img src=x onerror=alert(1)>"
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "bookshelf.json")
        with open(path, "w") as file:
            json.dump({"catalog": "bookshelf", "sections": [
                {"id": "odd", "kind": "bookshelf", "title": "<b>shelf</b><script>alert(2)</script>", "capacity": 4, "items": [
                    {"id": "b-moby", "title": hostile, "cover": "x"}]}]}, file)
        driver = self.new_browser()
        driver.get(self.server.url)
        import_file(driver, path)
        wait_for_css(driver, 'tr[data-catalog="bookshelf"]')
        open_bookshelf(driver, self.server)
        self.assertEqual(cell(driver, "b-moby").text, hostile)
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, '.header[data-section="odd"] .title').text,
                         "<b>shelf</b><script>alert(2)</script>")
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, "#content img, #content b, #content script"), [])
        with self.assertRaises(NoAlertPresentException):
            driver.switch_to.alert.text


class TokenTests(unittest.TestCase):
    def setUp(self):
        self.server = Server("--token", "s3cret-token", "--protect-reads")
        run_catalog("import", os.path.join(SAMPLE_DATA, "bookshelf.json"), "--db", self.server.database)
        self.driver = browser()

    def tearDown(self):
        self.driver.quit()
        self.server.stop()

    def test_without_the_token_the_page_is_refused_and_with_it_works(self):
        # The page's files carry no data and are served; the API is not, without the token.
        self.assertEqual(self.server.request("GET", "/")[0], 200)
        self.assertEqual(self.server.request("GET", "/catalogs")[0], 401)

        driver = self.driver
        driver.get(self.server.url)
        wait_for_css(driver, "#token-dialog[open]")
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, 'tr[data-catalog="bookshelf"]'), [])

        driver.find_element(By.ID, "token-input").send_keys("wrong")
        driver.find_element(By.ID, "token-use").click()
        wait(driver, lambda d: "refused" in d.find_element(By.ID, "token-reason").text, "a wrong token was not refused")
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, 'tr[data-catalog="bookshelf"]'), [])

        driver.find_element(By.ID, "token-input").send_keys("s3cret-token")
        driver.find_element(By.ID, "token-use").click()
        wait_for_css(driver, 'tr[data-catalog="bookshelf"]')
        self.assertNotIn("s3cret", driver.current_url)

        # The catalogue, its live stream and a move all go with the token (as a header).
        open_bookshelf(driver, self.server)
        drag(driver, "b-moby", shelf(driver, "poetry"), offset=(120, 0))
        wait(driver, lambda d: drawn_section(d, "b-moby") == "poetry", "the move with the token was not drawn")
        self.assertEqual(section_of(self.server.stored("bookshelf"), "b-moby")[0], "poetry")
        self.assertNotIn("s3cret", driver.current_url)


if __name__ == "__main__":
    unittest.main()


class ScopedTokenTests(unittest.TestCase):
    """A token of the file (`catalog token new`) that may only read: the console says which scope it
    holds, offers no import, and moves no book; one that may write moves books and still offers no
    import (that needs admin)."""

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="catalog-tokens-")
        tokens = os.path.join(folder, "tokens")
        self.reader = run_catalog("token", "new", "reader", "--scope", "read", "--file", tokens).stdout.strip()
        self.writer = run_catalog("token", "new", "shelver", "--scope", "write", "--catalog", "bookshelf", "--file", tokens).stdout.strip()
        self.server = Server("--token-file", tokens, "--protect-reads")
        run_catalog("import", os.path.join(SAMPLE_DATA, "bookshelf.json"), "--db", self.server.database)
        self.driver = browser()

    def tearDown(self):
        self.driver.quit()
        self.server.stop()

    def give(self, token):
        driver = self.driver
        wait_for_css(driver, "#token-dialog[open]")
        driver.find_element(By.ID, "token-input").send_keys(token)
        driver.find_element(By.ID, "token-use").click()

    def sign_in(self, token, access):
        """Opens the list with `token` given in the dialog; the header shows `access`, and no import is offered."""
        driver = self.driver
        driver.get(self.server.url)
        self.give(token)
        wait_for_css(driver, 'tr[data-catalog="bookshelf"]')
        wait(driver, lambda d: d.find_element(By.ID, "access").text == access, "the scope is not shown")
        self.assertEqual(driver.find_elements(By.ID, "import"), [])
        return driver

    def test_a_read_token_shows_its_scope_and_offers_no_writes(self):
        driver = self.sign_in(self.reader, "catalogs:read (reader)")
        self.assertIn("catalogs:admin", driver.find_element(By.ID, "import-refused").text)

        open_bookshelf(driver, self.server)
        drag(driver, "b-moby", shelf(driver, "poetry"), offset=(120, 0))
        wait(driver, lambda d: "catalogs:write" in d.find_element(By.ID, "status").text, "the refused move was not explained")
        self.assertEqual(drawn_section(driver, "b-moby"), "classics")
        self.assertEqual(section_of(self.server.stored("bookshelf"), "b-moby")[0], "classics")

    def test_a_write_token_moves_books_but_does_not_import(self):
        driver = self.sign_in(self.writer, "catalogs:write on bookshelf (shelver)")
        open_bookshelf(driver, self.server)
        drag(driver, "b-moby", shelf(driver, "poetry"), offset=(120, 0))
        wait(driver, lambda d: drawn_section(d, "b-moby") == "poetry", "the move with a write token was not drawn")
        self.assertEqual(section_of(self.server.stored("bookshelf"), "b-moby")[0], "poetry")
