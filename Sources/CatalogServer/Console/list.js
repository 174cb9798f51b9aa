// The list of catalogues, and importing a file (dropped or picked) as PUT /catalogs/{name}.

import { ApiError, catalogPath, may, request } from "./api.js";
import { el, say, show } from "./dom.js";
import { askForToken } from "./token.js";

export async function showList(main) {
  const { data } = await request("GET", "/catalogs");
  const rows = data.map((summary) => el("tr", { "data-catalog": summary.name },
    el("td", {}, el("a", { href: `#/catalog/${encodeURIComponent(summary.name)}` }, summary.name)),
    el("td", { class: "number" }, summary.revision),
    el("td", { class: "number" }, summary.sections),
    el("td", { class: "number" }, summary.items),
    el("td", {}, el("a", { href: `#/catalog/${encodeURIComponent(summary.name)}/history` }, "history"))));
  const table = rows.length
    ? el("table", { id: "catalogs" },
      el("thead", {}, el("tr", {}, el("th", {}, "Catalogue"), el("th", { class: "number" }, "Revision"),
        el("th", { class: "number" }, "Sections"), el("th", { class: "number" }, "Items"), el("th", {}, ""))),
      el("tbody", {}, rows))
    : el("p", { class: "quiet", id: "catalogs" }, "No catalogues yet: import a file.");

  const result = el("p", { id: "import-result", role: "status" });
  const nameInput = el("input", { id: "import-name", type: "text", placeholder: "from the file's name", spellcheck: false });
  const picker = el("input", { id: "import-file", type: "file", accept: ".json,.plist,application/json,application/x-plist" });
  picker.addEventListener("change", () => { if (picker.files[0]) importFile(picker.files[0]); picker.value = ""; });
  const zone = el("section", { id: "import", class: "drop-zone", "aria-label": "Import a catalogue" },
    el("h2", {}, "Import a catalogue"),
    el("p", {}, "Drop a JSON or property-list file here, or pick one: ", picker),
    el("p", {}, el("label", { for: "import-name" }, "as the catalogue "), nameInput),
    result);
  zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    const file = event.dataTransfer.files[0];
    if (file) importFile(file);
  });

  async function importFile(file) {
    const name = nameInput.value.trim() || file.name.replace(/\.[^.]*$/, "");
    const plist = /\.plist$/i.test(file.name);
    result.className = "";
    show(result, `Importing ${file.name} as “${name}”…`);
    try {
      const { data: written } = await request("PUT", catalogPath(name), {
        body: file, contentType: plist ? "application/x-plist" : "application/json",
      });
      say(`Imported ${file.name} as “${name}”, revision ${written.revision}`);
      await showList(main);
      const again = document.getElementById("import-result");
      again.className = "done";
      show(again, `Imported ${file.name} as `, el("a", { href: `#/catalog/${encodeURIComponent(name)}` }, name),
        `, revision ${written.revision}.`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        if (await askForToken(error)) return importFile(file);
      }
      result.className = "problem";
      show(result, importError(file.name, error));
      say("The import was refused; nothing was written.", "problem");
    }
  }

  // Importing needs admin: without it the page says so instead of offering what the server refuses.
  const importing = may("admin") ? zone
    : el("p", { id: "import-refused", class: "quiet" }, "Importing a catalogue needs a token with catalogs:admin.");
  show(main, el("h1", {}, "Catalogues"), table, importing);
}

/** The import's error as the command line words it: `error: FILE: PATH: what was expected`. */
export function importError(fileName, error) {
  const problem = error instanceof ApiError ? error.problem : { detail: error.message };
  const parts = [fileName];
  if (problem.path) parts.push(problem.path);
  parts.push(problem.detail || problem.title || "the server refused the file");
  return `error: ${parts.join(": ")}`;
}
