// The play view: a game against the engine (or between two people) on the
// server, by mouse or keyboard, with a confirmation of keyboard moves.

import * as api from "./api.js";
import { Board, parsePosition } from "./board.js";
import { $, addOptions } from "./dom.js";
import { fillEngines, showOwn } from "./engines.js";
import { openAnalysis } from "./analysis.js";
import { reviewPlayed } from "./replay.js";

let game = null;    // the GameState the server last sent
let selected = null; // the square of the piece the person picked
let pending = null;  // the move the confirmation dialogue asks about
let armed = false;   // whether a key came up since the dialogue opened
let toml = "";       // the rule-set file's text, for the "file" rule set
let busy = false;    // the engine is thinking
let board;

function isHumanTurn() {
  return game && !game.outcome.over && game.humans.includes(game.to_move) && !busy;
}

function destinations(from) {
  const out = new Set();
  if (!game || !from) return out;
  for (const m of game.legal) {
    const [f, t] = m.split("-");
    if (f === from) out.add(t);
  }
  return out;
}

function render() {
  const st = game;
  if (!st) return;
  const marks = { legal: isHumanTurn() ? destinations(selected) : new Set(), selected };
  if (st.last_move) {
    marks.captures = st.last_move.captures;
    marks.last = [st.last_move.from, st.last_move.to];
  }
  board.render(st.board, st.position, marks);
  $("play-board").dataset.toMove = st.to_move;
  $("play-board").dataset.ply = st.ply;
  const ol = $("play-moves");
  ol.textContent = "";
  st.moves.forEach((m) => { const li = document.createElement("li"); li.textContent = m; ol.appendChild(li); });
  $("play-record").value = st.record;
  const end = $("play-end");
  end.hidden = !st.outcome.over;
  $("play-review").hidden = !st.outcome.over || st.moves.length === 0;
  end.textContent = st.outcome.over ? st.outcome.text : "";
  end.dataset.winner = st.outcome.winner;
  end.dataset.reason = st.outcome.reason;
  let status;
  if (st.outcome.over) status = "Game over. " + st.outcome.text;
  else if (busy || st.engine_to_move) status = `The ${st.to_move} (${st.engine}, ${st.playouts} playouts) are thinking…`;
  else if (selected) status = `${selected} selected: choose where it goes, or Escape to cancel.`;
  else status = `Your move (${st.to_move}).`;
  if (st.last_move && !st.outcome.over) {
    status = `Last move ${st.last_move.move}` + (st.last_move.captures.length ? ` (captured ${st.last_move.captures.join(", ")})` : "") + ". " + status;
  }
  $("play-status").textContent = status;
}

async function newGame(e) {
  if (e) e.preventDefault();
  const variant = $("play-variant").value;
  const req = {
    variant: variant === "file" ? "" : variant,
    variant_toml: variant === "file" ? toml : "",
    start: $("play-start").value.trim(),
    human: $("play-human").value,
    engine: $("play-engine").value,
    playouts: parseInt($("play-playouts").value, 10) || 0,
  };
  try {
    game = await api.newGame(req);
    selected = null;
    render();
    await engineIfDue();
    board.focus();
  } catch (err) {
    $("play-status").textContent = "Could not start: " + err.message;
  }
}

// engineIfDue asks for the engine's moves while it is the engine's turn. A
// server busy with other searches (503) is asked again after the delay it
// gives, a few times, before the page gives up and says so.
async function engineIfDue() {
  let retries = 0;
  while (game && game.engine_to_move && !game.outcome.over) {
    const id = game.id;
    busy = true;
    render();
    try {
      game = await api.engineMove(id);
    } catch (err) {
      if (err.status === 503 && err.retryAfter > 0 && retries < 5) {
        retries++;
        busy = false; // nothing runs while the page waits
        $("play-status").textContent = `Engine: ${err.message} Asking again in ${err.retryAfter} s.`;
        await new Promise((resolve) => setTimeout(resolve, err.retryAfter * 1000));
        if (!game || game.id !== id) return; // another game was started meanwhile
        continue;
      }
      busy = false;
      $("play-status").textContent = "Engine: " + err.message;
      return;
    }
    retries = 0;
    busy = false;
    render();
  }
}

function onActivate(sq, viaKeyboard) {
  if (!isHumanTurn() || !$("confirm").hidden) return;
  const piece = parsePosition(game.position).cells[sq];
  const own = piece && ((game.to_move === "attackers") === (piece === "a"));
  if (selected && destinations(selected).has(sq)) {
    const m = selected + "-" + sq;
    if (viaKeyboard) askConfirm(m);
    else play(m);
    return;
  }
  if (own) {
    selected = selected === sq ? null : sq;
    if (selected && destinations(sq).size === 0) {
      $("play-status").textContent = `${sq} has no legal move.`;
      selected = null;
      return;
    }
  } else if (selected) {
    $("play-status").textContent = `${selected}-${sq} is not a legal move.`;
    return;
  }
  render();
}

// askConfirm opens the confirmation dialogue. The key that opened it is
// still going down when the focus moves to Confirm, and the browser would
// press Confirm with it: the buttons take keys only after a key comes up.
function askConfirm(m) {
  pending = m;
  armed = false;
  $("confirm-text").textContent = `Play ${m}?`;
  $("confirm").hidden = false;
  $("confirm-yes").focus();
}

function closeConfirm() {
  $("confirm").hidden = true;
  pending = null;
  board.focus();
}

async function play(m) {
  selected = null;
  try {
    game = await api.move(game.id, m);
  } catch (err) {
    $("play-status").textContent = err.message;
    return;
  }
  render();
  await engineIfDue();
}

async function undo() {
  if (!game) return;
  try {
    game = await api.undo(game.id);
    selected = null;
    render();
  } catch (err) {
    $("play-status").textContent = "Undo: " + err.message;
  }
}

// initPlay sets up the view with the server's Info and NetworkInfo list,
// and takes the settings of a new game from the address:
// ?variant=&start=&human=&engine=&playouts=
export function initPlay(info, networks) {
  board = new Board($("play-board"), {
    interactive: true,
    onActivate,
    onEscape: () => { selected = null; render(); },
  });
  addOptions($("play-variant"), [...info.variants.map((v) => [v, v]), ["rule-set file…", "file"]]);
  const variantChosen = () => $("play-variant").value === "file" ? "" : $("play-variant").value;
  $("play-variant").addEventListener("change", () => {
    $("play-toml-label").hidden = $("play-variant").value !== "file";
    showOwn($("play-engine"), networks, variantChosen());
  });
  $("play-toml").addEventListener("change", async () => {
    const f = $("play-toml").files[0];
    toml = f ? await f.text() : "";
    if (f) $("play-status").textContent = `Rule-set file ${f.name} read: start a new game to play it.`;
  });
  fillEngines($("play-engine"), networks);
  $("play-playouts").max = info.max_playouts;
  $("play-form").addEventListener("submit", newGame);
  $("play-undo").addEventListener("click", undo);
  $("play-copy").addEventListener("click", async () => {
    $("play-record").select();
    try { await navigator.clipboard.writeText($("play-record").value); $("play-status").textContent = "Record copied."; }
    catch (e) { document.execCommand && document.execCommand("copy"); }
  });
  $("play-review").addEventListener("click", () => { if (game) reviewPlayed(game.id); });
  $("play-analyse").addEventListener("click", () => {
    if (!game) return;
    const variant = $("play-variant").value;
    openAnalysis({ variant: variant === "file" ? "" : variant, variant_toml: variant === "file" ? toml : "",
      start: game.start, moves: game.moves.map((m) => m.split("x")[0]), board: game.board, position: game.position });
  });
  const fromKeyboard = (e) => e.detail === 0;
  document.addEventListener("keyup", () => { if (!$("confirm").hidden) armed = true; });
  $("confirm-yes").addEventListener("click", (e) => {
    if (fromKeyboard(e) && !armed) return;
    const m = pending;
    closeConfirm();
    if (m) play(m);
  });
  $("confirm-no").addEventListener("click", (e) => { if (!fromKeyboard(e) || armed) closeConfirm(); });
  $("confirm").addEventListener("keydown", (e) => {
    if (e.key === "Escape") { e.preventDefault(); closeConfirm(); }
    if (e.key === "Tab") { // keep focus inside the dialogue
      e.preventDefault();
      (document.activeElement === $("confirm-yes") ? $("confirm-no") : $("confirm-yes")).focus();
    }
  });
  const q = new URLSearchParams(location.search);
  for (const k of ["variant", "start", "human", "engine", "playouts"]) if (q.get(k)) $("play-" + k).value = q.get(k);
  $("play-engine").dataset.chosen = $("play-engine").value;
  showOwn($("play-engine"), networks, variantChosen());
}
