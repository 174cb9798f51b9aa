// The console's only way to the server: every request carries the token (when there is one) as
// an Authorization header, never in a URL, and every error becomes an ApiError with the
// server's problem document.

const TOKEN_KEY = "catalogkit.console.token";

/** An answer other than 2xx: the status and the server's RFC 9457 problem (or its text). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(typeof problem === "object" && problem ? (problem.detail || problem.title || `HTTP ${status}`) : `HTTP ${status}: ${problem}`);
    this.status = status;
    this.problem = typeof problem === "object" && problem ? problem : { detail: String(problem) };
  }
  /** The last part of the problem's type, such as "shelf-full" or "precondition-failed". */
  get kind() {
    return String(this.problem.type || "").split("/").pop();
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers(extra = {}) {
  const result = new Headers(extra);
  const value = token();
  if (value) result.set("Authorization", `Bearer ${value}`);
  return result;
}

/** Sends a request; answers `{data, response}` for 2xx, throws ApiError otherwise. */
export async function request(method, path, { body, contentType, extraHeaders } = {}) {
  const init = { method, headers: headers(extraHeaders), cache: "no-store" };
  if (contentType) init.headers.set("Content-Type", contentType);
  if (body !== undefined) init.body = body;
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, { type: "unreachable", detail: `the server did not answer (${error.message})` });
  }
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json().catch(() => null) : await response.text();
  if (!response.ok) throw new ApiError(response.status, data);
  return { data, response };
}

export function catalogPath(name, rest = "") {
  return `/catalogs/${encodeURIComponent(name)}${rest}`;
}

/**
 * Follows a Server-Sent Events stream with fetch, so that it can carry the token as a header
 * (an EventSource cannot), and resumes after a dropped connection from the last event's id, as
 * an EventSource would. `onEvent({event, id, data})` receives every event; `onError(error)`
 * every failure (a 401 or 404 ends the stream; anything else is retried). Returns a function
 * that closes the stream.
 */
export function follow(path, { lastEventId, onEvent, onError, onOpen }) {
  let closed = false;
  let controller = null;
  let lastId = lastEventId == null ? null : String(lastEventId);
  let delay = 250;

  async function run() {
    while (!closed) {
      controller = new AbortController();
      try {
        const extra = { Accept: "text/event-stream" };
        if (lastId != null) extra["Last-Event-ID"] = lastId;
        const response = await fetch(path, { headers: headers(extra), cache: "no-store", signal: controller.signal });
        if (!response.ok) {
          const problem = await response.json().catch(() => ({ detail: `HTTP ${response.status}` }));
          const error = new ApiError(response.status, problem);
          onError?.(error);
          if ([400, 401, 403, 404, 410].includes(response.status)) return;
          throw error;
        }
        delay = 250;
        onOpen?.();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + (buffer[end] === "\r" ? 4 : 2));
            const event = parseEvent(block);
            if (!event) continue;
            if (event.id != null) lastId = event.id;
            onEvent(event);
            if (event.event === "deleted") { closed = true; return; }
          }
        }
      } catch (error) {
        if (closed) return;
        if (!(error instanceof ApiError)) onError?.(new ApiError(0, { type: "unreachable", detail: "the event stream was interrupted; reconnecting" }));
      }
      if (closed) return;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
  run();
  return () => { closed = true; controller?.abort(); };
}

function parseEvent(block) {
  let event = "message", id = null;
  const data = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  if (data.length === 0 && id == null) return null;
  return { event, id, data: data.join("\n") };
}

// What the tab's credential may do (GET /access), so that the console shows the scope it holds and
// hides what the server would refuse. Asked again whenever the token changes.
const SCOPES = ["catalogs:read", "catalogs:write", "catalogs:admin"];
let granted = null;

/** Reads GET /access for the current token; a token the server does not accept throws (401). */
export async function loadAccess() {
  granted = (await request("GET", "/access")).data;
  return granted;
}

/** Whether the credential holds `scope` ("read", "write", "admin") on `catalog` (any, when left out). */
export function may(scope, catalog) {
  if (!granted) return true;
  if (!granted.checked) return true;
  const needed = SCOPES.indexOf(`catalogs:${scope}`);
  if (SCOPES.indexOf(granted.scope) < needed) return false;
  return catalog == null || granted.catalogs == null || granted.catalogs.includes(catalog);
}

/** One line for the header: `catalogs:write on bookshelf (app)`, or why nothing is held. */
export function accessSummary() {
  if (!granted || !granted.checked) return "";
  if (!granted.scope) return granted.readsNeedCredential ? "no token" : "no token: reading only";
  const on = granted.catalogs ? ` on ${granted.catalogs.join(", ")}` : "";
  return `${granted.scope}${on}${granted.holder ? ` (${granted.holder})` : ""}`;
}
