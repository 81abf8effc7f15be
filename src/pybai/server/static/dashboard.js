// pybai session dashboard: polls the session's status and history documents and redraws the page
// (no reload, no library, no network access beyond this server).
"use strict";

(function () {
  const main = document.getElementById("main");
  const name = main.dataset.session;
  const base = "/sessions/" + encodeURIComponent(name);
  const pollMs = Math.max(200, 1000 * Number(main.dataset.poll || 2));
  const SVG = "http://www.w3.org/2000/svg";
  // Okabe-Ito colours, darkened where needed for contrast on white (>= 3:1 for lines)
  const COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#8C6A00", "#3B7FA6", "#6B4C9A", "#444444",
                   "#A33E00", "#00745A"];
  let lastSamples = null;

  // ---------------------------------------------------------------- small helpers
  function $(id) { return document.getElementById(id); }

  function svg(tag, attrs, children) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    for (const child of children || []) node.append(child);
    return node;
  }

  function text(tag, content, cls) {
    const node = document.createElement(tag);
    node.textContent = content;
    if (cls) node.className = cls;
    return node;
  }

  function fmt(x, digits) {
    if (x === null || x === undefined || Number.isNaN(x)) return "–";
    if (Number.isInteger(x) && Math.abs(x) < 1e9) return x.toLocaleString("en");
    return Number(x).toPrecision(digits || 4).replace(/\.?0+(e|$)/, "$1");
  }

  function flat(values) { return Array.isArray(values) ? values.flat(Infinity) : []; }

  function niceTicks(low, high, count, integers) {
    if (!(high > low)) { high = low + 1; }
    const raw = Math.max((high - low) / Math.max(1, count), integers ? 1 : 0);
    const step = Math.pow(10, Math.floor(Math.log10(raw)));
    const unit = [1, 2, 5, 10].map((m) => m * step).find((s) => s >= raw) || 10 * step;
    const ticks = [];
    for (let t = Math.ceil(low / unit) * unit; t <= high + 1e-9 * unit; t += unit) ticks.push(+t.toPrecision(12));
    return ticks;
  }

  // names of the sources: the status's labels when it has them, else "arm i" (cells: "arm a / subpopulation l")
  function sourceNames(status) {
    const counts = status.counts || [];
    const twoD = Array.isArray(counts[0]);
    const labels = Array.isArray(status.labels) ? status.labels : null;
    const arm = (a) => (labels && labels[a] !== undefined ? String(labels[a]) : "arm " + a);
    if (!twoD) return counts.map((_, a) => arm(a));
    const out = [];
    counts.forEach((row, a) => row.forEach((_, l) => out.push(arm(a) + " / subpopulation " + l)));
    return out;
  }

  function armNames(status, nArms) {
    const labels = Array.isArray(status.labels) ? status.labels : null;
    return Array.from({ length: nArms }, (_, a) => (labels && labels[a] !== undefined ? String(labels[a]) : "arm " + a));
  }

  // ---------------------------------------------------------------- header and cards
  function renderState(status) {
    const badge = $("state");
    let label = status.status;
    let cls = "badge running";
    if (status.stopped) {
      cls = "badge stopped";
      if (status.certified) { label = "certified"; cls = "badge certified"; }
      else if (status.status === "stopped") label = "stopped (not certified)";
    }
    badge.textContent = label;
    badge.className = cls;
    const parts = [status.goal, status.strategy];
    if (status.delta !== null && status.delta !== undefined) parts.push("δ = " + fmt(status.delta));
    if (status.budget !== null && status.budget !== undefined) parts.push("budget " + fmt(status.budget));
    if (status.threshold_kind) parts.push(status.threshold_kind + " threshold");
    $("summary").textContent = parts.join(" · ");
    $("recommendation").textContent = status.answer;  // in words, with the arms' labels when they have them
    $("message").textContent = (status.message || "") +
      (status.reward_model_note ? " Reward model: " + status.reward_model_note + "." : "");
    $("samples").textContent = fmt(status.samples);
    $("requests").textContent = fmt(status.requests) + " requests, " + fmt(status.answers) + " answers" +
      (status.last_answer ? "; last answer " + status.last_answer.replace("T", " ").slice(0, 19) + " UTC" : "");
  }

  function renderGlr(status) {
    const box = $("glr");
    box.replaceChildren();
    const stat = status.statistic, thr = status.threshold;
    const words = [];
    if (thr === null || thr === undefined) {
      $("glr-text").textContent = status.regime === "fixed-budget"
        ? "Fixed budget: the session stops when the budget is spent (no stopping statistic)."
        : "No statistic yet: no sample has been told.";
      return;
    }
    const top = Math.max(thr, stat || 0) * 1.15 || 1;
    const width = 480, height = 46, x = (v) => 8 + (width - 16) * Math.min(v, top) / top;
    const parts = [svg("rect", { x: 8, y: 10, width: width - 16, height: 18, rx: 3, class: "track" })];
    if (stat !== null && stat !== undefined) {
      parts.push(svg("rect", { x: 8, y: 10, width: Math.max(0, x(stat) - 8), height: 18, rx: 3,
        class: stat >= thr ? "bar done" : "bar" }));
    }
    parts.push(svg("line", { x1: x(thr), x2: x(thr), y1: 4, y2: 34, class: "threshold" }));
    const thrLabel = svg("text", { x: Math.min(x(thr), width - 8), y: 44, "text-anchor": "end", class: "tick" });
    thrLabel.textContent = "threshold " + fmt(thr);
    parts.push(thrLabel);
    box.append(svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "meter", "aria-hidden": "true" }, parts));
    if (stat === null || stat === undefined) words.push("Statistic undefined (some arm has no sample yet)");
    else words.push(`Statistic ${fmt(stat)} vs threshold ${fmt(thr)} (${Math.round(100 * stat / thr)}%)`);
    if (status.threshold_count_dependent) words.push("the rule tests each pair with its own counts and may stop below this level");
    if (status.estimated_samples_to_stop !== null && status.estimated_samples_to_stop !== undefined && !status.stopped) {
      words.push(`at the current estimates it would stop after about ${fmt(status.estimated_samples_to_stop)} more samples`);
    }
    if (status.near_tie && status.near_tie.message) words.push("near tie: " + status.near_tie.message);
    $("glr-text").textContent = words.join("; ") + ".";
  }

  function renderPending(status) {
    const box = $("pending");
    let pending = status.pending;
    if (pending && !Array.isArray(pending)) pending = [pending];
    if (!pending || pending.length === 0) { box.replaceChildren(text("p", "none", "muted")); return; }
    const table = document.createElement("table");
    table.append(text("caption", pending.length + " pending request" + (pending.length > 1 ? "s" : ""), "visually-hidden"));
    const head = table.createTHead().insertRow();
    for (const h of ["request", "samples asked", "since"]) { const th = text("th", h); th.scope = "col"; head.append(th); }
    const body = table.createTBody();
    for (const p of pending) {
      const row = body.insertRow();
      row.append(text("td", String(p.request ?? p.id ?? "?")), text("td", fmt(p.size ?? (p.sources || []).length)),
                 text("td", p.created ? String(p.created).replace("T", " ").slice(0, 19) : "–"));
    }
    box.replaceChildren(table);
  }

  // ---------------------------------------------------------------- figures
  function legend(names, colours) {
    const list = document.createElement("ul");
    list.className = "legend";
    names.forEach((n, i) => {
      const item = document.createElement("li");
      const swatch = text("span", "", "swatch");
      swatch.style.background = colours[i];
      item.append(swatch, text("span", n));
      list.append(item);
    });
    return list;
  }

  function axes(parts, box, xTicks, yTicks, sx, sy, xTitle, yTitle) {
    for (const t of yTicks) {
      parts.push(svg("line", { x1: box.left, x2: box.right, y1: sy(t), y2: sy(t), class: "grid" }));
      const label = svg("text", { x: box.left - 6, y: sy(t) + 4, "text-anchor": "end", class: "tick" });
      label.textContent = fmt(t);
      parts.push(label);
    }
    for (const t of xTicks) {
      const label = svg("text", { x: sx(t), y: box.bottom + 16, "text-anchor": "middle", class: "tick" });
      label.textContent = fmt(t);
      parts.push(label);
    }
    parts.push(svg("line", { x1: box.left, x2: box.right, y1: box.bottom, y2: box.bottom, class: "axis" }));
    const xt = svg("text", { x: (box.left + box.right) / 2, y: box.bottom + 34, "text-anchor": "middle", class: "title" });
    xt.textContent = xTitle;
    const yt = svg("text", { x: 4, y: box.top - 18, class: "title" });
    yt.textContent = yTitle;
    parts.push(xt, yt);
  }

  function renderSamples(status, history) {
    const figure = $("samples-chart");
    const shape = history.shape || [];
    const nArms = shape[0] || 0;
    const perCell = shape.length === 2 ? shape[1] : 1;
    const series = history.counts.map((c) => Array.from({ length: nArms },
      (_, a) => c.slice(a * perCell, (a + 1) * perCell).reduce((s, v) => s + v, 0)));
    const names = armNames(status, nArms);
    const last = series[series.length - 1] || [];
    const order = names.map((_, a) => a).sort((a, b) => last[b] - last[a]);
    const shown = order.slice(0, 10).sort((a, b) => a - b);
    const xs = history.samples;
    const width = 900, height = 300;
    const box = { left: 64, right: width - 16, top: 34, bottom: height - 44 };
    const xMax = Math.max(1, xs[xs.length - 1] || 1);
    const yMax = Math.max(1, ...shown.map((a) => last[a] || 0));
    const sx = (v) => box.left + (box.right - box.left) * v / xMax;
    const sy = (v) => box.bottom - (box.bottom - box.top) * v / yMax;
    const parts = [];
    axes(parts, box, niceTicks(0, xMax, 8, true), niceTicks(0, yMax, 5, true), sx, sy, "samples told (all arms)", "samples of the arm");
    shown.forEach((a, i) => {
      const points = series.map((c, j) => `${sx(xs[j]).toFixed(1)},${sy(c[a]).toFixed(1)}`).join(" ");
      parts.push(svg("polyline", { points, class: "series", stroke: COLOURS[i % COLOURS.length],
        "stroke-dasharray": i >= 5 ? "6 3" : "none" }));
    });
    figure.replaceChildren(svg("svg", { viewBox: `0 0 ${width} ${height}`, "aria-hidden": "true" }, parts),
                           legend(shown.map((a) => names[a]), shown.map((_, i) => COLOURS[i % COLOURS.length])));
    const note = order.length > shown.length ? ` The ${shown.length} most-sampled of ${order.length} arms are drawn.` : "";
    $("samples-caption").textContent = "Samples so far: " + shown.map((a) => `${names[a]} ${fmt(last[a])}`).join(", ") +
      "." + note;
  }

  function renderMeans(status) {
    const figure = $("means-chart");
    const names = sourceNames(status);
    const means = flat(status.means), low = flat(status.ci_low), high = flat(status.ci_high), counts = flat(status.counts);
    const rec = status.recommendation;  // an arm, a list of arms (top-k), -1 (no feasible arm) or null
    const best = new Set((Array.isArray(rec) ? rec : [rec]).filter((a) => Number.isInteger(a) && a >= 0));
    const perCell = Array.isArray((status.counts || [])[0]) ? status.counts[0].length : 1;
    let rows = names.map((_, s) => s);
    const note = rows.length > 30 ? ` The 30 highest means of ${rows.length} are drawn (all in the table).` : "";
    if (rows.length > 30) rows = rows.sort((a, b) => (means[b] ?? -Infinity) - (means[a] ?? -Infinity)).slice(0, 30);
    const values = rows.flatMap((s) => [means[s], low[s], high[s]]).filter((v) => v !== null && Number.isFinite(v));
    const lo = values.length ? Math.min(...values) : 0, hi = values.length ? Math.max(...values) : 1;
    const pad = (hi - lo) * 0.05 || 0.5;
    const rowH = 26, width = 900, labelW = Math.min(300, 16 + 8 * Math.max(...rows.map((s) => names[s].length + 2)));
    const box = { left: labelW, right: width - 16, top: 10, bottom: 10 + rowH * rows.length };
    const height = box.bottom + 40;
    const sx = (v) => box.left + (box.right - box.left) * (v - (lo - pad)) / ((hi + pad) - (lo - pad));
    const parts = [];
    const ticks = niceTicks(lo - pad, hi + pad, 6);
    for (const t of ticks) {
      parts.push(svg("line", { x1: sx(t), x2: sx(t), y1: box.top, y2: box.bottom, class: "grid" }));
      const label = svg("text", { x: sx(t), y: box.bottom + 16, "text-anchor": "middle", class: "tick" });
      label.textContent = fmt(t);
      parts.push(label);
    }
    rows.forEach((s, i) => {
      const y = box.top + rowH * i + rowH / 2;
      const isBest = best.has(Math.floor(s / perCell));
      const label = svg("text", { x: box.left - 8, y: y + 4, "text-anchor": "end", class: isBest ? "label best" : "label" });
      label.textContent = (isBest ? "★ " : "") + names[s];
      parts.push(label);
      if (low[s] !== null && high[s] !== null && Number.isFinite(low[s]) && Number.isFinite(high[s])) {
        parts.push(svg("line", { x1: sx(low[s]), x2: sx(high[s]), y1: y, y2: y, class: "whisker" }));
        for (const v of [low[s], high[s]]) parts.push(svg("line", { x1: sx(v), x2: sx(v), y1: y - 5, y2: y + 5, class: "whisker" }));
      }
      if (means[s] !== null && Number.isFinite(means[s])) {
        parts.push(svg("circle", { cx: sx(means[s]), cy: y, r: 5, class: isBest ? "dot best" : "dot" }));
      }
    });
    const title = svg("text", { x: (box.left + box.right) / 2, y: box.bottom + 34, "text-anchor": "middle", class: "title" });
    title.textContent = "mean reward (dot) and " + Math.round(100 * (status.level || 0.95)) + "% interval";
    parts.push(title);
    figure.replaceChildren(svg("svg", { viewBox: `0 0 ${width} ${height}`, "aria-hidden": "true" }, parts));
    $("level").textContent = Math.round(100 * (status.level || 0.95)) + "%";
    const recommended = armNames(status, Math.ceil(names.length / perCell)).filter((_, a) => best.has(a));
    const shownBest = recommended.length ? ` ★ marks the recommendation (${recommended.join(", ")}).` : "";
    $("means-caption").textContent = rows.map((s) => `${names[s]}: ${fmt(means[s])} [${fmt(low[s])}, ${fmt(high[s])}], ` +
      `${fmt(counts[s])} samples`).join("; ") + "." + shownBest + note;
    renderTable(names, counts, means, low, high, flat(status.sd));
  }

  function renderTable(names, counts, means, low, high, sd) {
    const table = document.createElement("table");
    table.id = "arms";
    table.append(text("caption", "Samples, means and intervals per arm"));
    const head = table.createTHead().insertRow();
    const columns = ["arm", "samples", "mean", "interval"].concat(sd.length ? ["sd"] : []);
    for (const h of columns) { const th = text("th", h); th.scope = "col"; head.append(th); }
    const body = table.createTBody();
    names.forEach((n, s) => {
      const row = body.insertRow();
      const th = text("th", n);
      th.scope = "row";
      row.append(th, text("td", fmt(counts[s])), text("td", fmt(means[s])),
                 text("td", low[s] === null || low[s] === undefined ? "–" : `[${fmt(low[s])}, ${fmt(high[s])}]`));
      if (sd.length) row.append(text("td", fmt(sd[s])));
    });
    $("table").replaceChildren(table);
  }

  // ---------------------------------------------------------------- polling
  async function getJson(path) {
    const response = await fetch(base + path, { cache: "no-store", headers: { Accept: "application/json" } });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.error || response.status + " " + response.statusText);
    return body;
  }

  async function refresh() {
    try {
      const [status, history] = await Promise.all([getJson("/status"), getJson("/history")]);
      renderState(status);
      renderGlr(status);
      renderPending(status);
      renderSamples(status, history);
      renderMeans(status);
      $("problem").hidden = true;
      if (status.samples !== lastSamples) {
        const added = lastSamples === null ? "" : ` (${status.samples - lastSamples} new)`;
        $("live").textContent = `${fmt(status.samples)} samples${added}, status ${$("state").textContent}; ` +
          "updated " + new Date().toLocaleTimeString();
        lastSamples = status.samples;
      }
      main.dataset.updated = String(Date.now());
    } catch (error) {
      const problem = $("problem");
      problem.textContent = "Cannot refresh: " + error.message + " (retrying)";
      problem.hidden = false;
    } finally {
      setTimeout(refresh, document.hidden ? 5 * pollMs : pollMs);
    }
  }

  refresh();
})();
