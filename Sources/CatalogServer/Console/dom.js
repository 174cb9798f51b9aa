// Building the page: every catalogue string goes in as a text node, never as markup.

/** An element with attributes (`class`, `data-*`, properties for others) and children; strings become text. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value == null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("data-") || key.startsWith("aria-") || key === "role" || key === "for") node.setAttribute(key, String(value));
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node[key] = value;
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child == null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces a node's children. */
export function show(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

/** The status line: what just happened, in words. */
export function say(text, tone = "info") {
  const status = document.getElementById("status");
  status.textContent = text;
  status.dataset.tone = tone;
}
