// The runs view: a run folder's generations (summary.json, loop.GenSummary
// each), its worker hosts (loop.HostThroughput), and its balance and
// ratings reports (balance.Report, ratings.Report), as charts and tables. Series take the colours of the same series in the run's
// summary.png (loop's plotSummary): chart.Color(i) is palette[i].

import * as api from "./api.js";
import { $, addOptions, figure, table } from "./dom.js";
import { lineChart } from "./charts.js";
import { whenShown } from "./views.js";

let listed = false; // whether the run select holds the server's runs

async function loadRuns() {
  if (listed) return;
  listed = true;
  let runs;
  try { runs = await api.runs(); } catch (err) { $("runs-status").textContent = err.message; return; }
  $("runs-run").textContent = "";
  if (!runs.length) { $("runs-status").textContent = "No run folder (start the server with -run)."; return; }
  addOptions($("runs-run"), runs.map((r) => [r, r]));
  await showRun();
}

// Where summary.png puts a series, its colour's index: the rating against
// the baseline first (its interval's lines take 1 and 2), the rating over
// all games fourth; the sides' outcomes in the sides' colours, draws third.
const colour = { vsBaseline: 0, allGames: 3, gateElo: 4, attackerWins: 0, defenderWins: 1, drawShare: 2, fromStart: 3 };

function generations(charts, gens) {
  const gateMarker = { promoted: "triangle", rejected: "square", undecided: "circle" };
  lineChart(charts, "Rating against the baseline", "generation", "Elo (95% interval)", [
    { name: "Elo against the network-free searcher", color: colour.vsBaseline, points: gens.filter((g) => g.baseline_games > 0).map((g) => ({ x: g.generation, y: g.baseline_elo, lo: g.baseline_elo_lo, hi: g.baseline_elo_hi })) },
    { name: "Elo over all the run's gate and baseline games", color: colour.allGames, points: gens.filter((g) => g.rating_games > 0).map((g) => ({ x: g.generation, y: g.rating, lo: g.rating - g.rating_ci95, hi: g.rating + g.rating_ci95 })) },
    { name: "gate: Elo against the best so far", color: colour.gateElo, points: gens.filter((g) => g.gate).map((g) => ({ x: g.generation, y: g.gate_elo, marker: gateMarker[g.gate] || "circle" })) },
  ], { zero: true, extraLegend: [["triangle", "promoted"], ["square", "rejected"], ["circle", "undecided"]] });
  const trained = gens.filter((g) => g.loss);
  lineChart(charts, "Training loss", "generation", "loss", [
    { name: "total", points: trained.map((g) => ({ x: g.generation, y: g.loss })) },
    { name: "policy", points: trained.map((g) => ({ x: g.generation, y: g.policy_loss })) },
    { name: "value", points: trained.map((g) => ({ x: g.generation, y: g.value_loss })) },
  ]);
  lineChart(charts, "Self-play results", "generation", "share of games", [
    { name: "attackers win", color: colour.attackerWins, points: gens.map((g) => ({ x: g.generation, y: g.attacker_wins })) },
    { name: "defenders win", color: colour.defenderWins, points: gens.map((g) => ({ x: g.generation, y: g.defender_wins })) },
    { name: "draws", color: colour.drawShare, points: gens.map((g) => ({ x: g.generation, y: g.draws })) },
    { name: "attackers win, from the start", color: colour.fromStart, points: gens.filter((g) => g.selfplay_from_start && g.selfplay_from_start.games).map((g) => ({ x: g.generation, y: g.selfplay_from_start.attacker_wins / g.selfplay_from_start.games })) },
  ], { percent: true, yMin: 0, yMax: 1 });
  const t = document.createElement("table");
  table(t, ["gen", "games", "gate", "gate Elo", "LLR", "rating (all games)", "vs baseline", "playout odds"], gens.map((g) => [g.generation, g.selfplay_games, g.gate || "", g.gate ? g.gate_elo.toFixed(0) : "",
    g.gate ? g.gate_llr.toFixed(2) : "", g.rating_games ? `${g.rating.toFixed(0)} ± ${g.rating_ci95.toFixed(0)}` : "",
    g.baseline_games ? `${g.baseline_elo.toFixed(0)} [${g.baseline_elo_lo.toFixed(0)}, ${g.baseline_elo_hi.toFixed(0)}]` : "", g.baseline_odds || ""]), "Generations: gate results and ratings");
  figure(charts, "", t);
}

function hosts(charts, list) {
  const t = document.createElement("table");
  table(t, ["host", "processes", "games", "positions", "hours", "games/hour"], list.map((h) => [h.host, h.processes, h.games, h.positions,
    h.hours.toFixed(2), h.games_per_hour.toFixed(0)]), "Self-play by worker host");
  figure(charts, "", t);
}

// balance shows a balance report: its runs (a player each) and its game
// records (labelled by their file), and the defenders' rate by playouts.
function balance(charts, b) {
  const rows = (b.report.runs || []).concat((b.report.records || []).map((x) => ({ ...x, player: "records " + x.file.split("/").pop() })));
  const t = document.createElement("table");
  const iv = (s) => s ? `${(100 * s.rate).toFixed(1)}% [${(100 * s.lo).toFixed(1)}, ${(100 * s.hi).toFixed(1)}]` : "";
  table(t, ["rule set", "player", "games", "attackers", "defenders", "draws"], rows.map((x) => [x.variant, x.player, x.games, iv(x.attackers), iv(x.defenders), iv(x.draws)]),
    "Win rates with 95% Wilson intervals");
  figure(charts, `Balance: ${b.path}`, t);
  // Defender rate against strength, a line per rule set.
  const byVariant = {};
  for (const x of rows) if (x.playouts) (byVariant[x.variant] = byVariant[x.variant] || []).push({ x: x.playouts, y: x.defenders.rate, lo: x.defenders.lo, hi: x.defenders.hi });
  const entries = Object.entries(byVariant);
  const series = entries.map(([name, points], i) => ({ name, points, shift: 6 * (i - (entries.length - 1) / 2) }));
  if (series.length && series.some((s) => s.points.length > 1)) {
    lineChart(charts, `Balance by strength: ${b.path}`, "playouts per move (log scale)", "defender win rate (95%)", series, { percent: true, yMin: 0, yMax: 1, logX: true });
  }
}

// ratings shows a ratings report, which fits each group of players that
// games link on its own (the first at the top level, the others in
// other_groups): a table each, and a chart of the generations' ratings.
function ratings(charts, rt) {
  const groups = [rt.report, ...(rt.report.other_groups || [])];
  groups.forEach((g, i) => {
    const of = groups.length > 1 ? ` (group ${i + 1} of ${groups.length}, no games link the groups)` : "";
    const fig = figure(charts, `Ratings: ${rt.path}${of}`);
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
    const rated = players.filter((p) => p.generation !== null && p.generation !== undefined);
    if (rated.length) { // the chart beside its table
      lineChart(charts, `Ratings by generation: ${rt.path}${of}`, "generation", `Elo (95% interval), ${g.anchor} = 0`,
        [{ name: "rating", points: rated.map((p) => ({ x: p.generation, y: p.elo, lo: p.elo - p.ci95, hi: p.elo + p.ci95 })) }], { zero: true });
    }
  });
}

async function showRun() {
  const charts = $("runs-charts");
  charts.textContent = "";
  let r;
  try { r = await api.run($("runs-run").value); } catch (err) { $("runs-status").textContent = err.message; return; }
  const gens = r.summary || [];
  $("runs-status").textContent = `${gens.length} generations, ${r.balance.length} balance reports, ${r.ratings.length} ratings reports.` + (r.errors.length ? " " + r.errors.join("; ") : "");
  if (gens.length) generations(charts, gens);
  if (r.hosts && r.hosts.length) hosts(charts, r.hosts);
  for (const b of r.balance) balance(charts, b);
  for (const rt of r.ratings) ratings(charts, rt);
}

// initRuns lists the run folders when the view is first shown.
export function initRuns() {
  whenShown("runs", loadRuns);
  $("runs-run").addEventListener("change", showRun);
}
