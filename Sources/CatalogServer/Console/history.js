// The catalogue's history: its last writes, newest first, each with its stages as a collection
// view would apply them.

import { catalogPath, request } from "./api.js";
import { el, show } from "./dom.js";

export async function showHistory(main, name) {
  const { data } = await request("GET", catalogPath(name, "/history?count=50"));
  const entries = data.revisions.map((write) => el("article", { class: "revision", "data-revision": write.toRevision },
    el("h2", {}, `Revision ${write.toRevision}`, el("span", { class: "quiet" }, ` from ${write.fromRevision}`)),
    el("p", {}, write.summary.split("\n").map((line, index) => [index ? el("br") : null, line])),
    write.stages.length ? el("ol", {}, write.stages.map((stage) => el("li", {}, describeStage(stage)))) : null));
  show(main,
    el("h1", {}, `History of ${name}`),
    el("p", { class: "quiet" }, `Revision ${data.revision}; the journal's last ${data.revisions.length} writes, newest first. `,
      "Index paths are [section, item]; deletions and moves' origins count in the revision before, insertions and destinations in the revision after. ",
      el("a", { href: `#/catalog/${encodeURIComponent(name)}` }, "Back to the catalogue")),
    entries.length ? entries : el("p", { class: "quiet" }, "No writes yet."));
}

/** A stage's operations in words: `items moved: [0,1] → [2,0]; sections inserted: 3`. */
function describeStage(stage) {
  const parts = [];
  for (const noun of ["sections", "items"]) {
    const changes = stage[noun];
    if (!changes) continue;
    const at = (index) => (Array.isArray(index) ? `[${index.join(",")}]` : String(index));
    for (const verb of ["deleted", "inserted", "reloaded"]) {
      if (changes[verb]) parts.push(`${noun} ${verb}: ${changes[verb].map(at).join(", ")}`);
    }
    if (changes.moved) parts.push(`${noun} moved: ${changes.moved.map(([from, to]) => `${at(from)} → ${at(to)}`).join(", ")}`);
  }
  return parts.join("; ") || "nothing";
}
