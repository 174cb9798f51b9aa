// The token dialog: asked for when the server answers 401, kept in this tab's sessionStorage.

import { setToken, token } from "./api.js";

let pending = null;

/** Opens the token dialog; resolves true when a token was given. */
export function askForToken(error) {
  // Several requests refused at once share one dialog.
  if (pending) return pending;
  const dialog = document.getElementById("token-dialog");
  const input = document.getElementById("token-input");
  document.getElementById("token-reason").textContent = token()
    ? "The server refused the token this tab has: " + (error?.message || "")
    : (error?.message || "Give the token the server was started with (catalog serve --token).");
  input.value = "";
  pending = new Promise((resolve) => {
    const done = (value) => {
      dialog.close();
      pending = null;
      for (const [id, handler] of handlers) document.getElementById(id).removeEventListener("click", handler);
      resolve(value);
    };
    const handlers = [
      ["token-use", () => { setToken(input.value.trim()); done(input.value.trim() !== ""); }],
      ["token-forget", () => { setToken(""); done(false); }],
      ["token-cancel", () => done(false)],
    ];
    for (const [id, handler] of handlers) document.getElementById(id).addEventListener("click", handler);
    input.onkeydown = (event) => { if (event.key === "Enter") handlers[0][1](); };
    dialog.oncancel = (event) => { event.preventDefault(); handlers.at(-1)[1](); };
    if (!dialog.open) dialog.showModal();
    input.focus();
  });
  return pending;
}

