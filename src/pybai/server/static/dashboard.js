// pybai session dashboard: polls the session's status and history documents and redraws the page
// (no reload, no library, no network access beyond this server).  Figures are drawn at the width
// they are shown (one SVG unit = one CSS pixel), so their text keeps its size on a phone.
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
  let last = null;  // [status, history] of the last refresh (redrawn when the window is resized)

  // ---------------------------------------------------------------- small helpers
  function $(id) { return document.getElementById(id); }

  function svg(tag, attrs, children) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    for (const child of children || []) node.append(child);
    return node;
  }

  function label(x, y, content, cls, anchor) {
    const node = svg("text", { x, y, "text-anchor": anchor || "start", class: cls || "tick" });
    node.textContent = content;
    return node;
  }

  function text(tag, content, cls) {
    const node = document.createElement(tag);
    node.textContent = content;
    if (cls) node.className = cls;
    return node;
  }

  function given(x) { return x !== null && x !== undefined; }

  function fmt(x, digits) {
    if (!given(x) || Number.isNaN(x)) return "–";
    if (Number.isInteger(x) && Math.abs(x) < 1e9) return x.toLocaleString("en");
    return Number(x).toPrecision(digits || 3).replace(/\.?0+(e|$)/, "$1");
  }

  // one format for every time on the page: 2026-11-25 01:40:54 UTC (the server's pages use the same)
  function stamp(iso) {
    if (!iso) return "–";
    const when = new Date(iso);
    if (Number.isNaN(when.getTime())) return String(iso);
    return when.toISOString().slice(0, 19).replace("T", " ") + " UTC";
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

  function widthOf(node) { return Math.max(280, Math.floor(node.clientWidth || 880)); }

  function clip(s, chars) { return s.length <= chars ? s : s.slice(0, Math.max(1, chars - 1)) + "…"; }

  // names of the sources: the status's labels when it has them, else "arm i" (cells: "arm a / subpopulation l")
  function sourceNames(status) {
    const counts = status.counts || [];
    const twoD = Array.isArray(counts[0]);
    const labels = Array.isArray(status.labels) ? status.labels : null;
    const arm = (a) => (labels && given(labels[a]) ? String(labels[a]) : "arm " + a);
    if (!twoD) return counts.map((_, a) => arm(a));
    const out = [];
    counts.forEach((row, a) => row.forEach((_, l) => out.push(arm(a) + " / subpop. " + l)));
    return out;
  }

  // the metrics of one observation (sessions with guardrails: one column per metric, the first the objective)
  function metricsOf(status) { return Array.isArray(status.metrics) && status.metrics.length ? status.metrics : null; }

  function armNames(status, nArms) {
    const labels = Array.isArray(status.labels) ? status.labels : null;
    return Array.from({ length: nArms }, (_, a) => (labels && given(labels[a]) ? String(labels[a]) : "arm " + a));
  }

  // ---------------------------------------------------------------- header and cards
  function renderState(status) {
    const badge = $("state");
    badge.textContent = status.state || status.status;
    badge.className = "badge " + ({ certified: "certified", running: "running" }[status.state] || "stopped");
    const parts = [status.goal, status.strategy];
    if (given(status.delta)) parts.push("δ = " + fmt(status.delta));
    if (given(status.epsilon)) parts.push("ε = " + fmt(status.epsilon) + (status.epsilon_mode === "relative" ? " (relative)" : ""));
    if (given(status.budget)) parts.push("budget " + fmt(status.budget));
    if (status.threshold_kind) parts.push(status.threshold_kind + " threshold");
    $("summary").textContent = parts.join(" · ");
    $("recommendation").textContent = status.answer;  // in words, with the arms' labels when they have them
    $("message").textContent = (status.message || "") +
      (status.reward_model_note ? " Reward model: " + status.reward_model_note + "." : "");
    $("samples").textContent = fmt(status.samples);
    $("requests").textContent = fmt(status.requests) + " requests, " + fmt(status.answers) + " answers; last " +
      stamp(status.last_answer);
  }

  function renderGlr(status) {
    const box = $("glr");
    box.replaceChildren();
    const stat = status.statistic, thr = status.threshold;
    if (!given(thr)) {
      $("glr-text").textContent = status.regime === "fixed-budget"
        ? "Fixed budget: the session stops when the budget is spent (no stopping statistic)."
        : (status.samples ? "This strategy stops by a rule of its own (no statistic to show)."
                          : "No statistic yet: no sample has been told.");
      return;
    }
    // statistic >= threshold exactly when the rule stops: the bar reaches the line then, never before
    const value = given(stat) ? Math.max(stat, 0) : 0;
    const top = Math.max(thr, value) * 1.1 || 1;
    const width = widthOf(box), height = 48;
    const x = (v) => 4 + (width - 8) * Math.min(v, top) / top;
    const done = given(stat) && stat >= thr;
    const parts = [svg("rect", { x: 4, y: 8, width: width - 8, height: 20, rx: 3, class: "track" }),
                   svg("rect", { x: 4, y: 8, width: Math.max(0, x(value) - 4), height: 20, rx: 3, class: done ? "bar done" : "bar" }),
                   svg("line", { x1: x(thr), x2: x(thr), y1: 2, y2: 34, class: "threshold" }),
                   label(Math.min(x(thr), width - 4), 47, "threshold " + fmt(thr), "tick", "end")];
    box.append(svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, class: "meter", "aria-hidden": "true" }, parts));
    const what = status.statistic_name || "statistic";
    const What = what[0].toUpperCase() + what.slice(1);
    $("glr-text").textContent = !given(stat) ? "Statistic undefined until every arm has a sample."
      : done ? `${What}: ${fmt(stat)}, past the threshold of ${fmt(thr)}.`
        : stat <= 0 ? `${What}: none yet (${fmt(stat)}); the threshold is ${fmt(thr)}.`
          : `${What}: ${fmt(stat)} of the ${fmt(thr)} needed (${Math.round(100 * stat / thr)}%).`;
  }

  function renderToStop(status) {
    const more = status.estimated_samples_to_stop;
    let line = "";
    if (status.stopped) line = `Stopped after ${fmt(status.samples)} samples.`;
    else if (status.regime === "fixed-budget") line = `Stops when the budget of ${fmt(status.budget)} is spent.`;
    else if (given(more)) {
      const left = given(status.max_samples) ? status.max_samples - status.samples : null;
      line = `Estimated samples to stop: about ${fmt(more)} more, at the current estimates` +
        (given(left) && more > left ? ` (beyond the ${fmt(left)} left before max_samples).` : ".");
    } else if (given(status.statistic)) {
      line = status.near_tie && status.near_tie.statistic === 0
        ? "Estimated samples to stop: never at the current estimates (an exact tie)."
        : "Estimated samples to stop: unknown (far more than the samples so far, or not estimated for this rule).";
    }
    $("to-stop").textContent = line;
    const tie = $("tie"), near = status.near_tie;
    if (near) {
      const who = Array.isArray(near.arms) ? armNames(status, flat(status.counts).length).filter((_, a) => near.arms.includes(a))
        .join(" and ") : "the leading answers";
      const take = near.statistic === 0 ? "they never separate at the current estimates (an exact tie)"
        : `separating them would take more than ${near.factor || 10} times the ${fmt(status.samples)} samples so far`;
      tie.textContent = `Near tie: ${who}. Their ${Math.round(100 * (status.level || 0.95))}% intervals overlap and ${take}` +
        (status.epsilon_settable ? "; setting ε below lets the session stop." : ".");
      tie.hidden = false;
    } else tie.hidden = true;
  }

  function renderEpsilon(status) {
    const form = $("epsilon-form");
    form.hidden = !status.epsilon_settable;
    // guardrail metrics take an additive tolerance on the objective only
    const relative = $("epsilon-mode").querySelector("option[value=relative]");
    relative.disabled = Boolean(metricsOf(status));
    if (relative.disabled && relative.selected) $("epsilon-mode").value = "additive";
    let note = "";
    if (given(status.epsilon)) note = `ε = ${fmt(status.epsilon)} (${status.epsilon_mode}) is in force.`;
    if (!status.epsilon_settable && status.regime === "fixed-confidence" && !status.stopped && !status.proven) {
      note += (note ? " " : "") + "An epsilon cannot be set here: the heuristic threshold has no guarantee to keep.";
    }
    $("epsilon-state").textContent = note;
  }

  async function submitEpsilon(event) {
    event.preventDefault();
    const out = $("epsilon-result");
    const headers = { "Content-Type": "application/json", Accept: "application/json" };
    const token = $("token").value.trim();
    if (token) headers.Authorization = "Bearer " + token;
    const body = JSON.stringify({ epsilon: Number($("epsilon").value), epsilon_mode: $("epsilon-mode").value });
    try {
      const response = await fetch(base + "/epsilon", { method: "POST", headers, body, cache: "no-store" });
      const answer = await response.json().catch(() => ({}));
      if (response.status === 401 || response.status === 403) $("token-box").hidden = false;
      if (!response.ok) throw new Error(answer.error || response.status + " " + response.statusText);
      out.textContent = "Epsilon set: " + (answer.state || answer.status) + ".";
      refresh(false);
    } catch (error) {
      out.textContent = "Not set: " + error.message;
    }
  }

  function plural(n, word) { return fmt(n) + " " + word + (n === 1 ? "" : "s"); }

  function renderPending(status) {
    const box = $("pending");
    let pending = status.pending;
    if (pending && !Array.isArray(pending)) pending = [pending];
    if (!pending || pending.length === 0) { box.replaceChildren(text("p", "no request pending", "muted")); return; }
    const list = document.createElement("ul");
    list.className = "plain";
    for (const p of pending.slice(0, 5)) {
      const size = p.size ?? (p.sources || []).length;
      list.append(text("li", `pending: request ${p.request ?? p.id ?? "?"}, ${plural(size, "sample")}` +
        (p.created ? ", since " + stamp(p.created) : "")));
    }
    if (pending.length > 5) list.append(text("li", `and ${pending.length - 5} more pending requests`));
    box.replaceChildren(list);
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

  function renderSamples(status, history) {
    const figure = $("samples-chart");
    const shape = history.shape || [];
    const nArms = shape[0] || 0;
    const perCell = shape.length === 2 ? shape[1] : 1;
    // with metrics, an observation brings every metric of its arm: the arm's count is its objective's
    const metrics = metricsOf(status);
    const series = history.counts.map((c) => Array.from({ length: nArms }, (_, a) => metrics ? c[a * perCell]
      : c.slice(a * perCell, (a + 1) * perCell).reduce((s, v) => s + v, 0)));
    const names = armNames(status, nArms);
    const end = series[series.length - 1] || [];
    const order = names.map((_, a) => a).sort((a, b) => end[b] - end[a]);
    const shown = order.slice(0, 10).sort((a, b) => a - b);
    const xs = metrics ? history.samples.map((v) => v / perCell) : history.samples;
    const width = widthOf(figure), narrow = width < 560;
    const height = narrow ? 230 : 300;
    const box = { left: 56, right: width - 12, top: 26, bottom: height - 42 };
    const xMax = Math.max(1, xs[xs.length - 1] || 1);
    const yMax = Math.max(1, ...shown.map((a) => end[a] || 0));
    const sx = (v) => box.left + (box.right - box.left) * v / xMax;
    const sy = (v) => box.bottom - (box.bottom - box.top) * v / yMax;
    const parts = [];
    for (const t of niceTicks(0, yMax, narrow ? 4 : 5, true)) {
      parts.push(svg("line", { x1: box.left, x2: box.right, y1: sy(t), y2: sy(t), class: "grid" }),
                 label(box.left - 6, sy(t) + 4, fmt(t), "tick", "end"));
    }
    for (const t of niceTicks(0, xMax, narrow ? 4 : 8, true)) parts.push(label(sx(t), box.bottom + 17, fmt(t), "tick", "middle"));
    parts.push(svg("line", { x1: box.left, x2: box.right, y1: box.bottom, y2: box.bottom, class: "axis" }),
               label((box.left + box.right) / 2, box.bottom + 36, "samples told (all arms)", "title", "middle"),
               label(4, box.top - 12, "samples of each arm", "title"));
    shown.forEach((a, i) => {
      const points = series.map((c, j) => `${sx(xs[j]).toFixed(1)},${sy(c[a]).toFixed(1)}`).join(" ");
      parts.push(svg("polyline", { points, class: "series", stroke: COLOURS[i % COLOURS.length],
        "stroke-dasharray": i >= 5 ? "6 3" : "none" }));
    });
    figure.replaceChildren(svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, "aria-hidden": "true" }, parts),
                           legend(shown.map((a) => names[a]), shown.map((_, i) => COLOURS[i % COLOURS.length])));
    const note = order.length > shown.length ? ` The ${shown.length} most-sampled of ${order.length} arms are drawn.` : "";
    $("samples-caption").textContent = "Samples so far: " + shown.map((a) => `${names[a]} ${fmt(end[a])}`).join(", ") +
      "." + note;
  }

  function column(values, m) { return (values || []).map((row) => (Array.isArray(row) ? row[m] : null)); }

  function renderMeans(status) {
    const figure = $("means-chart");
    const metrics = metricsOf(status);
    const names = metrics ? armNames(status, (status.counts || []).length) : sourceNames(status);
    const pick = (values) => (metrics ? column(values, 0) : flat(values));  // with metrics: the objective's column
    const means = pick(status.means), low = pick(status.ci_low), high = pick(status.ci_high), counts = pick(status.counts);
    const rec = status.recommendation;  // an arm, a list of arms (top-k), -1 (no feasible arm) or null
    const best = new Set((Array.isArray(rec) ? rec : [rec]).filter((a) => Number.isInteger(a) && a >= 0));
    const perCell = !metrics && Array.isArray((status.counts || [])[0]) ? status.counts[0].length : 1;
    let rows = names.map((_, s) => s);
    const note = rows.length > 30 ? ` The 30 highest means of ${rows.length} are drawn (all in the table).` : "";
    if (rows.length > 30) rows = rows.sort((a, b) => (means[b] ?? -Infinity) - (means[a] ?? -Infinity)).slice(0, 30);
    const values = rows.flatMap((s) => [means[s], low[s], high[s]]).filter((v) => given(v) && Number.isFinite(v));
    const lo = values.length ? Math.min(...values) : 0, hi = values.length ? Math.max(...values) : 1;
    const pad = (hi - lo) * 0.05 || 0.5;
    const width = widthOf(figure), rowH = 28;
    const chars = Math.max(...rows.map((s) => names[s].length + 2));
    const labelW = Math.min(Math.round(width * 0.4), 16 + 8 * chars);
    const box = { left: labelW, right: width - 14, top: 8, bottom: 8 + rowH * rows.length };
    const height = box.bottom + 44;
    const sx = (v) => box.left + (box.right - box.left) * (v - (lo - pad)) / ((hi + pad) - (lo - pad));
    const parts = [];
    for (const t of niceTicks(lo - pad, hi + pad, width < 560 ? 3 : 6)) {
      parts.push(svg("line", { x1: sx(t), x2: sx(t), y1: box.top, y2: box.bottom, class: "grid" }),
                 label(sx(t), box.bottom + 17, fmt(t), "tick", "middle"));
    }
    rows.forEach((s, i) => {
      const y = box.top + rowH * i + rowH / 2;
      const isBest = best.has(Math.floor(s / perCell));
      const name = clip((isBest ? "★ " : "") + names[s], Math.floor((labelW - 12) / 8));
      parts.push(label(box.left - 8, y + 5, name, isBest ? "label best" : "label", "end"));
      if (given(low[s]) && given(high[s]) && Number.isFinite(low[s]) && Number.isFinite(high[s])) {
        parts.push(svg("line", { x1: sx(low[s]), x2: sx(high[s]), y1: y, y2: y, class: "whisker" }));
        for (const v of [low[s], high[s]]) parts.push(svg("line", { x1: sx(v), x2: sx(v), y1: y - 6, y2: y + 6, class: "whisker" }));
      }
      if (given(means[s]) && Number.isFinite(means[s])) {
        parts.push(svg("circle", { cx: sx(means[s]), cy: y, r: 6, class: isBest ? "dot best" : "dot" }));
      }
    });
    const what = metrics ? `mean ${clip(metrics[0], 24)} (dot)` : "mean reward (dot)";
    parts.push(label((box.left + box.right) / 2, box.bottom + 38,
                     what + " and " + Math.round(100 * (status.level || 0.95)) + "% interval", "title", "middle"));
    figure.replaceChildren(svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, "aria-hidden": "true" }, parts));
    $("level").textContent = Math.round(100 * (status.level || 0.95)) + "%";
    $("means-what").textContent = metrics ? `Means of the objective, ${metrics[0]},` : "Means";
    const recommended = armNames(status, Math.ceil(names.length / perCell)).filter((_, a) => best.has(a));
    const shownBest = recommended.length ? ` ★ marks the recommendation (${recommended.join(", ")}).` : "";
    $("means-caption").textContent = rows.map((s) => `${names[s]}: ${fmt(means[s])} [${fmt(low[s])}, ${fmt(high[s])}], ` +
      plural(counts[s], "sample")).join("; ") + "." + shownBest + note;
    if (metrics) renderMetricTable(status, names, metrics);
    else renderTable(names, counts, means, low, high, flat(status.sd));
  }

  // with metrics: per arm its samples, then each metric's mean and interval
  function renderMetricTable(status, names, metrics) {
    const [table, body] = armsTable("Samples, and each metric's mean and interval, per arm",
      ["arm", "samples"].concat(metrics.flatMap((m) => [m + " mean", m + " interval"])));
    names.forEach((n, a) => {
      const row = body.insertRow();
      const th = text("th", n);
      th.scope = "row";
      row.append(th, text("td", fmt((status.counts[a] || [])[0])));
      metrics.forEach((_, m) => {
        const lo = (status.ci_low[a] || [])[m], hi = (status.ci_high[a] || [])[m];
        row.append(text("td", fmt((status.means[a] || [])[m])),
                   text("td", !given(lo) ? "–" : `[${fmt(lo)}, ${fmt(hi)}]`));
      });
    });
    $("table").replaceChildren(table);
  }

  // ---------------------------------------------------------------- guardrails
  function stateCell(state, note) { return text("td", note ? `${state} (${note})` : state, "state " + state); }

  function renderGuardrails(status) {
    const panel = $("guardrails-panel"), doc = status.guardrails;
    panel.hidden = !doc;
    if (!doc) return;
    const table = document.createElement("table");
    table.id = "guardrail-table";
    table.append(text("caption", "Rule, estimate, margin and state of each guardrail, per arm"));
    const head = table.createTHead().insertRow();
    for (const h of ["arm", "arm's state", "guardrail", "estimate", "margin", "state"]) {
      const th = text("th", h, h === "estimate" || h === "margin" ? "num" : "");
      th.scope = "col";
      head.append(th);
    }
    const body = table.createTBody();
    let rows = 0;
    for (const arm of doc.arms) {
      const guards = arm.guardrails || [];
      guards.forEach((g, i) => {
        const row = body.insertRow();
        row.dataset.arm = String(arm.arm);
        if (i === 0) {
          const th = text("th", arm.name);
          th.scope = "rowgroup";
          th.rowSpan = guards.length;
          row.append(th);
          const cell = stateCell(arm.state);
          cell.classList.add("arm-state");
          cell.rowSpan = guards.length;
          row.append(cell);
        }
        row.append(text("td", `${g.metric} ${g.rule}`, "rule"), text("td", fmt(g.estimate, 4), "num estimate"),
                   text("td", fmt(g.margin, 4), "num margin"),
                   stateCell(g.state, g.binds ? "" : "the control is the reference"));
        rows += 1;
      });
    }
    $("guardrails").replaceChildren(rows ? table : text("p", "No metric has a guardrail: every arm is feasible.", "muted"));
    const held = doc.arms.filter((a) => a.state === "holds").map((a) => a.name);
    const broken = doc.arms.filter((a) => a.state === "broken").map((a) => a.name);
    const rule = given(doc.level)
      ? `A guardrail holds once the evidence that it is kept passes ${fmt(doc.level, 4)} (${doc.evidence} evidence of the ` +
        "stopping rule), is broken once the evidence that it is broken does, and is undecided until then. "
      : "Fixed budget: nothing is certified, so every guardrail the data do not settle stays undecided. ";
    $("guardrails-caption").textContent = rule + `Every guardrail holds for: ${held.join(", ") || "no arm yet"}; ` +
      `broken for: ${broken.join(", ") || "no arm"}. The margin is the room left before the bound (negative: past it).`;
  }

  // the per-arm table (id "arms") with its caption and header row; returns the table and its body
  function armsTable(caption, columns) {
    const table = document.createElement("table");
    table.id = "arms";
    table.append(text("caption", caption));
    const head = table.createTHead().insertRow();
    for (const h of columns) { const th = text("th", h); th.scope = "col"; head.append(th); }
    return [table, table.createTBody()];
  }

  function renderTable(names, counts, means, low, high, sd) {
    const [table, body] = armsTable("Samples, means and intervals per arm",
      ["arm", "samples", "mean", "interval"].concat(sd.length ? ["sd"] : []));
    names.forEach((n, s) => {
      const row = body.insertRow();
      const th = text("th", n);
      th.scope = "row";
      row.append(th, text("td", fmt(counts[s])), text("td", fmt(means[s])),
                 text("td", !given(low[s]) ? "–" : `[${fmt(low[s])}, ${fmt(high[s])}]`));
      if (sd.length) row.append(text("td", fmt(sd[s])));
    });
    $("table").replaceChildren(table);
  }

  function draw(status, history) {
    renderState(status);
    renderGlr(status);
    renderToStop(status);
    renderEpsilon(status);
    renderPending(status);
    renderSamples(status, history);
    renderMeans(status);
    renderGuardrails(status);
  }

  // ---------------------------------------------------------------- polling
  async function getJson(path) {
    const response = await fetch(base + path, { cache: "no-store", headers: { Accept: "application/json" } });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.error || response.status + " " + response.statusText);
    return body;
  }

  async function refresh(again) {
    try {
      const [status, history] = await Promise.all([getJson("/status"), getJson("/history")]);
      last = [status, history];
      draw(status, history);
      $("problem").hidden = true;
      if (status.samples !== lastSamples) {
        const added = lastSamples === null ? "" : ` (${status.samples - lastSamples} new)`;
        $("live").textContent = `${fmt(status.samples)} samples${added}, ${$("state").textContent}; ` +
          "updated " + stamp(new Date().toISOString());
        lastSamples = status.samples;
      }
      main.dataset.updated = String(Date.now());
    } catch (error) {
      const problem = $("problem");
      problem.textContent = "Cannot refresh: " + error.message + " (retrying)";
      problem.hidden = false;
    } finally {
      if (again !== false) setTimeout(refresh, document.hidden ? 5 * pollMs : pollMs);
    }
  }

  let resizing = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => { if (last) draw(last[0], last[1]); }, 120);
  });
  $("epsilon-form").addEventListener("submit", submitEpsilon);
  refresh();
})();
