// The console's entry: routes (#/, #/catalog/NAME, #/catalog/NAME/history) and the token dialog.

import { accessSummary, ApiError, loadAccess } from "./api.js";
import { el, say, show } from "./dom.js";
import { showHistory } from "./history.js";
import { showList } from "./list.js";
import { askForToken } from "./token.js";
import { CatalogView } from "./view.js";

/** What tests and benchmarks read: when the first screen was drawn, how long updates took. */
window.catalogConsole = { firstScreen: null, updates: [], lastUpdate: null, lastDraw: null };

const main = document.getElementById("main");
let current = null;

function route() {
  // The query is left encoded until URLSearchParams reads it: a view's `where` may hold & or ?.
  const [rawPath, query = ""] = (location.hash.replace(/^#/, "") || "/").split(/\?(.*)/s);
  const path = decodeURIComponent(rawPath);
  const parameters = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean);
  current?.close?.();
  current = null;
  const where = document.getElementById("where");
  if (parts[0] === "catalog" && parts.length >= 2) {
    const name = parts[1];
    const link = el("a", { href: `#/catalog/${encodeURIComponent(name)}` }, name);
    if (parts[2] === "history") {
      show(where, "/ ", link, " / history");
      run(() => showHistory(main, name));
    } else {
      show(where, "/ ", link);
      current = new CatalogView(main, name, {
        style: parameters.get("style") || undefined,
        device: parameters.get("device") || undefined,
        view: { where: parameters.get("where") || "", sort: parameters.get("sort") || "", group: parameters.get("group") || "" },
      });
      run(() => current.start());
    }
  } else {
    show(where);
    run(() => showList(main));
  }
}

/** Runs a screen once the token's access is known; a 401 asks for the token and runs it again,
 * other errors are shown. */
async function run(screen) {
  try {
    await loadAccess();
    document.getElementById("access").textContent = accessSummary();
    await screen();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      if (await askForToken(error)) run(screen);
      else show(main, el("p", { class: "problem" }, "This server needs a token to show this page."));
    } else {
      show(main, el("p", { class: "problem" }, error.message));
      say(error.message, "problem");
    }
  }
}

document.getElementById("token-button").addEventListener("click", async () => {
  if (await askForToken(null)) route();
});
window.addEventListener("hashchange", route);
// A page left behind closes its event stream: a browser holds six connections per server, and a
// stream left open would keep one of them from the next page.
window.addEventListener("pagehide", () => { current?.close?.(); current = null; });
route();
