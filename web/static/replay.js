// The replay view: the games of the served folders' files, stepped through
// a move at a time by buttons, the slider, the move list or the arrow keys.

import * as api from "./api.js";
import { Board } from "./board.js";
import { $, addOptions } from "./dom.js";
import { fillEngines, showOwn } from "./engines.js";
import { openAnalysis } from "./analysis.js";
import { initReview, reviewPly, startReview, stopReview } from "./review.js";
import { showView } from "./views.js";

let files = []; // the FileInfo list the file select offers
let game = null; // the ReplayedGame shown
let ply = 0;     // the position shown: 0 before the first move
let board;
let networks = []; // the NetworkInfo list the server sent

// loadFiles asks the server for the games files and offers them.
export async function loadFiles() {
  const sel = $("replay-file");
  sel.textContent = "";
  try { files = await api.files(); } catch (err) { $("replay-status").textContent = err.message; return; }
  sel.add(new Option(files.length ? "choose a file…" : "no games files (start the server with -data or -run)", ""));
  addOptions(sel, files.map((f, i) => [`${f.src}/${f.path}`, String(i)]));
}

function fileQuery() {
  const f = files[parseInt($("replay-file").value, 10)];
  if (!f) return null;
  const q = new URLSearchParams({ src: f.src, path: f.path });
  if (f.kind === "records" && $("replay-variant").value) q.set("variant", $("replay-variant").value);
  return q;
}

// loadFileGames lists a page of the file's games (FileGames: the server
// sends GamesPage at a time), from offset.
async function loadFileGames(offset = 0) {
  const q = fileQuery();
  const sel = $("replay-game");
  sel.textContent = "";
  $("replay-page").textContent = "";
  $("replay-page-prev").disabled = $("replay-page-next").disabled = true;
  if (!q) return;
  q.set("offset", String(offset));
  $("replay-status").textContent = "Reading…";
  let page;
  try { page = await api.fileGames(q); } catch (err) { $("replay-status").textContent = err.message; return; }
  const games = page.games;
  addOptions(sel, games.map((g) => {
    const end = g.error ? "error: " + g.error : g.outcome.over ? `${g.outcome.winner} (${g.outcome.reason})` : "unfinished";
    return [`${g.label}: ${g.plies} plies, ${end}`, String(g.index)];
  }));
  pageFrom = page.offset;
  pageSize = Math.max(pageSize, games.length);
  $("replay-page-prev").disabled = page.offset === 0;
  $("replay-page-next").disabled = page.offset + games.length >= page.total;
  $("replay-page").textContent = games.length ? `games ${page.offset + 1}–${page.offset + games.length} of ${page.total}` : `${page.total} games`;
  $("replay-status").textContent = `${page.total} games.`;
  if (games.length) await loadGame();
}

let pageFrom = 0; // the listed page's first game
let pageSize = 0; // the most games a page has listed: the server's GamesPage

async function loadGame() {
  const q = fileQuery();
  if (!q) return;
  q.set("game", $("replay-game").value);
  stopReview();
  let g;
  try { g = await api.replay(q); } catch (err) { $("replay-status").textContent = err.message; return; }
  showGame(g);
}

// showGame shows a ReplayedGame from its start.
function showGame(g) {
  game = g;
  showOwn($("replay-network"), networks, g.board.variant);
  const ol = $("replay-moves");
  ol.textContent = "";
  game.moves.forEach((m, i) => {
    const li = document.createElement("li");
    li.textContent = m.move;
    li.dataset.move = m.move;
    li.addEventListener("click", () => showPly(i + 1));
    ol.appendChild(li);
  });
  $("replay-ply").max = game.moves.length;
  showPly(0);
}

// reviewSettings are the review's network and playouts, as the Replay
// view's fields give them.
function reviewSettings() {
  return { network: $("replay-network").value, playouts: parseInt($("replay-playouts").value, 10) || 1 };
}

// reviewFileGame reviews the game shown, of a file.
function reviewFileGame() {
  const f = files[parseInt($("replay-file").value, 10)];
  if (!f || !game) return;
  const req = { src: f.src, path: f.path, game: game.index, ...reviewSettings() };
  if (f.kind === "records" && $("replay-variant").value) req.variant = $("replay-variant").value;
  startReview(req);
}

// reviewPlayed shows a game played on the Play view in the Replay view and
// reviews it.
export function reviewPlayed(gameID) {
  showView("replay");
  $("replay-file").value = "";
  startReview({ game_id: gameID, ...reviewSettings() });
}

function showPly(n) {
  const g = game;
  if (!g) return;
  ply = Math.max(0, Math.min(g.moves.length, n));
  const m = ply > 0 ? g.moves[ply - 1] : null;
  board.render(g.board, g.positions[ply], m ? { captures: m.captures, last: [m.from, m.to] } : {});
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
  board.arrows([]);
  reviewPly(ply);
}

// initReplay sets up the view with the server's Info and NetworkInfo
// list; the review takes the server's default network, if any
// (fillEngines), and the own network of the game shown's rule set.
export function initReplay(info, list) {
  networks = list;
  board = new Board($("replay-board"), {});
  addOptions($("replay-variant"), info.variants.map((v) => [v, v]));
  fillEngines($("replay-network"), networks);
  $("replay-playouts").max = info.max_playouts;
  initReview({ board, goto: showPly, onGame: showGame, current: () => ply });
  $("replay-review").addEventListener("click", reviewFileGame);
  $("replay-file").addEventListener("change", () => { stopReview(); loadFileGames(0); });
  $("replay-variant").addEventListener("change", () => loadFileGames(0));
  $("replay-page-prev").addEventListener("click", () => loadFileGames(Math.max(0, pageFrom - pageSize)));
  $("replay-page-next").addEventListener("click", () => loadFileGames(pageFrom + pageSize));
  $("replay-game").addEventListener("change", loadGame);
  $("replay-first").addEventListener("click", () => showPly(0));
  $("replay-prev").addEventListener("click", () => showPly(ply - 1));
  $("replay-next").addEventListener("click", () => showPly(ply + 1));
  $("replay-last").addEventListener("click", () => showPly(1e9));
  $("replay-ply").addEventListener("input", () => showPly(parseInt($("replay-ply").value, 10)));
  $("replay-analyse").addEventListener("click", () => {
    if (!game) return;
    openAnalysis({ variant: game.board.variant, variant_toml: "", start: game.start, moves: game.moves.slice(0, ply).map((m) => m.from + "-" + m.to),
      board: game.board, position: game.positions[ply] });
  });
  $("view-replay").addEventListener("keydown", (e) => {
    const t = e.target.tagName;
    if (t === "SELECT" || t === "INPUT" || t === "TEXTAREA") return;
    const step = { ArrowLeft: -1, ArrowRight: 1, Home: -1e9, End: 1e9 }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    showPly(ply + step);
  });
}
