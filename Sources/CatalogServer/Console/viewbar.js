// The view bar: a catalogue shown as a view (docs/Views.md) — where, sort and group fields above
// the layout — and what a view changes for dragging books.

import { catalogPath, request } from "./api.js";
import { el } from "./dom.js";

/** The view's parameters as a query string's members, "&where=…", each value percent-encoded
 * (a space as %20: the server reads + as a plus). */
export function viewQuery(view) {
  return ["where", "sort", "group"].filter((key) => view[key]).map((key) => `&${key}=${encodeURIComponent(view[key])}`).join("");
}

/** The bar's form; `view()` reads what its fields hold. */
export function viewForm(view) {
  const field = (id, label, value, placeholder) => el("input", { id, "aria-label": label, value, placeholder, autocomplete: "off" });
  const where = field("view-where", "Where", view.where, 'status = "published"');
  const sort = field("view-sort", "Sort", view.sort, "-playCount,title");
  const group = field("view-group", "Group", view.group, "section");
  const node = el("form", { id: "view-form", class: "view-bar" },
    el("label", {}, "Where ", where), el("label", {}, "Sort ", sort), el("label", {}, "Group ", group),
    el("button", { type: "submit", id: "view-apply" }, "Show"));
  return { node, view: () => ({ where: where.value.trim(), sort: sort.value.trim(), group: group.value.trim() }) };
}

/** Why dragging is off in `view`, or null: a sort or a field group places each book by its
 * values, so a drop has no meaning there; a filter alone keeps the stored order. */
export function dragOff(view) {
  const group = view.group.trim();
  if (view.sort.trim()) return "Dragging is off while the view is sorted: each book's place follows its values.";
  if (group && group !== "section") return "Dragging is off while the view is grouped by a field: each book's section follows its values.";
  return null;
}

/**
 * The index in the stored section for a drop at `target` of the view's section: the same without
 * a filter; with one, before the book the drop landed on (`target.before`, or the one at
 * `target.index`), or after every book of the stored section for a drop at the shelf's end (those
 * the filter hides too, so that the book stays last in the view).
 */
export async function storedIndex(name, view, elements, book, target) {
  if (!view.where.trim()) return target.index;
  const before = target.before ?? [...elements.values()]
    .find((e) => e.kind === "cell" && e.section === target.section && e.indexPath[1] === target.index && e.id !== book.id)?.id;
  const { data: stored } = await request("GET", catalogPath(name));
  const ids = (stored.sections.find((s) => s.id === target.section)?.items ?? []).map((i) => i.id).filter((id) => id !== book.id);
  const at = before == null ? -1 : ids.indexOf(before);
  return at >= 0 ? at : ids.length;
}
