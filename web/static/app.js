// taflab's page, as ES modules with no build step: this one starts the
// others. Four views share one board widget (board.js); the server
// (package web) holds the games and the rules, and answers the API
// (api.js); the colours are chart.Palette's (palette.js, made by the
// server).

import * as api from "./api.js";
import { $ } from "./dom.js";
import { initViews, showView, views } from "./views.js";
import { initPlay } from "./play.js";
import { initReplay, loadFiles } from "./replay.js";
import { initAnalysis } from "./analysis.js";
import { initRuns } from "./runs.js";

async function init() {
  let info, networks;
  try {
    info = await api.info();
    networks = await api.networks();
  } catch (err) {
    $("play-status").textContent = "The server does not answer: " + err.message;
    return;
  }
  initViews();
  initPlay(info, networks);
  initReplay(info, networks);
  initAnalysis(info, networks);
  initRuns();
  await loadFiles();
  document.body.dataset.ready = "1";
  const view = new URLSearchParams(location.search).get("view");
  if (view && views.includes(view)) showView(view);
}

init();
