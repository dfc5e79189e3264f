// The analysis view: what a network (its win, draw and loss, and its move
// priors) or the built-in searcher thinks of a position, and a search's
// moves, as tables and arrows on the board.

import * as api from "./api.js";
import { Board } from "./board.js";
import { $, addOptions, table } from "./dom.js";
import { fillEngines, showOwn } from "./engines.js";
import { showView } from "./views.js";

let game = null;          // the game to analyse: {variant, variant_toml, start, moves}
let lastPosition = null;  // the position the field showed when game was set
let board;
let networks = [];         // the NetworkInfo list the server sent

// openAnalysis shows the analysis view on a game from play or replay:
// {variant, variant_toml, start, moves, board (a BoardInfo), position}.
export function openAnalysis(a) {
  game = { variant: a.variant, variant_toml: a.variant_toml, start: a.start, moves: a.moves };
  lastPosition = a.position;
  if (a.variant) $("analysis-variant").value = a.variant;
  showOwn($("analysis-network"), networks, a.variant || "");
  $("analysis-position").value = a.position;
  showView("analysis");
  board.render(a.board, a.position, {});
  board.arrows([]);
  $("analysis-wdl").textContent = "";
  $("analysis-policy").textContent = "";
  $("analysis-searchtable").textContent = "";
  $("analysis-status").textContent = "Evaluate the position, or search it.";
}

// request is the game to analyse: the one opened from play or replay (with
// its moves, so that repetition counts), or the typed position and rule
// set when either was changed.
function request() {
  const typed = $("analysis-position").value.trim();
  const variant = $("analysis-variant").value;
  if (!game || (game.variant !== variant && !game.variant_toml) || typed !== lastPosition) {
    game = { variant, variant_toml: "", start: typed, moves: [] };
    lastPosition = typed;
  }
  return game;
}

const percent = (p) => (100 * p).toFixed(1) + "%";
const signed = (v) => (v > 0 ? "+" : "") + v.toFixed(3);

async function analyse(playouts) {
  const req = { ...request(), network: $("analysis-network").value, playouts, top: 8 };
  $("analysis-status").textContent = playouts ? `Searching ${playouts} playouts…` : "Evaluating…";
  let r;
  try { r = await api.analyze(req); } catch (err) { $("analysis-status").textContent = err.message; return; }
  board.render(r.board, r.position, {});
  const wdl = $("analysis-wdl");
  wdl.textContent = "";
  if (r.wdl) {
    [["win", r.wdl.win], ["draw", r.wdl.draw], ["loss", r.wdl.loss]].forEach(([k, p]) => {
      const d = document.createElement("div");
      d.className = k;
      d.style.flexGrow = String(Math.max(p, 0.001));
      d.textContent = `${k} ${percent(p)}`;
      wdl.appendChild(d);
    });
    wdl.setAttribute("aria-label", `For the ${r.to_move}: win ${percent(r.wdl.win)}, draw ${percent(r.wdl.draw)}, loss ${percent(r.wdl.loss)}`);
  }
  // The built-in searcher has no policy (its priors are uniform): no table
  // and no arrows of priors, only its search's moves.
  if (r.wdl) table($("analysis-policy"), ["move", "prior"], r.policy.map((m) => [m.move, percent(m.prior)]), "The network's top moves");
  else $("analysis-policy").textContent = "";
  let arrows = r.wdl ? r.policy.map((m) => ({ from: m.from, to: m.to, weight: m.prior, label: (100 * m.prior).toFixed(0) + "%" })) : [];
  if (r.search) {
    table($("analysis-searchtable"), ["move", "visits", "prior", "value"],
      r.search.moves.map((m) => [m.move, m.visits, percent(m.prior), m.value.toFixed(3)]),
      `Search: ${r.search.playouts} playouts, best ${r.search.best_move}, value ${r.search.value.toFixed(3)}`);
    const total = r.search.moves.reduce((s, m) => s + m.visits, 0) || 1;
    arrows = r.search.moves.slice(0, 5).map((m) => ({ from: m.from, to: m.to, weight: m.visits / total, label: String(m.visits) }));
  } else {
    $("analysis-searchtable").textContent = "";
  }
  board.arrows(arrows.slice(0, 5));
  // A network that learnt one rule set is shown that rule set's planes
  // whatever is played; say so, or its figures read as the played rules'.
  const planes = r.wdl && r.planes_of !== r.board.variant ? ` (shown ${r.planes_of}'s planes, the rule set it learnt)` : "";
  let value = r.wdl ? `the network${planes}: win ${percent(r.wdl.win)}, draw ${percent(r.wdl.draw)}, loss ${percent(r.wdl.loss)}`
    : `the built-in searcher's static value ${signed(r.value)} (-1 lost, +1 won; it has no move priors: search to see the moves it prefers)`;
  if (r.search) value += `; search of ${r.search.playouts} playouts: value ${signed(r.search.value)}, best move ${r.search.best_move}, line ${r.search.pv.join(" ")}`;
  $("analysis-status").textContent = `${r.to_move} to move; ${value}.`;
}

// initAnalysis sets up the view with the server's Info and NetworkInfo
// list; the server's default network, if any, is chosen (fillEngines).
export function initAnalysis(info, list) {
  networks = list;
  board = new Board($("analysis-board"), {});
  addOptions($("analysis-variant"), info.variants.map((v) => [v, v]));
  fillEngines($("analysis-network"), networks);
  showOwn($("analysis-network"), networks, $("analysis-variant").value);
  $("analysis-variant").addEventListener("change", () => showOwn($("analysis-network"), networks, $("analysis-variant").value));
  $("analysis-eval").addEventListener("click", () => analyse(0));
  $("analysis-search").addEventListener("click", () => analyse(parseInt($("analysis-playouts").value, 10) || 1));
}
