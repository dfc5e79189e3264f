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
export const runs = () => call("GET", "/api/runs"); // [string]
export const run = (path) => call("GET", "/api/run?" + new URLSearchParams({ path })); // RunReport
