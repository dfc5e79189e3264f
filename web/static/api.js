// The server's JSON API, a function an endpoint. Each answers the Go type
// of package web (web/api.go) its comment names; the page reads no field
// that type does not write (TestPageReadsAPIFields). A refused request
// throws an Error with the server's message, the HTTP status and, from a
// busy server (503), retryAfter in seconds.

async function call(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(url, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    const err = new Error((data && data.error) || (r.status + " " + r.statusText)); // ErrorReply
    err.status = r.status;
    err.retryAfter = parseInt(r.headers.get("Retry-After") || "0", 10) || 0;
    throw err;
  }
  return data;
}

export const info = () => call("GET", "/api/info"); // Info
export const networks = () => call("GET", "/api/networks"); // [NetworkInfo]
export const newGame = (req) => call("POST", "/api/games", req); // NewGameRequest: GameState
export const move = (id, move) => call("POST", `/api/games/${id}/move`, { move }); // MoveRequest: GameState
export const engineMove = (id) => call("POST", `/api/games/${id}/engine`); // GameState
export const undo = (id) => call("POST", `/api/games/${id}/undo`); // GameState
export const files = () => call("GET", "/api/files"); // [FileInfo]
export const fileGames = (query) => call("GET", "/api/file-games?" + query); // FileGames
export const replay = (query) => call("GET", "/api/replay?" + query); // ReplayedGame
export const analyze = (req) => call("POST", "/api/analyze", req); // AnalyzeRequest: Analysis
// review posts a ReviewRequest and calls onEvent with each ReviewEvent of
// the streamed answer (one JSON object a line) as it comes, until the
// answer ends or signal aborts it.
export async function review(req, onEvent, signal) {
  const r = await fetch("/api/review", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(req), signal });
  if (!r.ok) {
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    const err = new Error((data && data.error) || (r.status + " " + r.statusText)); // ErrorReply
    err.status = r.status;
    throw err;
  }
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) onEvent(JSON.parse(line));
    }
  }
}
export const runs = () => call("GET", "/api/runs"); // [string]
export const run = (path) => call("GET", "/api/run?" + new URLSearchParams({ path })); // RunReport
