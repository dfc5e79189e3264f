// taflab's page: plain JavaScript, no build step. Four views share one
// board widget; the server (package web) holds the games and the rules.
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";

async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(url, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    const err = new Error((data && data.error) || (r.status + " " + r.statusText));
    err.status = r.status;
    err.retryAfter = parseInt(r.headers.get("Retry-After") || "0", 10) || 0; // seconds; a busy server (503) sends it
    throw err;
  }
  return data;
}

// ---- positions and squares ----

// parsePosition reads position notation into {size, cells: {square: "a"|"d"|"k"}, toMove}.
function parsePosition(text) {
  const [board, side] = text.split(" ");
  const rows = board.split("/");
  const size = rows.length;
  const cells = {};
  rows.forEach((row, i) => {
    const rank = size - i;
    let file = 0;
    for (let j = 0; j < row.length; j++) {
      const c = row[j];
      if (c >= "0" && c <= "9") {
        let n = c;
        while (j + 1 < row.length && row[j + 1] >= "0" && row[j + 1] <= "9") n += row[++j];
        file += parseInt(n, 10);
      } else {
        cells[squareName(file, rank)] = c;
        file++;
      }
    }
  });
  return { size, cells, toMove: side === "a" ? "attackers" : "defenders" };
}

function squareName(file, rank) { return String.fromCharCode(97 + file) + rank; }
function fileOf(sq) { return sq.charCodeAt(0) - 97; }
function rankOf(sq) { return parseInt(sq.slice(1), 10); }
const pieceNames = { a: "attacker", d: "defender", k: "king" };

function pieceSVG(kind) {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", "piece");
  svg.setAttribute("aria-hidden", "true");
  const add = (tag, attrs) => {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    svg.appendChild(e);
  };
  if (kind === "a") {
    add("polygon", { points: "50,6 94,90 6,90", fill: "var(--attacker)", stroke: "#000", "stroke-width": "5" });
  } else if (kind === "d") {
    add("circle", { cx: 50, cy: 50, r: 40, fill: "var(--defender)", stroke: "#000", "stroke-width": "5" });
  } else {
    add("circle", { cx: 50, cy: 50, r: 44, fill: "var(--defender)", stroke: "#000", "stroke-width": "5" });
    add("polygon", { points: "22,70 22,34 36,50 50,26 64,50 78,34 78,70", fill: "var(--king)", stroke: "#000", "stroke-width": "4" });
  }
  return svg;
}

// ---- the board widget ----

// Board draws a position into el. With interactive set, it is one Tab stop
// whose arrow keys move a cursor between squares; Enter or Space calls
// onActivate(square, viaKeyboard), Escape onEscape().
class Board {
  constructor(el, opts) {
    this.el = el;
    this.opts = opts || {};
    this.size = 0;
    this.cursor = null;
    this.cells = {};
    el.addEventListener("keydown", (e) => this.key(e));
    el.addEventListener("click", (e) => {
      const c = e.target.closest(".cell");
      if (c && this.opts.onActivate) this.opts.onActivate(c.dataset.square, false);
    });
  }
  build(info) {
    if (this.size === info.size && this.throne === info.throne) return;
    this.size = info.size;
    this.throne = info.throne;
    this.el.textContent = "";
    this.el.style.gridTemplateColumns = `repeat(${info.size}, 1fr)`;
    this.el.style.gridTemplateRows = `repeat(${info.size}, 1fr)`;
    this.cells = {};
    const special = new Set([info.throne, ...info.corners]);
    for (let rank = info.size; rank >= 1; rank--) {
      const row = document.createElement("div");
      row.className = "row";
      row.setAttribute("role", "row");
      for (let file = 0; file < info.size; file++) {
        const sq = squareName(file, rank);
        const c = document.createElement("div");
        c.className = "cell" + (special.has(sq) ? " special" : "");
        c.dataset.square = sq;
        c.setAttribute("role", "gridcell");
        c.tabIndex = -1;
        const coord = document.createElement("span");
        coord.className = "coord";
        coord.textContent = sq;
        coord.setAttribute("aria-hidden", "true");
        c.appendChild(coord);
        row.appendChild(c);
        this.cells[sq] = c;
      }
      this.el.appendChild(row);
    }
    this.setCursor(this.cursor && this.cells[this.cursor] ? this.cursor : squareName(0, info.size), false);
  }
  // render shows position (notation) with marks: {legal: Set, selected, captures: [], last: [from, to]}.
  render(info, position, marks) {
    this.build(info);
    const p = parsePosition(position);
    marks = marks || {};
    const legal = marks.legal || new Set();
    const caps = new Set(marks.captures || []);
    const last = new Set(marks.last || []);
    for (const sq in this.cells) {
      const c = this.cells[sq];
      const piece = p.cells[sq] || "";
      if (c.dataset.piece !== piece) {
        const old = c.querySelector("svg.piece");
        if (old) old.remove();
        if (piece) c.appendChild(pieceSVG(piece));
        c.dataset.piece = piece;
      }
      c.classList.toggle("legal", legal.has(sq));
      c.classList.toggle("selected", marks.selected === sq);
      c.classList.toggle("captured", caps.has(sq));
      c.classList.toggle("last", last.has(sq));
      let label = sq + ", " + (piece ? pieceNames[piece] : "empty");
      if (sq === info.throne) label += ", throne";
      if (info.corners.includes(sq)) label += ", corner";
      if (marks.selected === sq) label += ", selected";
      if (legal.has(sq)) label += ", legal move";
      if (caps.has(sq)) label += ", captured by the last move";
      c.setAttribute("aria-label", label);
    }
  }
  setCursor(sq, focus) {
    if (this.cursor && this.cells[this.cursor]) {
      this.cells[this.cursor].tabIndex = -1;
      this.cells[this.cursor].classList.remove("cursor");
    }
    this.cursor = sq;
    const c = this.cells[sq];
    if (!c) return;
    c.tabIndex = this.opts.interactive ? 0 : -1;
    if (this.opts.interactive) c.classList.add("cursor");
    if (focus) c.focus();
  }
  focus() { if (this.cells[this.cursor]) this.cells[this.cursor].focus(); }
  key(e) {
    if (!this.opts.interactive || !this.cursor) return;
    let f = fileOf(this.cursor), r = rankOf(this.cursor);
    switch (e.key) {
      case "ArrowLeft": f = Math.max(0, f - 1); break;
      case "ArrowRight": f = Math.min(this.size - 1, f + 1); break;
      case "ArrowUp": r = Math.min(this.size, r + 1); break;
      case "ArrowDown": r = Math.max(1, r - 1); break;
      case "Home": f = 0; break;
      case "End": f = this.size - 1; break;
      case "Enter": case " ":
        e.preventDefault();
        if (this.opts.onActivate) this.opts.onActivate(this.cursor, true);
        return;
      case "Escape":
        if (this.opts.onEscape) this.opts.onEscape();
        return;
      default: return;
    }
    e.preventDefault();
    this.setCursor(squareName(f, r), true);
  }
  // arrows draws moves as arrows over the board: [{from, to, label}].
  arrows(list) {
    let svg = this.el.parentElement.querySelector("svg.arrows");
    if (!svg) {
      svg = document.createElementNS(SVGNS, "svg");
      svg.setAttribute("class", "arrows");
      svg.setAttribute("aria-hidden", "true");
      this.el.parentElement.appendChild(svg);
    }
    const n = this.size;
    svg.setAttribute("viewBox", `0 0 ${n * 10} ${n * 10}`);
    svg.textContent = "";
    const defs = document.createElementNS(SVGNS, "defs");
    defs.innerHTML = '<marker id="head" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3" markerHeight="3" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#000"/></marker>';
    svg.appendChild(defs);
    const centre = (sq) => [fileOf(sq) * 10 + 5, (n - rankOf(sq)) * 10 + 5];
    const max = Math.max(...list.map((a) => a.weight), 1e-9);
    list.forEach((a, i) => {
      const [x1, y1] = centre(a.from), [x2, y2] = centre(a.to);
      const line = document.createElementNS(SVGNS, "line");
      line.setAttribute("x1", x1); line.setAttribute("y1", y1);
      line.setAttribute("x2", x2); line.setAttribute("y2", y2);
      line.setAttribute("stroke", i === 0 ? "#000" : "#444");
      line.setAttribute("stroke-opacity", String(0.35 + 0.6 * a.weight / max));
      line.setAttribute("stroke-width", String(0.8 + 2.2 * a.weight / max));
      line.setAttribute("marker-end", "url(#head)");
      svg.appendChild(line);
      const t = document.createElementNS(SVGNS, "text");
      // The label beside the arrow's middle, clear of its head.
      const horizontal = y1 === y2;
      t.setAttribute("x", (x1 + x2) / 2 + (horizontal ? 0 : 2.6));
      t.setAttribute("y", (y1 + y2) / 2 + (horizontal ? -1.6 : 1.2));
      t.setAttribute("text-anchor", "middle");
      t.setAttribute("font-size", "3.4");
      t.setAttribute("font-weight", "bold");
      t.setAttribute("fill", "#000");
      t.setAttribute("stroke", "#fff");
      t.setAttribute("stroke-width", "0.6");
      t.setAttribute("paint-order", "stroke");
      t.textContent = a.label;
      svg.appendChild(t);
    });
  }
}

// ---- views ----

const views = ["play", "replay", "analysis", "runs"];
function showView(name) {
  for (const v of views) {
    $("view-" + v).hidden = v !== name;
    $("tab-" + v).setAttribute("aria-selected", v === name ? "true" : "false");
  }
  if (name === "runs") loadRuns();
}

let info = { variants: [] };
let networks = [];

function fillVariants(select, extra) {
  select.textContent = "";
  for (const v of info.variants) select.add(new Option(v, v));
  if (extra) select.add(new Option(extra, "file"));
}

// ---- play ----

const play = { state: null, selected: null, pending: null, toml: "", busy: false };
let playBoard;

function isHumanTurn() {
  const st = play.state;
  return st && !st.outcome.over && st.humans.includes(st.to_move) && !play.busy;
}

function destinations(from) {
  const out = new Set();
  if (!play.state || !from) return out;
  for (const m of play.state.legal) {
    const [f, t] = m.split("-");
    if (f === from) out.add(t);
  }
  return out;
}

function renderPlay() {
  const st = play.state;
  if (!st) return;
  const marks = { legal: isHumanTurn() ? destinations(play.selected) : new Set(), selected: play.selected };
  if (st.last_move) {
    marks.captures = st.last_move.captures;
    marks.last = [st.last_move.from, st.last_move.to];
  }
  playBoard.render(st.board, st.position, marks);
  $("play-board").dataset.toMove = st.to_move;
  $("play-board").dataset.ply = st.ply;
  const ol = $("play-moves");
  ol.textContent = "";
  st.moves.forEach((m) => { const li = document.createElement("li"); li.textContent = m; ol.appendChild(li); });
  $("play-record").value = st.record;
  const end = $("play-end");
  end.hidden = !st.outcome.over;
  end.textContent = st.outcome.over ? st.outcome.text : "";
  end.dataset.winner = st.outcome.winner;
  end.dataset.reason = st.outcome.reason;
  let status;
  if (st.outcome.over) status = "Game over. " + st.outcome.text;
  else if (play.busy || st.engine_to_move) status = `The ${st.to_move} (${st.engine}, ${st.playouts} playouts) are thinking…`;
  else if (play.selected) status = `${play.selected} selected: choose where it goes, or Escape to cancel.`;
  else status = `Your move (${st.to_move}).`;
  if (st.last_move && !st.outcome.over) {
    status = `Last move ${st.last_move.move}` + (st.last_move.captures.length ? ` (captured ${st.last_move.captures.join(", ")})` : "") + ". " + status;
  }
  $("play-status").textContent = status;
}

async function newGame(e) {
  if (e) e.preventDefault();
  const variant = $("play-variant").value;
  const body = {
    variant: variant === "file" ? "" : variant,
    variant_toml: variant === "file" ? play.toml : "",
    start: $("play-start").value.trim(),
    human: $("play-human").value,
    engine: $("play-engine").value,
    playouts: parseInt($("play-playouts").value, 10) || 0,
  };
  try {
    play.state = await api("POST", "/api/games", body);
    play.selected = null;
    renderPlay();
    await engineIfDue();
    playBoard.focus();
  } catch (err) {
    $("play-status").textContent = "Could not start: " + err.message;
  }
}

// engineIfDue asks for the engine's moves while it is the engine's turn. A
// server busy with other searches (503) is asked again after the delay it
// gives, a few times, before the page gives up and says so.
async function engineIfDue() {
  let retries = 0;
  while (play.state && play.state.engine_to_move && !play.state.outcome.over) {
    const id = play.state.id;
    play.busy = true;
    renderPlay();
    try {
      play.state = await api("POST", `/api/games/${id}/engine`);
    } catch (err) {
      if (err.status === 503 && err.retryAfter > 0 && retries < 5) {
        retries++;
        play.busy = false; // nothing runs while the page waits
        $("play-status").textContent = `Engine: ${err.message} Asking again in ${err.retryAfter} s.`;
        await new Promise((resolve) => setTimeout(resolve, err.retryAfter * 1000));
        if (!play.state || play.state.id !== id) return; // another game was started meanwhile
        continue;
      }
      play.busy = false;
      $("play-status").textContent = "Engine: " + err.message;
      return;
    }
    retries = 0;
    play.busy = false;
    renderPlay();
  }
}

function onPlayActivate(sq, viaKeyboard) {
  if (!isHumanTurn() || !$("confirm").hidden) return;
  const st = play.state;
  const p = parsePosition(st.position);
  const piece = p.cells[sq];
  const own = piece && ((st.to_move === "attackers") === (piece === "a"));
  if (play.selected && destinations(play.selected).has(sq)) {
    const move = play.selected + "-" + sq;
    if (viaKeyboard) askConfirm(move);
    else playMove(move);
    return;
  }
  if (own) {
    play.selected = play.selected === sq ? null : sq;
    if (play.selected && destinations(sq).size === 0) {
      $("play-status").textContent = `${sq} has no legal move.`;
      play.selected = null;
      return;
    }
  } else if (play.selected) {
    $("play-status").textContent = `${play.selected}-${sq} is not a legal move.`;
    return;
  }
  renderPlay();
}

// askConfirm opens the confirmation dialogue. The key that opened it is
// still going down when the focus moves to Confirm, and the browser would
// press Confirm with it: the buttons take keys only after a key comes up.
function askConfirm(move) {
  play.pending = move;
  play.armed = false;
  $("confirm-text").textContent = `Play ${move}?`;
  $("confirm").hidden = false;
  $("confirm-yes").focus();
}

function closeConfirm() {
  $("confirm").hidden = true;
  play.pending = null;
  playBoard.focus();
}

async function playMove(move) {
  play.selected = null;
  try {
    play.state = await api("POST", `/api/games/${play.state.id}/move`, { move });
  } catch (err) {
    $("play-status").textContent = err.message;
    return;
  }
  renderPlay();
  await engineIfDue();
}

async function undo() {
  if (!play.state) return;
  try {
    play.state = await api("POST", `/api/games/${play.state.id}/undo`);
    play.selected = null;
    renderPlay();
  } catch (err) {
    $("play-status").textContent = "Undo: " + err.message;
  }
}

function initPlay() {
  playBoard = new Board($("play-board"), {
    interactive: true,
    onActivate: onPlayActivate,
    onEscape: () => { play.selected = null; renderPlay(); },
  });
  fillVariants($("play-variant"), "rule-set file…");
  $("play-variant").addEventListener("change", () => { $("play-toml-label").hidden = $("play-variant").value !== "file"; });
  $("play-toml").addEventListener("change", async () => {
    const f = $("play-toml").files[0];
    play.toml = f ? await f.text() : "";
  });
  const eng = $("play-engine");
  for (const n of networks) eng.add(new Option(n.label, n.id));
  $("play-playouts").max = info.max_playouts;
  $("play-form").addEventListener("submit", newGame);
  $("play-undo").addEventListener("click", undo);
  $("play-copy").addEventListener("click", async () => {
    $("play-record").select();
    try { await navigator.clipboard.writeText($("play-record").value); $("play-status").textContent = "Record copied."; }
    catch (e) { document.execCommand && document.execCommand("copy"); }
  });
  $("play-analyse").addEventListener("click", () => {
    if (!play.state) return;
    const variant = $("play-variant").value;
    openAnalysis({ variant: variant === "file" ? "" : variant, variant_toml: variant === "file" ? play.toml : "",
      start: play.state.start, moves: play.state.moves.map((m) => m.split("x")[0]), board: play.state.board, position: play.state.position });
  });
  const fromKeyboard = (e) => e.detail === 0;
  document.addEventListener("keyup", () => { if (!$("confirm").hidden) play.armed = true; });
  $("confirm-yes").addEventListener("click", (e) => {
    if (fromKeyboard(e) && !play.armed) return;
    const m = play.pending;
    closeConfirm();
    if (m) playMove(m);
  });
  $("confirm-no").addEventListener("click", (e) => { if (!fromKeyboard(e) || play.armed) closeConfirm(); });
  $("confirm").addEventListener("keydown", (e) => {
    if (e.key === "Escape") { e.preventDefault(); closeConfirm(); }
    if (e.key === "Tab") { // keep focus inside the dialogue
      e.preventDefault();
      (document.activeElement === $("confirm-yes") ? $("confirm-no") : $("confirm-yes")).focus();
    }
  });
  // Settings from the address: ?variant=&start=&human=&engine=&playouts=
  const q = new URLSearchParams(location.search);
  if (q.get("variant")) $("play-variant").value = q.get("variant");
  if (q.get("start")) $("play-start").value = q.get("start");
  if (q.get("human")) $("play-human").value = q.get("human");
  if (q.get("engine")) $("play-engine").value = q.get("engine");
  if (q.get("playouts")) $("play-playouts").value = q.get("playouts");
}

// ---- replay ----

const rep = { files: [], game: null, ply: 0 };
let replayBoard;

async function loadFiles() {
  const sel = $("replay-file");
  sel.textContent = "";
  try { rep.files = await api("GET", "/api/files"); } catch (err) { $("replay-status").textContent = err.message; return; }
  sel.add(new Option(rep.files.length ? "choose a file…" : "no games files (start the server with -data or -run)", ""));
  rep.files.forEach((f, i) => sel.add(new Option(`${f.src}/${f.path}`, String(i))));
}

function fileQuery() {
  const f = rep.files[parseInt($("replay-file").value, 10)];
  if (!f) return null;
  const q = new URLSearchParams({ src: f.src, path: f.path });
  if (f.kind === "records" && $("replay-variant").value) q.set("variant", $("replay-variant").value);
  return q;
}

async function loadFileGames() {
  const q = fileQuery();
  const sel = $("replay-game");
  sel.textContent = "";
  if (!q) return;
  $("replay-status").textContent = "Reading…";
  let games;
  try { games = await api("GET", "/api/file-games?" + q); } catch (err) { $("replay-status").textContent = err.message; return; }
  for (const g of games) {
    const end = g.error ? "error: " + g.error : g.outcome.over ? `${g.outcome.winner} (${g.outcome.reason})` : "unfinished";
    sel.add(new Option(`${g.label}: ${g.plies} plies, ${end}`, String(g.index)));
  }
  $("replay-status").textContent = `${games.length} games.`;
  if (games.length) await loadReplay();
}

async function loadReplay() {
  const q = fileQuery();
  if (!q) return;
  q.set("game", $("replay-game").value);
  try { rep.game = await api("GET", "/api/replay?" + q); } catch (err) { $("replay-status").textContent = err.message; return; }
  const ol = $("replay-moves");
  ol.textContent = "";
  rep.game.moves.forEach((m, i) => {
    const li = document.createElement("li");
    li.textContent = m.move;
    li.addEventListener("click", () => showPly(i + 1));
    ol.appendChild(li);
  });
  $("replay-ply").max = rep.game.moves.length;
  showPly(0);
}

function showPly(ply) {
  const g = rep.game;
  if (!g) return;
  ply = Math.max(0, Math.min(g.moves.length, ply));
  rep.ply = ply;
  const m = ply > 0 ? g.moves[ply - 1] : null;
  replayBoard.render(g.board, g.positions[ply], m ? { captures: m.captures, last: [m.from, m.to] } : {});
  $("replay-board").dataset.ply = ply;
  $("replay-ply").value = ply;
  [...$("replay-moves").children].forEach((li, i) => {
    li.classList.toggle("current", i === ply - 1);
    if (i === ply - 1) {
      const ol = $("replay-moves");
      ol.scrollTop = Math.max(0, li.offsetTop - ol.offsetTop - ol.clientHeight / 2);
    }
  });
  let s = `Ply ${ply} of ${g.moves.length}`;
  if (m) s += `: ${m.move}` + (m.captures.length ? ` (captured ${m.captures.join(", ")})` : "");
  if (g.capture_mismatches) s += `. ${g.capture_mismatches} moves' written captures differ from the rules'`;
  $("replay-status").textContent = s + ".";
  const end = $("replay-end");
  const atEnd = ply === g.moves.length;
  end.hidden = !atEnd;
  end.dataset.reason = atEnd ? g.outcome.reason : "";
  end.dataset.winner = atEnd ? g.outcome.winner : "";
  if (atEnd) {
    end.textContent = (g.outcome.over ? g.outcome.text : "The record stops before the end.") + ` The file says: ${g.recorded}.` + (g.error ? " Error: " + g.error : "");
  }
}

function initReplay() {
  replayBoard = new Board($("replay-board"), {});
  for (const v of info.variants) $("replay-variant").add(new Option(v, v));
  $("replay-file").addEventListener("change", loadFileGames);
  $("replay-variant").addEventListener("change", loadFileGames);
  $("replay-game").addEventListener("change", loadReplay);
  $("replay-first").addEventListener("click", () => showPly(0));
  $("replay-prev").addEventListener("click", () => showPly(rep.ply - 1));
  $("replay-next").addEventListener("click", () => showPly(rep.ply + 1));
  $("replay-last").addEventListener("click", () => showPly(1e9));
  $("replay-ply").addEventListener("input", () => showPly(parseInt($("replay-ply").value, 10)));
  $("replay-analyse").addEventListener("click", () => {
    const g = rep.game;
    if (!g) return;
    openAnalysis({ variant: g.board.variant, variant_toml: "", start: g.start, moves: g.moves.slice(0, rep.ply).map((m) => m.from + "-" + m.to),
      board: g.board, position: g.positions[rep.ply] });
  });
  $("view-replay").addEventListener("keydown", (e) => {
    const t = e.target.tagName;
    if (t === "SELECT" || t === "INPUT" || t === "TEXTAREA") return;
    const step = { ArrowLeft: -1, ArrowRight: 1, Home: -1e9, End: 1e9 }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    showPly(rep.ply + step);
  });
}

// ---- analysis ----

const ana = { req: null, board: null };
let analysisBoard;

function openAnalysis(a) {
  ana.req = { variant: a.variant, variant_toml: a.variant_toml, start: a.start, moves: a.moves };
  ana.board = a.board;
  ana.lastPosition = a.position;
  if (a.variant) $("analysis-variant").value = a.variant;
  $("analysis-position").value = a.position;
  showView("analysis");
  analysisBoard.render(a.board, a.position, {});
  analysisBoard.arrows([]);
  $("analysis-wdl").textContent = "";
  $("analysis-policy").textContent = "";
  $("analysis-searchtable").textContent = "";
  $("analysis-status").textContent = "Evaluate the position, or search it.";
}

// analysisRequest is the game to analyse: the one opened from play or replay
// (with its moves, so that repetition counts), or the typed position and
// rule set when either was changed.
function analysisRequest() {
  const typed = $("analysis-position").value.trim();
  const variant = $("analysis-variant").value;
  if (!ana.req || (ana.req.variant !== variant && !ana.req.variant_toml) || typed !== ana.lastPosition) {
    ana.req = { variant, variant_toml: "", start: typed, moves: [] };
    ana.lastPosition = typed;
  }
  return ana.req;
}

async function analyse(playouts) {
  const req = Object.assign({}, analysisRequest(), { network: $("analysis-network").value, playouts, top: 8 });
  $("analysis-status").textContent = playouts ? `Searching ${playouts} playouts…` : "Evaluating…";
  let r;
  try { r = await api("POST", "/api/analyze", req); } catch (err) { $("analysis-status").textContent = err.message; return; }
  const board = r.board;
  analysisBoard.render(board, r.position, {});
  const wdl = $("analysis-wdl");
  wdl.textContent = "";
  if (r.wdl) {
    [["win", r.wdl[0]], ["draw", r.wdl[1]], ["loss", r.wdl[2]]].forEach(([k, p]) => {
      const d = document.createElement("div");
      d.className = k;
      d.style.flexGrow = String(Math.max(p, 0.001));
      d.textContent = `${k} ${(100 * p).toFixed(1)}%`;
      wdl.appendChild(d);
    });
    wdl.setAttribute("aria-label", `For the ${r.to_move}: win ${(100 * r.wdl[0]).toFixed(1)}%, draw ${(100 * r.wdl[1]).toFixed(1)}%, loss ${(100 * r.wdl[2]).toFixed(1)}%`);
  }
  // The built-in searcher has no policy (its priors are uniform): no table
  // and no arrows of priors, only its search's moves.
  if (r.wdl) table($("analysis-policy"), ["move", "prior"], r.policy.map((m) => [m.move, (100 * m.prior).toFixed(1) + "%"]), "The network's top moves");
  else $("analysis-policy").textContent = "";
  let arrows = r.wdl ? r.policy.map((m) => ({ from: m.from, to: m.to, weight: m.prior, label: (100 * m.prior).toFixed(0) + "%" })) : [];
  if (r.search) {
    table($("analysis-searchtable"), ["move", "visits", "prior", "value"],
      r.search.moves.map((m) => [m.move, m.visits, (100 * m.prior).toFixed(1) + "%", m.value.toFixed(3)]),
      `Search: ${r.search.playouts} playouts, best ${r.search.best_move}, value ${r.search.value.toFixed(3)}`);
    const total = r.search.moves.reduce((s, m) => s + m.visits, 0) || 1;
    arrows = r.search.moves.slice(0, 5).map((m) => ({ from: m.from, to: m.to, weight: m.visits / total, label: String(m.visits) }));
  } else {
    $("analysis-searchtable").textContent = "";
  }
  analysisBoard.arrows(arrows.slice(0, 5));
  const signed = (v) => (v > 0 ? "+" : "") + v.toFixed(3);
  let value = r.wdl ? `the network: win ${(100 * r.wdl[0]).toFixed(1)}%, draw ${(100 * r.wdl[1]).toFixed(1)}%, loss ${(100 * r.wdl[2]).toFixed(1)}%`
    : `the built-in searcher's static value ${signed(r.value)} (-1 lost, +1 won; it has no move priors: search to see the moves it prefers)`;
  if (r.search) value += `; search of ${r.search.playouts} playouts: value ${signed(r.search.value)}, best move ${r.search.best_move}`;
  $("analysis-status").textContent = `${r.to_move} to move; ${value}.`;
}

function table(el, head, rows, caption) {
  el.textContent = "";
  if (caption) el.createCaption().textContent = caption;
  const tr = el.createTHead().insertRow();
  for (const h of head) { const th = document.createElement("th"); th.textContent = h; th.scope = "col"; tr.appendChild(th); }
  const body = el.createTBody();
  for (const r of rows) { const row = body.insertRow(); for (const c of r) row.insertCell().textContent = c; }
}

function initAnalysis() {
  analysisBoard = new Board($("analysis-board"), {});
  fillVariants($("analysis-variant"));
  for (const n of networks) $("analysis-network").add(new Option(n.label, n.id));
  if (networks.length > 1) $("analysis-network").value = networks[1].id;
  $("analysis-eval").addEventListener("click", () => analyse(0));
  $("analysis-search").addEventListener("click", () => analyse(parseInt($("analysis-playouts").value, 10) || 1));
}

// ---- runs: charts ----

const palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];
const dashes = ["", "6 3", "2 3", "8 3 2 3"];
const markers = ["circle", "square", "triangle", "diamond"];

function markerShape(kind, x, y, color) {
  const r = 4.5;
  let e;
  if (kind === "square") { e = document.createElementNS(SVGNS, "rect"); e.setAttribute("x", x - r); e.setAttribute("y", y - r); e.setAttribute("width", 2 * r); e.setAttribute("height", 2 * r); }
  else if (kind === "triangle") { e = document.createElementNS(SVGNS, "polygon"); e.setAttribute("points", `${x},${y - r - 1} ${x + r + 1},${y + r} ${x - r - 1},${y + r}`); }
  else if (kind === "diamond") { e = document.createElementNS(SVGNS, "polygon"); e.setAttribute("points", `${x},${y - r - 1} ${x + r + 1},${y} ${x},${y + r + 1} ${x - r - 1},${y}`); }
  else { e = document.createElementNS(SVGNS, "circle"); e.setAttribute("cx", x); e.setAttribute("cy", y); e.setAttribute("r", r); }
  e.setAttribute("fill", color);
  e.setAttribute("stroke", "#000");
  e.setAttribute("stroke-width", "1");
  return e;
}

// niceStep picks a tick step of 1, 2 or 5 times a power of ten.
function niceStep(range, n) {
  const raw = range / n;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

// lineChart draws series [{name, points: [{x, y, lo, hi}]}] against integer x
// (generations), or with opts.logX against x on a log scale ticked at the
// points' x (playouts); the legend sits below the plot, never over the lines.
// A series' shift (px) moves it sideways, keeping error bars at the same x
// apart.
function lineChart(parent, title, xLabel, yLabel, series, opts) {
  opts = opts || {};
  const box = document.createElement("figure");
  box.className = "chart";
  const h = document.createElement("h3");
  h.textContent = title;
  box.appendChild(h);
  const W = 480, H = 260, L = 56, R = 12, T = 10, B = 42;
  const pts = series.flatMap((s) => s.points);
  if (!pts.length) { const p = document.createElement("p"); p.textContent = "No data."; box.appendChild(p); parent.appendChild(box); return; }
  const tx = opts.logX ? Math.log10 : (x) => x;
  let x0 = Math.min(...pts.map((p) => tx(p.x))), x1 = Math.max(...pts.map((p) => tx(p.x)));
  const xticks0 = Math.ceil(x0), xticks1 = Math.floor(x1);
  // Margin, so that no marker sits on an axis: half a generation, or on a
  // log scale a factor of 1.5 at least.
  const margin = opts.logX ? Math.max(Math.log10(1.5), 0.08 * (x1 - x0)) : 0.5;
  x0 -= margin; x1 += margin;
  let y0 = Math.min(...pts.map((p) => p.lo ?? p.y)), y1 = Math.max(...pts.map((p) => p.hi ?? p.y));
  if (opts.yMin !== undefined) y0 = Math.min(y0, opts.yMin);
  if (opts.yMax !== undefined) y1 = Math.max(y1, opts.yMax);
  if (y0 === y1) { y0 -= 1; y1 += 1; }
  const ystep = niceStep(y1 - y0, 5);
  y0 = Math.floor(y0 / ystep) * ystep; y1 = Math.ceil(y1 / ystep) * ystep;
  const X = (x) => L + (tx(x) - x0) / (x1 - x0) * (W - L - R);
  const Y = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${title}: ${yLabel} by ${xLabel}; the table below gives the figures`);
  const el = (tag, attrs, text) => {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e);
    return e;
  };
  for (let y = y0; y <= y1 + 1e-9; y += ystep) {
    el("line", { x1: L, x2: W - R, y1: Y(y), y2: Y(y), stroke: "#e4e4e4" });
    el("text", { x: L - 6, y: Y(y) + 4, "text-anchor": "end", "font-size": 11 }, opts.percent ? (100 * y).toFixed(0) + "%" : String(+y.toFixed(6)));
  }
  const xticks = [];
  if (opts.logX) xticks.push(...new Set(pts.map((p) => p.x).sort((a, b) => a - b)));
  else for (let x = xticks0, step = Math.max(1, Math.ceil((x1 - x0) / 10)); x <= xticks1; x += step) xticks.push(x); // integers only: generations
  for (const x of xticks) {
    el("line", { x1: X(x), x2: X(x), y1: H - B, y2: H - B + 4, stroke: "#000" });
    el("text", { x: X(x), y: H - B + 16, "text-anchor": "middle", "font-size": 11 }, String(x));
  }
  el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: "#000" });
  el("line", { x1: L, x2: L, y1: T, y2: H - B, stroke: "#000" });
  el("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", "font-size": 12 }, xLabel);
  el("text", { x: 12, y: (T + H - B) / 2, "text-anchor": "middle", "font-size": 12, transform: `rotate(-90 12 ${(T + H - B) / 2})` }, yLabel);
  if (opts.zero && y0 < 0 && y1 > 0) el("line", { x1: L, x2: W - R, y1: Y(0), y2: Y(0), stroke: "#888", "stroke-dasharray": "4 3" });
  const legend = document.createElement("ul");
  legend.className = "legend";
  series.forEach((s, i) => {
    const color = s.color || palette[i % palette.length], dash = dashes[i % dashes.length], mk = s.marker || markers[i % markers.length];
    const ps = s.points.slice().sort((a, b) => a.x - b.x);
    const SX = (x) => X(x) + (s.shift || 0);
    for (const p of ps) if (p.lo !== undefined && p.hi !== undefined) {
      el("line", { x1: SX(p.x), x2: SX(p.x), y1: Y(p.lo), y2: Y(p.hi), stroke: color, "stroke-width": 2 });
      el("line", { x1: SX(p.x) - 4, x2: SX(p.x) + 4, y1: Y(p.lo), y2: Y(p.lo), stroke: color, "stroke-width": 2 });
      el("line", { x1: SX(p.x) - 4, x2: SX(p.x) + 4, y1: Y(p.hi), y2: Y(p.hi), stroke: color, "stroke-width": 2 });
    }
    if (ps.length > 1 && !s.noLine) el("polyline", { points: ps.map((p) => `${SX(p.x)},${Y(p.y)}`).join(" "), fill: "none", stroke: color, "stroke-width": 2, "stroke-dasharray": dash });
    for (const p of ps) svg.appendChild(markerShape(p.marker || mk, SX(p.x), Y(p.y), color));
    const li = document.createElement("li");
    const key = document.createElementNS(SVGNS, "svg");
    key.setAttribute("viewBox", "0 0 28 12");
    key.setAttribute("aria-hidden", "true");
    if (!s.noLine) { const l = document.createElementNS(SVGNS, "line"); l.setAttribute("x1", 0); l.setAttribute("x2", 28); l.setAttribute("y1", 6); l.setAttribute("y2", 6); l.setAttribute("stroke", color); l.setAttribute("stroke-width", 2); l.setAttribute("stroke-dasharray", dash); key.appendChild(l); }
    key.appendChild(markerShape(mk, 14, 6, color));
    li.appendChild(key);
    li.appendChild(document.createTextNode(s.name));
    legend.appendChild(li);
  });
  box.appendChild(svg);
  if (opts.extraLegend) for (const [shape, text] of opts.extraLegend) {
    const li = document.createElement("li");
    const key = document.createElementNS(SVGNS, "svg");
    key.setAttribute("viewBox", "0 0 28 12");
    key.setAttribute("aria-hidden", "true");
    key.appendChild(markerShape(shape, 14, 6, "#fff"));
    li.appendChild(key);
    li.appendChild(document.createTextNode(text));
    legend.appendChild(li);
  }
  box.appendChild(legend);
  // The figures as a table, for screen readers and for reading off values.
  const det = document.createElement("details");
  const sum = document.createElement("summary");
  sum.textContent = "Figures";
  det.appendChild(sum);
  const t = document.createElement("table");
  const xs = [...new Set(pts.map((p) => p.x))].sort((a, b) => a - b);
  table(t, [xLabel, ...series.map((s) => s.name)], xs.map((x) => [x, ...series.map((s) => {
    const p = s.points.find((q) => q.x === x);
    if (!p) return "";
    const f = (v) => opts.percent ? (100 * v).toFixed(1) + "%" : (+v.toFixed(3)).toString();
    return f(p.y) + (p.lo !== undefined ? ` [${f(p.lo)}, ${f(p.hi)}]` : "");
  })]));
  det.appendChild(t);
  box.appendChild(det);
  parent.appendChild(box);
}

async function loadRuns() {
  const sel = $("runs-run");
  if (sel.dataset.loaded) return;
  sel.dataset.loaded = "1";
  let runs;
  try { runs = await api("GET", "/api/runs"); } catch (err) { $("runs-status").textContent = err.message; return; }
  sel.textContent = "";
  if (!runs.length) { $("runs-status").textContent = "No run folder (start the server with -run)."; return; }
  for (const r of runs) sel.add(new Option(r, r));
  await showRun();
}

async function showRun() {
  const charts = $("runs-charts");
  charts.textContent = "";
  let r;
  try { r = await api("GET", "/api/run?" + new URLSearchParams({ path: $("runs-run").value })); } catch (err) { $("runs-status").textContent = err.message; return; }
  const gens = r.summary || [];
  $("runs-status").textContent = `${gens.length} generations, ${r.balance.length} balance reports, ${r.ratings.length} ratings reports.` + (r.errors.length ? " " + r.errors.join("; ") : "");
  if (gens.length) {
    const gateMarker = { promoted: "triangle", rejected: "square", undecided: "circle" };
    lineChart(charts, "Rating against the baseline", "generation", "Elo (95% interval)", [
      { name: "Elo against the network-free searcher", points: gens.filter((g) => g.baseline_games > 0).map((g) => ({ x: g.generation, y: g.baseline_elo, lo: g.baseline_elo_lo, hi: g.baseline_elo_hi })) },
      { name: "Elo over all the run's gate and baseline games", color: "#009E73", points: gens.filter((g) => g.rating_games > 0).map((g) => ({ x: g.generation, y: g.rating, lo: g.rating - g.rating_ci95, hi: g.rating + g.rating_ci95 })) },
      { name: "gate: Elo against the best so far", color: "#E69F00", points: gens.filter((g) => g.gate).map((g) => ({ x: g.generation, y: g.gate_elo, marker: gateMarker[g.gate] || "circle" })) },
    ], { zero: true, extraLegend: [["triangle", "promoted"], ["square", "rejected"], ["circle", "undecided"]] });
    lineChart(charts, "Training loss", "generation", "loss", [
      { name: "total", points: gens.filter((g) => g.loss).map((g) => ({ x: g.generation, y: g.loss })) },
      { name: "policy", points: gens.filter((g) => g.loss).map((g) => ({ x: g.generation, y: g.policy_loss })) },
      { name: "value", points: gens.filter((g) => g.loss).map((g) => ({ x: g.generation, y: g.value_loss })) },
    ]);
    lineChart(charts, "Self-play results", "generation", "share of games", [
      { name: "attackers win", color: "#D55E00", points: gens.map((g) => ({ x: g.generation, y: g.attacker_wins })) },
      { name: "defenders win", color: "#0072B2", points: gens.map((g) => ({ x: g.generation, y: g.defender_wins })) },
      { name: "draws", color: "#000000", points: gens.map((g) => ({ x: g.generation, y: g.draws })) },
      { name: "attackers win, from the start", color: "#CC79A7", points: gens.filter((g) => g.selfplay_from_start && g.selfplay_from_start.games).map((g) => ({ x: g.generation, y: g.selfplay_from_start.attacker_wins / g.selfplay_from_start.games })) },
    ], { percent: true, yMin: 0, yMax: 1 });
    const t = document.createElement("table");
    table(t, ["gen", "games", "gate", "gate Elo", "LLR", "rating (all games)", "vs baseline", "playout odds"], gens.map((g) => [g.generation, g.selfplay_games, g.gate || "", g.gate ? g.gate_elo.toFixed(0) : "",
      g.gate ? g.gate_llr.toFixed(2) : "", g.rating_games ? `${g.rating.toFixed(0)} ± ${g.rating_ci95.toFixed(0)}` : "",
      g.baseline_games ? `${g.baseline_elo.toFixed(0)} [${g.baseline_elo_lo.toFixed(0)}, ${g.baseline_elo_hi.toFixed(0)}]` : "", g.baseline_odds || ""]), "Generations: gate results and ratings");
    const fig = document.createElement("figure");
    fig.className = "chart";
    fig.appendChild(t);
    charts.appendChild(fig);
  }
  if (r.hosts && r.hosts.length) {
    const t = document.createElement("table");
    table(t, ["host", "processes", "games", "positions", "hours", "games/hour"], r.hosts.map((h) => [h.host, h.processes, h.games, h.positions,
      h.hours.toFixed(2), h.games_per_hour.toFixed(0)]), "Self-play by worker host");
    const fig = document.createElement("figure");
    fig.className = "chart";
    fig.appendChild(t);
    charts.appendChild(fig);
  }
  for (const b of r.balance) {
    const rows = (b.report.runs || []).concat((b.report.records || []).map((x) => ({ ...x, player: "records " + x.file.split("/").pop() })));
    const fig = document.createElement("figure");
    fig.className = "chart";
    const h = document.createElement("h3");
    h.textContent = `Balance: ${b.path}`;
    fig.appendChild(h);
    const t = document.createElement("table");
    const iv = (s) => s ? `${(100 * s.rate).toFixed(1)}% [${(100 * s.lo).toFixed(1)}, ${(100 * s.hi).toFixed(1)}]` : "";
    table(t, ["rule set", "player", "games", "attackers", "defenders", "draws"], rows.map((x) => [x.variant, x.player || x.source || "", x.games, iv(x.attackers), iv(x.defenders), iv(x.draws)]),
      "Win rates with 95% Wilson intervals");
    fig.appendChild(t);
    charts.appendChild(fig);
    // Defender rate against strength, a line per rule set.
    const byVariant = {};
    for (const x of rows) if (x.playouts) (byVariant[x.variant] = byVariant[x.variant] || []).push({ x: x.playouts, y: x.defenders.rate, lo: x.defenders.lo, hi: x.defenders.hi });
    const entries = Object.entries(byVariant);
    const series = entries.map(([name, points], i) => ({ name, points, shift: 6 * (i - (entries.length - 1) / 2) }));
    if (series.length && series.some((s) => s.points.length > 1)) {
      lineChart(charts, `Balance by strength: ${b.path}`, "playouts per move (log scale)", "defender win rate (95%)", series, { percent: true, yMin: 0, yMax: 1, logX: true });
    }
  }
  // A ratings report fits each group of players that games link on its own
  // (the first at the top level, the others in other_groups): a table each.
  for (const rt of r.ratings) {
    const groups = [rt.report, ...(rt.report.other_groups || [])];
    groups.forEach((g, i) => {
      const of = groups.length > 1 ? ` (group ${i + 1} of ${groups.length}, no games link the groups)` : "";
      const fig = document.createElement("figure");
      fig.className = "chart";
      const h = document.createElement("h3");
      h.textContent = `Ratings: ${rt.path}${of}`;
      fig.appendChild(h);
      if (i === 0) for (const c of rt.report.clashes || []) {
        const w = document.createElement("p");
        w.className = "warning";
        w.textContent = "Warning: " + c + ".";
        fig.appendChild(w);
      }
      const players = g.players || [];
      const t = document.createElement("table");
      table(t, ["player", "Elo", "95% interval", "games", "score"], players.map((p) => [p.name, p.elo.toFixed(0),
        p.anchor ? "anchor" : `[${(p.elo - p.ci95).toFixed(0)}, ${(p.elo + p.ci95).toFixed(0)}]`, p.games, (100 * p.score).toFixed(1) + "%"]),
        `Bradley-Terry ratings (${rt.report.variant || ""}), ${g.anchor} = 0`);
      fig.appendChild(t);
      charts.appendChild(fig);
      const gensRated = players.filter((p) => p.generation !== null && p.generation !== undefined);
      if (gensRated.length) { // the chart beside its table
        lineChart(charts, `Ratings by generation: ${rt.path}${of}`, "generation", `Elo (95% interval), ${g.anchor} = 0`,
          [{ name: "rating", points: gensRated.map((p) => ({ x: p.generation, y: p.elo, lo: p.elo - p.ci95, hi: p.elo + p.ci95 })) }], { zero: true });
      }
    });
  }
}

// ---- start ----

async function init() {
  try {
    info = await api("GET", "/api/info");
    networks = await api("GET", "/api/networks");
  } catch (err) {
    $("play-status").textContent = "The server does not answer: " + err.message;
    return;
  }
  for (const v of views) $("tab-" + v).addEventListener("click", () => showView(v));
  $("runs-run").addEventListener("change", showRun);
  initPlay();
  initReplay();
  initAnalysis();
  await loadFiles();
  document.body.dataset.ready = "1";
  const view = new URLSearchParams(location.search).get("view");
  if (view && views.includes(view)) showView(view);
}

document.addEventListener("DOMContentLoaded", init);
