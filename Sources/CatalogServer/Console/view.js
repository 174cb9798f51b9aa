// A catalogue drawn as GET …/layout computes it: only the elements in and around the viewport
// are in the page (the layout's rect query), updates animate from old frames to new ones, and
// books are moved by dragging them.

import { ApiError, catalogPath, follow, may, request } from "./api.js";
import { el, say, show } from "./dom.js";
import { askForToken } from "./token.js";
import { dragOff, storedIndex, viewForm, viewQuery } from "./viewbar.js";

export const DEVICES = {
  phone: { label: "Phone (390×844)", width: 390, height: 844 },
  tablet: { label: "Tablet (820×1180)", width: 820, height: 1180 },
};

export const STYLES = {
  shelf: { style: "shelf", itemSize: [80, 120], headerHeight: 32, sectionInset: [8, 10, 8, 10], lineSpacing: 10, interitemSpacing: 10 },
  flow: { style: "flow", headerHeight: 32, sectionInset: [8, 10, 8, 10], pinHeaders: true },
  waterfall: { style: "waterfall", columns: 2 },
  circular: { style: "circular", itemSize: [70, 70] },
  carousel: { style: "carousel", itemSize: [200, 300], lineSpacing: 20, minScale: 0.6 },
};

/** How long an update's cells take to glide from their old frames to their new ones. */
const ANIMATION_MS = 250;

export class CatalogView {
  constructor(main, name, { style, device, view } = {}) {
    this.main = main;
    this.name = name;
    this.styleName = STYLES[style] ? style : "shelf";
    this.deviceName = DEVICES[device] ? device : "phone";
    this.config = STYLES[this.styleName];
    this.device = DEVICES[this.deviceName];
    this.revision = null;
    this.nodes = new Map();      // key → element node in the page
    this.elements = new Map();   // key → layout element (what the server answered)
    this.loaded = null;          // the rect the page holds the elements of
    this.wanted = null;          // what the next layout request must do
    this.running = null;         // the loop answering `wanted`
    this.closed = false;
    this.drag = null;
    this.dependsOnOffset = false; // from the last layout document: scrolling changes its attributes
    this.view = { where: view?.where ?? "", sort: view?.sort ?? "", group: view?.group ?? "" };
  }

  /** Why dragging is off in this view, or null (``dragOff`` in viewbar.js). */
  dragOff() {
    return dragOff(this.view);
  }

  async start() {
    const styles = el("select", { id: "style", "aria-label": "Layout" },
      Object.keys(STYLES).map((name) => el("option", { value: name, selected: name === this.styleName }, name)));
    const devices = el("select", { id: "device", "aria-label": "Viewport" },
      Object.entries(DEVICES).map(([name, device]) => el("option", { value: name, selected: name === this.deviceName }, device.label)));
    const form = viewForm(this.view);
    const reopen = () => {
      location.hash = `#/catalog/${encodeURIComponent(this.name)}?style=${styles.value}&device=${devices.value}${viewQuery(form.view())}`;
    };
    form.node.addEventListener("submit", (event) => { event.preventDefault(); reopen(); });
    styles.addEventListener("change", reopen);
    devices.addEventListener("change", reopen);
    this.revisionLabel = el("span", { id: "revision" }, "…");
    this.liveLabel = el("span", { id: "live", class: "quiet" }, "connecting");
    this.message = el("p", { id: "view-message", role: "status" });
    this.content = el("div", { id: "content", class: `content style-${this.styleName}` });
    this.viewport = el("div", { id: "viewport", class: "viewport", tabIndex: 0, "aria-label": `${this.name} as a ${this.device.label} shows it` }, this.content);
    this.viewport.style.width = `${this.device.width}px`;
    this.viewport.style.height = `${this.device.height}px`;
    show(this.main,
      el("div", { class: "view-bar" },
        el("h1", {}, this.name),
        el("span", {}, "revision ", this.revisionLabel),
        this.liveLabel,
        el("label", {}, "Layout ", styles),
        el("label", {}, "Viewport ", devices),
        el("a", { href: `#/catalog/${encodeURIComponent(this.name)}/history` }, "History")),
      form.node,
      this.message,
      this.viewport);
    const off = this.dragOff();
    if (off) {
      this.message.className = "quiet";
      this.message.textContent = off;
    }

    this.viewport.addEventListener("scroll", () => this.scrolled(), { passive: true });
    this.content.addEventListener("pointerdown", (event) => this.pointerDown(event));
    this.content.addEventListener("pointermove", (event) => this.pointerMove(event));
    this.content.addEventListener("pointerup", (event) => this.pointerUp(event));
    this.content.addEventListener("pointercancel", () => this.endDrag());
    this.content.addEventListener("keydown", (event) => this.keyDown(event));

    try {
      await this.refresh({});
    } catch (error) {
      // A view the server refuses: say why under the fields, which stay for a better one.
      if (!(error instanceof ApiError) || error.kind !== "invalid-view") throw error;
      this.message.className = "problem";
      this.message.textContent = error.message;
      this.liveLabel.textContent = "not shown";
      return;
    }
    const drawn = performance.now();
    window.catalogConsole.firstScreen ??= drawn;
    const query = viewQuery(this.view);
    this.stopFollowing = follow(catalogPath(this.name, "/events" + (query ? "?" + query.slice(1) : "")), {
      lastEventId: this.revision,
      onOpen: () => { this.liveLabel.textContent = "live"; this.liveLabel.className = "live"; },
      onEvent: (event) => this.received(event),
      onError: async (error) => {
        this.liveLabel.textContent = "reconnecting";
        this.liveLabel.className = "quiet";
        if (error.status === 401) await askForToken(error);
      },
    });
  }

  close() {
    this.closed = true;
    this.stopFollowing?.();
  }

  // MARK: Layout requests

  /** The rect whose elements the page holds: the visible one and a viewport's worth around it. */
  wantedRect() {
    const { scrollLeft: x, scrollTop: y } = this.viewport;
    const { width, height } = this.device;
    return [Math.max(0, x - width), Math.max(0, y - height), width * 3, height * 3];
  }

  /**
   * Asks for the layout again and draws it; requests made while one is under way are merged into
   * the next (one request in flight per view). `animate` glides cells to their new frames;
   * `revision` with `since` records how long the update took once the answer reaches it.
   */
  refresh({ animate = false, revision = null, since = null }) {
    const wanted = this.wanted ?? { animate: false, revision: null, since: null };
    wanted.animate ||= animate;
    if (revision != null && (wanted.revision == null || revision > wanted.revision)) wanted.revision = revision;
    if (since != null && (wanted.since == null || since < wanted.since)) wanted.since = since;
    this.wanted = wanted;
    this.running ??= this.answerWanted().finally(() => { this.running = null; });
    return this.running;
  }

  async answerWanted() {
    while (this.wanted && !this.closed) {
      const wanted = this.wanted;
      this.wanted = null;
      const rect = this.wantedRect();
      const query = new URLSearchParams({
        config: JSON.stringify(this.config),
        width: String(this.device.width),
        height: String(this.device.height),
        offset: `${this.viewport.scrollLeft},${this.viewport.scrollTop}`,
        rect: rect.join(","),
        include: "items",
      });
      let layout;
      try {
        ({ data: layout } = await request("GET", catalogPath(this.name, `/layout?${query}${viewQuery(this.view)}`)));
      } catch (error) {
        if (error instanceof ApiError && error.status === 401 && this.revision != null && await askForToken(error)) {
          this.refresh(wanted);
          continue;
        }
        if (this.revision == null) throw error;
        say(error.message, "problem");
        continue;
      }
      if (this.closed) return;
      // An answer older than what is drawn (a read that raced a write) is asked for again.
      if (this.revision != null && layout.revision < this.revision) {
        this.refresh(wanted);
        continue;
      }
      this.draw(layout, rect, wanted.animate && this.revision != null && layout.revision !== this.revision);
      if (wanted.since != null) {
        if (wanted.revision == null || layout.revision >= wanted.revision) {
          const took = performance.now() - wanted.since;
          window.catalogConsole.updates.push(took);
          // With the moment as an epoch time too, so that a writer in another process can time
          // its write to the page's drawing on the machine's clock.
          window.catalogConsole.lastUpdate = { revision: layout.revision, milliseconds: took, drawnAt: performance.timeOrigin + performance.now() };
        } else {
          this.refresh(wanted);
        }
      }
    }
  }

  scrolled() {
    if (this.scrollQueued) return;
    this.scrollQueued = true;
    requestAnimationFrame(() => {
      this.scrollQueued = false;
      // Where the layout depends on the offset (the server says so: pinned headers or footers,
      // a carousel's scales), every scroll asks again; other layouts only need the elements of
      // the new rect once the page's run out.
      const { scrollLeft: x, scrollTop: y } = this.viewport;
      const { width, height } = this.device;
      const [lx, ly, lw, lh] = this.loaded ?? [0, 0, 0, 0];
      const margin = 0.25;
      const covered = x - width * margin >= lx && y - height * margin >= ly
        && x + width * (1 + margin) <= lx + lw && y + height * (1 + margin) <= ly + lh;
      if (!covered || this.dependsOnOffset) this.refresh({});
    });
  }

  // MARK: Drawing

  static key(element) {
    return `${element.kind} ${element.id ?? element.indexPath.join(",")}`;
  }

  /** Puts the answer's elements in the page: kept nodes move (gliding when `animate`), new ones appear, the rest go. */
  draw(layout, rect, animate) {
    const content = this.content;
    content.classList.toggle("animating", animate);
    clearTimeout(this.animationEnd);
    if (animate) this.animationEnd = setTimeout(() => content.classList.remove("animating"), ANIMATION_MS + 50);
    this.dependsOnOffset = layout.dependsOnOffset === true;
    content.style.width = `${layout.contentSize[0]}px`;
    content.style.height = `${layout.contentSize[1]}px`;
    const seen = new Set();
    const appearing = [];
    for (const element of layout.elements) {
      const key = CatalogView.key(element);
      seen.add(key);
      let node = this.nodes.get(key);
      const appears = animate && !node;
      if (!node) {
        node = this.makeNode(element);
        this.nodes.set(key, node);
        content.append(node);
      }
      if (appears) appearing.push([node, element]);
      this.elements.set(key, element);
      if (this.drag?.node === node) continue;
      // An appearing cell starts as the layout's update attributes say: transparent, at its own
      // frame or centred on the fade point.
      this.place(node, element, appears, layout.fadePoint);
    }
    for (const [key, node] of this.nodes) {
      // The book being dragged (or picked up) stays in the page wherever the content has scrolled.
      if (seen.has(key) || node === this.drag?.node || node === this.picked?.node) continue;
      const element = this.elements.get(key);
      this.nodes.delete(key);
      this.elements.delete(key);
      if (animate && node.classList.contains("cell")) {
        // It ends as the layout's update attributes say: transparent, at its own frame or at the fade point.
        node.style.opacity = "0";
        if (element && layout.fadePoint) node.style.transform = CatalogView.transform(element, layout.fadePoint);
        setTimeout(() => node.remove(), ANIMATION_MS);
      } else {
        node.remove();
      }
    }
    if (appearing.length) {
      // Appearing cells start as the layout's update attributes say (transparent, at their own
      // frame or centred on the fade point) and glide and fade in to where they are.
      void content.offsetWidth;
      for (const [node, element] of appearing) {
        node.style.opacity = String(element.alpha);
        node.style.transform = CatalogView.transform(element);
      }
    }
    this.loaded = rect;
    window.catalogConsole.lastDraw = { at: performance.now(), rect, elements: layout.elements.length };
    this.revision = layout.revision;
    this.revisionLabel.textContent = String(layout.revision);
    this.main.dataset.revision = String(layout.revision);
  }

  makeNode(element) {
    const node = el("div", { class: `element ${element.kind}` });
    if (element.kind === "cell") {
      node.dataset.id = element.id;
      // Focusable: a book can be moved with the keyboard too (Enter, the arrows, Enter).
      node.tabIndex = 0;
      node.setAttribute("role", "button");
      node.setAttribute("aria-roledescription", "book");
      node.append(el("span", { class: "title" }, ""));
      node.style.setProperty("--hue", String(hue(element.id)));
    } else if (element.kind === "header") {
      node.append(el("span", { class: "title" }, ""), el("span", { class: "count" }, ""));
    }
    return node;
  }

  /** The CSS transform that puts an element at its frame, or with its frame centred on `point`. */
  static transform(element, point = null) {
    const [x, y, width, height] = element.frame;
    const [left, top] = point ? [point[0] - width / 2, point[1] - height / 2] : [x, y];
    return `translate(${left}px, ${top}px) scale(${element.scale})`;
  }

  /** Puts `node` where `element` is or, `appearing`, transparent where it starts (centred on `fadePoint`, if any). */
  place(node, element, appearing = false, fadePoint = null) {
    const [, , width, height] = element.frame;
    node.style.width = `${width}px`;
    node.style.height = `${height}px`;
    node.style.transform = CatalogView.transform(element, appearing ? fadePoint : null);
    node.style.opacity = appearing ? "0" : String(element.alpha);
    node.style.zIndex = String(element.zIndex);
    node.hidden = element.hidden;
    if (element.kind === "cell") {
      node.dataset.section = element.section;
      node.dataset.index = String(element.indexPath[1]);
      node.querySelector(".title").textContent = element.title;
      node.title = element.title;
    } else {
      node.dataset.section = element.id;
      if (element.kind === "header") {
        node.querySelector(".title").textContent = element.title;
        node.querySelector(".count").textContent = element.capacity != null
          ? `${element.count} of ${element.capacity}` : `${element.count}`;
      }
    }
  }

  // MARK: Live updates

  received(event) {
    if (event.event === "changes") {
      const arrived = performance.now();
      const changeset = JSON.parse(event.data);
      if (this.revision != null && changeset.toRevision <= this.revision) return;
      this.refresh({ animate: true, revision: changeset.toRevision, since: arrived });
    } else if (event.event === "reset" || event.event === "snapshot") {
      this.refresh({});
    } else if (event.event === "deleted") {
      this.liveLabel.textContent = "deleted";
      this.message.className = "problem";
      this.message.textContent = `The catalogue “${this.name}” was deleted.`;
    }
  }

  // MARK: Moving books

  pointerDown(event) {
    const node = event.target.closest?.(".cell");
    if (!node || event.button !== 0 || this.drag) return;
    if (!this.mayMove()) return;
    const element = this.elements.get(`cell ${node.dataset.id}`);
    if (!element) return;
    event.preventDefault();
    node.setPointerCapture(event.pointerId);
    const [x, y] = this.contentPoint(event.clientX, event.clientY);
    this.drag = { node, element, clientX: event.clientX, clientY: event.clientY, x, y, moving: false, target: null, speed: [0, 0] };
  }

  /** Whether the tab's token may move books here (catalogs:write); says so when it may not. */
  mayMove() {
    const off = this.dragOff();
    if (off) {
      say(off, "problem");
      return false;
    }
    if (may("write", this.name)) return true;
    say(`Moving books in “${this.name}” needs a token with catalogs:write on it.`, "problem");
    return false;
  }

  /** A point of the window in the content's coordinates (the layout's). */
  contentPoint(clientX, clientY) {
    const box = this.content.getBoundingClientRect();
    return [clientX - box.left, clientY - box.top];
  }

  pointerMove(event) {
    const drag = this.drag;
    if (!drag) return;
    if (!drag.moving && Math.hypot(event.clientX - drag.clientX, event.clientY - drag.clientY) < 4) return;
    drag.moving = true;
    drag.clientX = event.clientX;
    drag.clientY = event.clientY;
    drag.node.classList.add("dragging");
    this.followPointer();
    // Near an edge of the viewport, the content scrolls under the book, faster nearer the edge.
    const box = this.viewport.getBoundingClientRect();
    const speed = (position, low, high) => {
      const zone = 48;
      if (position < low + zone) return -Math.ceil(24 * Math.min(1, (low + zone - position) / zone));
      if (position > high - zone) return Math.ceil(24 * Math.min(1, (position - high + zone) / zone));
      return 0;
    };
    drag.speed = [speed(event.clientX, box.left, box.right), speed(event.clientY, box.top, box.bottom)];
    if ((drag.speed[0] || drag.speed[1]) && !drag.scrolling) {
      drag.scrolling = true;
      const step = () => {
        if (this.drag !== drag || !(drag.speed[0] || drag.speed[1])) { drag.scrolling = false; return; }
        this.viewport.scrollBy(drag.speed[0], drag.speed[1]);
        this.followPointer();
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    }
  }

  /** Keeps the dragged book under the pointer, and the shelf or book it would land on marked. */
  followPointer() {
    const drag = this.drag;
    const [x, y] = this.contentPoint(drag.clientX, drag.clientY);
    const [fx, fy] = drag.element.frame;
    drag.node.style.transform = `translate(${fx + x - drag.x}px, ${fy + y - drag.y}px) scale(1.05)`;
    const target = this.dropTarget(drag.clientX, drag.clientY, drag.element);
    if (drag.target?.node !== target?.node) {
      drag.target?.node?.classList.remove("drop-target");
      target?.node?.classList.add("drop-target");
    }
    drag.target = target;
  }

  pointerUp(event) {
    const drag = this.drag;
    if (!drag) return;
    const target = drag.moving ? this.dropTarget(event.clientX, event.clientY, drag.element) : null;
    this.endDrag();
    if (target) this.move(drag.element, target, "reject");
  }

  /** Puts the dragged book back where the store has it: it moves only when the store says so. */
  endDrag() {
    const drag = this.drag;
    if (!drag) return;
    this.drag = null;
    drag.target?.node?.classList.remove("drop-target");
    drag.node.classList.remove("dragging");
    const key = `cell ${drag.element.id}`;
    const element = this.elements.get(key);
    if (element && this.loaded && intersects(element.frame, this.loaded)) {
      this.place(drag.node, element);
    } else {
      // Scrolled far from where it was: the page no longer holds its place.
      drag.node.remove();
      this.nodes.delete(key);
      this.elements.delete(key);
    }
  }

  // MARK: Moving books with the keyboard

  /**
   * Enter or Space on a book picks it up; the arrows choose a place — left and right along a
   * shelf, up and down to the shelf before or after — and Enter moves it there (the same move a
   * drop sends), Escape leaves it where it is.
   */
  keyDown(event) {
    const picked = this.picked;
    if (!picked) {
      const node = event.target.closest?.(".cell");
      if (!node || !(event.key === "Enter" || event.key === " ")) return;
      if (!this.mayMove()) return;
      const element = this.elements.get(`cell ${node.dataset.id}`);
      if (!element) return;
      event.preventDefault();
      this.picked = { node, element, section: element.section, index: element.indexPath[1] };
      node.classList.add("picked");
      this.showPlace(`Picked up “${element.title}”: the arrows choose a place, Enter moves it there, Escape leaves it.`);
      return;
    }
    const shelves = this.shelves();
    const at = shelves.findIndex((shelf) => shelf.id === picked.section);
    switch (event.key) {
      case "ArrowLeft": picked.index = Math.max(0, picked.index - 1); break;
      case "ArrowRight": if (at >= 0) picked.index = Math.min(endOf(shelves[at], picked.element), picked.index + 1); break;
      case "ArrowUp":
      case "ArrowDown": {
        const next = at >= 0 ? shelves[at + (event.key === "ArrowUp" ? -1 : 1)] : null;
        if (next) {
          picked.section = next.id;
          picked.index = Math.min(picked.index, endOf(next, picked.element));
        }
        break;
      }
      case "Enter":
      case " ": {
        const target = { section: picked.section, index: picked.index, title: this.sectionTitle(picked.section) };
        this.putDown();
        event.preventDefault();
        if (target.section !== picked.element.section || target.index !== picked.element.indexPath[1]) {
          this.move(picked.element, target, "reject");
        }
        return;
      }
      case "Escape":
        this.putDown();
        say(`“${picked.element.title}” stays where it is.`);
        event.preventDefault();
        return;
      default:
        return;
    }
    event.preventDefault();
    this.showPlace();
  }

  /** The shelves the page holds, in order, with their counts. */
  shelves() {
    const shelves = new Map();
    for (const element of this.elements.values()) {
      if (element.kind !== "cell" && !shelves.has(element.id)) {
        shelves.set(element.id, { id: element.id, order: element.indexPath[0], count: element.count, title: element.title, frame: element.frame });
      }
    }
    return [...shelves.values()].sort((a, b) => a.order - b.order);
  }

  /** Marks the place a picked-up book would go, keeps it in view, and says it. */
  showPlace(words) {
    const picked = this.picked;
    this.placeMark?.classList.remove("drop-target");
    const book = [...this.elements.values()].find((element) => element.kind === "cell" && element.section === picked.section
      && element.indexPath[1] === picked.index && element.id !== picked.element.id);
    const shelf = this.shelves().find((candidate) => candidate.id === picked.section);
    const mark = book ? this.nodes.get(`cell ${book.id}`) : (this.nodes.get(`decoration ${picked.section}`) ?? this.nodes.get(`header ${picked.section}`));
    mark?.classList.add("drop-target");
    this.placeMark = mark;
    const frame = book?.frame ?? shelf?.frame;
    if (frame) {
      const { scrollTop, clientHeight } = this.viewport;
      if (frame[1] < scrollTop) this.viewport.scrollTop = frame[1] - 40;
      else if (frame[1] + frame[3] > scrollTop + clientHeight) this.viewport.scrollTop = frame[1] + frame[3] - clientHeight + 40;
    }
    say(words ?? `“${picked.element.title}” to “${shelf?.title ?? picked.section}”, place ${picked.index + 1}: Enter moves it, Escape leaves it.`);
  }

  putDown() {
    this.picked?.node.classList.remove("picked");
    this.placeMark?.classList.remove("drop-target");
    this.picked = null;
    this.placeMark = null;
  }

  /** Where a drop at a point would put the book: before the book under it, or at the end of the shelf under it. */
  dropTarget(clientX, clientY, dragged) {
    // Only what the viewport shows can be dropped on.
    const screen = this.viewport.getBoundingClientRect();
    if (clientX < screen.left || clientX >= screen.right || clientY < screen.top || clientY >= screen.bottom) return null;
    const box = this.content.getBoundingClientRect();
    const x = clientX - box.left, y = clientY - box.top;
    const inside = (frame) => x >= frame[0] && x < frame[0] + frame[2] && y >= frame[1] && y < frame[1] + frame[3];
    let shelf = null;
    for (const [key, element] of this.elements) {
      if (element.kind === "cell" && element.id !== dragged.id && inside(element.frame)) {
        return { section: element.section, index: element.indexPath[1], before: element.id, title: this.sectionTitle(element.section), node: this.nodes.get(key) };
      }
      if ((element.kind === "decoration" || element.kind === "header") && inside(element.frame) && (!shelf || element.kind === "decoration")) {
        shelf = { element, key };
      }
    }
    if (!shelf) return null;
    const section = shelf.element;
    return { section: section.id, index: endOf(section, dragged), title: section.title, node: this.nodes.get(shelf.key) };
  }

  sectionTitle(id) {
    return (this.elements.get(`header ${id}`) ?? this.elements.get(`decoration ${id}`))?.title ?? id;
  }

  async move(book, target, policy) {
    const index = await storedIndex(this.name, this.view, this.elements, book, target);
    const body = JSON.stringify({ item: book.id, toSection: target.section, index, policy });
    const words = `“${book.title}” to “${target.title}”`;
    say(`Moving ${words}…`);
    try {
      const { data } = await request("POST", catalogPath(this.name, "/moves"), {
        body, contentType: "application/json", extraHeaders: { "If-Match": `"${this.revision}"` },
      });
      say(`Moved ${words}${policy === "reject" ? "" : ` (${policy})`}: revision ${data.revision}.`, "done");
      await this.refresh({ animate: true, revision: data.revision });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401) {
        if (await askForToken(error)) return this.move(book, target, policy);
        say("The move needs the server's token; nothing was moved.", "problem");
      } else if (error.kind === "shelf-full" && policy === "reject") {
        say(`Not moved: ${error.message}`, "problem");
        const choice = await this.askWhenFull(error.message);
        if (choice) return this.move(book, target, choice);
      } else if (error.status === 412 || error.kind === "stale-revision") {
        say(`Not moved: the catalogue changed while you dragged (${error.message}). It is shown as it is now; drag again.`, "problem");
        await this.refresh({ animate: true });
      } else {
        say(`Not moved: ${error.message}`, "problem");
        await this.refresh({});
      }
    }
  }

  /** The full-shelf dialog: resolves "displace", "swap", or null to leave the book where it is. */
  askWhenFull(reason) {
    const dialog = document.getElementById("full-dialog");
    document.getElementById("full-reason").textContent = reason;
    return new Promise((resolve) => {
      const choices = { "full-displace": "displace", "full-swap": "swap", "full-cancel": null };
      const handlers = Object.entries(choices).map(([id, choice]) => [id, () => {
        for (const [other, handler] of handlers) document.getElementById(other).removeEventListener("click", handler);
        dialog.close();
        resolve(choice);
      }]);
      for (const [id, handler] of handlers) document.getElementById(id).addEventListener("click", handler);
      // Escape leaves the book where it is.
      dialog.oncancel = (event) => { event.preventDefault(); handlers.at(-1)[1](); };
      dialog.showModal();
    });
  }
}

/** The index of a shelf's end for `book`: its count of books, less the book when it is on that shelf already. */
function endOf(shelf, book) {
  return Math.max(0, shelf.count - (shelf.id === book.section ? 1 : 0));
}

/** Whether a frame and a rect `[x, y, width, height]` meet. */
function intersects(frame, rect) {
  return frame[0] < rect[0] + rect[2] && frame[0] + frame[2] > rect[0] && frame[1] < rect[1] + rect[3] && frame[1] + frame[3] > rect[1];
}

/** A steady colour per book, from its id. */
function hue(id) {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) | 0;
  return Math.abs(hash) % 360;
}
