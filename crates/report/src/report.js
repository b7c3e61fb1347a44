// ndd report: draws the summary, the plots, the group list and the diff from the
// JSON blob of the page (#ndd-data). No library, no network.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("ndd-data").textContent);
  const S = D.summary, docs = D.docs, groups = D.groups;
  const PAGE = 50;
  const KINDS = ["shared", "unique", "moved", "repeated"];
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const num = (n) => Number(n).toLocaleString("en-US");
  const mb = (b) => (b / 1e6).toFixed(1) + " MB";
  const score = (x) => (x === null || x === undefined ? "–" : x.toFixed(3));

  // ---- Theme ----------------------------------------------------------------
  const root = document.documentElement;
  function setTheme(t) {
    root.classList.remove("light", "dark");
    if (t) root.classList.add(t);
    try { localStorage.setItem("ndd-theme", t || ""); } catch (e) { /* storage off */ }
  }
  try { const t = localStorage.getItem("ndd-theme"); if (t) setTheme(t); } catch (e) { /* storage off */ }
  function toggleTheme() {
    const dark = root.classList.contains("dark") ||
      (!root.classList.contains("light") && matchMedia("(prefers-color-scheme: dark)").matches);
    setTheme(dark ? "light" : "dark");
  }
  $("theme").addEventListener("click", toggleTheme);

  // ---- Summary --------------------------------------------------------------
  function summary() {
    const fileBytes = Number(document.querySelector('meta[name="ndd-file-bytes"]').content);
    const rows = [
      ["documents", "documents read", num(S.documents) + " (" + mb(S.bytes) + " of text)"],
      ["kept", "kept", num(S.kept) + " (" + num(S.unique) + " alone, " + num(S.kept_for_group) + " for their group)"],
      ["dropped", "dropped", num(S.dropped) + " (" + num(S.exact) + " exact copies, " + num(S.near) + " near-duplicates)"],
      ["groups", "groups", num(S.groups) + " (" + num(S.grouped) + " documents)"],
      ["pairs", "pairs", num(S.pairs) + " (" + num(S.candidates) + " candidates, " + num(S.checked) + " verified)"],
      ["method", "method", S.method],
    ];
    for (const [k, v] of S.settings) rows.push(["setting", k, v]);
    if (S.timings.length) {
      const total = S.timings.reduce((a, t) => a + t[1], 0);
      rows.push(["timings", "time", S.timings.map((t) => t[0] + " " + t[1].toFixed(2) + " s").join(", ") +
        " (" + total.toFixed(2) + " s in all)"]);
    }
    let shown = num(S.groups_shown) + " of " + num(S.groups);
    if (S.groups_shown < S.groups) shown += " (the largest; the run is too large for one page)";
    rows.push(["shown", "groups on this page", shown]);
    rows.push(["file", "this file", mb(fileBytes) + " (" + num(fileBytes) + " bytes); texts cut after " +
      num(S.text_bytes) + " bytes, groups after " + num(S.members_per_group) + " members"]);
    let html = '<dl class="facts">';
    for (const [key, name, value] of rows) {
      html += '<dt>' + esc(name) + '</dt><dd data-key="' + key + '">' + esc(value) + "</dd>";
    }
    html += "</dl>";
    if (S.warnings.length) {
      html += '<ul class="warnings">' + S.warnings.map((w) => "<li>" + esc(w) + "</li>").join("") + "</ul>";
    }
    $("summary-body").innerHTML = html;
  }

  // ---- Plots (inline SVG) ---------------------------------------------------
  const W = 360, H = 210, L = 44, R = 10, T = 12, B = 30;
  const px = (x) => L + x * (W - L - R), py = (y) => H - B - y * (H - T - B);
  function frame(xticks, yticks) {
    let s = '<svg viewBox="0 0 ' + W + " " + H + '" role="img">';
    s += '<line class="axis" x1="' + L + '" y1="' + py(0) + '" x2="' + (W - R) + '" y2="' + py(0) + '"/>';
    s += '<line class="axis" x1="' + L + '" y1="' + py(0) + '" x2="' + L + '" y2="' + T + '"/>';
    for (const [x, label] of xticks) s += '<text x="' + px(x) + '" y="' + (H - B + 14) + '" text-anchor="middle">' + esc(label) + "</text>";
    for (const [y, label] of yticks) s += '<text x="' + (L - 4) + '" y="' + (py(y) + 4) + '" text-anchor="end">' + esc(label) + "</text>";
    return s;
  }
  function mark(x, label) {
    return '<line class="mark" x1="' + px(x) + '" y1="' + py(0) + '" x2="' + px(x) + '" y2="' + T + '"/>' +
      '<text class="mark-text" x="' + (px(x) - 3) + '" y="' + (T + 10) + '" text-anchor="end">' + esc(label) + "</text>";
  }
  const empty = (msg) => '<p class="none">' + esc(msg) + "</p>";
  const unitTicks = [0, 0.2, 0.4, 0.6, 0.8, 1].map((x) => [x, String(x)]);
  function plotScores() {
    const bins = D.plots.scores, max = Math.max(0, ...bins);
    let note = D.plots.exact_pairs ? " (" + num(D.plots.exact_pairs) + " exact copies not drawn)" : "";
    if (max === 0) return empty("No verified pair to draw" + note + ".");
    let s = frame(unitTicks, [[0, "0"], [1, num(max)]]);
    const w = 1 / bins.length;
    bins.forEach((c, i) => {
      if (!c) return;
      const h = c / max;
      s += '<rect class="bar" x="' + px(i * w) + '" y="' + py(h) + '" width="' + Math.max(1, px(w) - px(0) - 1) +
        '" height="' + (py(0) - py(h)) + '"><title>' + (i * w).toFixed(2) + "–" + ((i + 1) * w).toFixed(2) + ": " + c + "</title></rect>";
    });
    if (D.plots.threshold !== null) s += mark(D.plots.threshold, "threshold " + D.plots.threshold);
    return s + "</svg>" + (note ? '<p class="none">' + esc(note.trim()) + "</p>" : "");
  }
  function plotCurve() {
    const band = D.plots.banding, t = D.plots.threshold;
    if (!band) return empty("No banding: the method (" + S.method + ") finds candidates without LSH bands.");
    const [b, r] = band, p = (s) => 1 - Math.pow(1 - Math.pow(s, r), b);
    let s = frame(unitTicks, [[0, "0"], [0.5, "0.5"], [1, "1"]]);
    let pts = [];
    for (let i = 0; i <= 200; i++) { const x = i / 200; pts.push(px(x).toFixed(1) + "," + py(p(x)).toFixed(1)); }
    s += '<polyline class="curve" points="' + pts.join(" ") + '"/>';
    if (t !== null) s += mark(t, "threshold " + t + ": recall " + p(t).toFixed(4));
    return s + '<text x="' + (W - R) + '" y="' + (py(0) - 6) + '" text-anchor="end">' + b + " bands × " + r + " rows</text></svg>";
  }
  function plotSizes() {
    const sizes = D.plots.sizes;
    if (!sizes.length) return empty("No group.");
    const maxSize = Math.max(...sizes.map((x) => x[0])), maxCount = Math.max(...sizes.map((x) => x[1]));
    const lx = Math.log10(Math.max(10, maxSize * 1.2)), ly = Math.log10(Math.max(10, maxCount * 1.2));
    const fx = (v) => Math.log10(v) / lx, fy = (v) => Math.log10(v + 1) / Math.log10(Math.pow(10, ly) + 1);
    const ticks = (l) => { const out = []; for (let e = 0; e <= Math.floor(l); e++) out.push(Math.pow(10, e)); return out; };
    let s = frame(ticks(lx).map((v) => [fx(v), num(v)]), ticks(ly).map((v) => [fy(v), num(v)]));
    for (const [size, count] of sizes) {
      const x = px(fx(size)), y = py(fy(count));
      s += '<line class="curve" x1="' + x + '" y1="' + py(0) + '" x2="' + x + '" y2="' + y + '"/>' +
        '<circle class="bar" cx="' + x + '" cy="' + y + '" r="3"><title>' + num(count) + " groups of " + num(size) + "</title></circle>";
    }
    return s + '<text x="' + (W - R) + '" y="' + (H - 2) + '" text-anchor="end">members</text></svg>';
  }

  // ---- Groups: filters and paging -------------------------------------------
  // Per group, computed once: its ids (for search), reasons, categories, lowest score.
  const meta = groups.map((g) => {
    const rows = g[2];
    let ids = "", reasons = new Set(), cats = new Set(), low = null;
    for (const m of rows) {
      ids += docs[m[0]][0].toLowerCase() + "\n";
      if (m[3] !== "kept") { reasons.add(m[2]); if (m[3]) cats.add(m[3]); }
      if (m[1] !== null && (low === null || m[1] < low)) low = m[1];
    }
    return { ids, reasons, cats, low };
  });
  const allCats = [...new Set(meta.flatMap((m) => [...m.cats]))].sort();
  for (const c of allCats) { const o = document.createElement("option"); o.value = o.textContent = c; $("category").appendChild(o); }
  const lowerText = [];
  const textOf = (slot) => (lowerText[slot] ??= (docs[slot][1] || "").toLowerCase());

  let list = groups.map((_, i) => i), page = 0, sel = 0, open = -1, member = 1;
  function val(id) { const v = $(id).value.trim(); return v === "" ? null : Number(v); }
  function filter() {
    const q = $("search").value.trim().toLowerCase();
    const smin = val("size-min"), smax = val("size-max"), lo = val("score-min"), hi = val("score-max");
    const reason = $("reason").value, cat = $("category").value;
    list = [];
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i], m = meta[i];
      if (smin !== null && g[1] < smin) continue;
      if (smax !== null && g[1] > smax) continue;
      if (reason && !m.reasons.has(reason)) continue;
      if (cat && !m.cats.has(cat)) continue;
      if ((lo !== null || hi !== null) && m.low === null) continue;
      if (lo !== null && m.low < lo) continue;
      if (hi !== null && m.low > hi) continue;
      if (q && !m.ids.includes(q) && !g[2].some((r) => textOf(r[0]).includes(q))) continue;
      list.push(i);
    }
    page = 0; sel = 0;
    render();
  }
  function pages() { return Math.max(1, Math.ceil(list.length / PAGE)); }
  function render() {
    const start = page * PAGE, items = list.slice(start, start + PAGE);
    let html = "";
    items.forEach((gi, k) => {
      const g = groups[gi], m = meta[gi], kept = docs[g[0]];
      const text = kept[1] === null ? "(text not kept)" : kept[1].slice(0, 160);
      html += '<tr tabindex="-1" data-group="' + gi + '"' + (k === sel ? ' class="sel"' : "") + "><td class=num>" + num(g[1]) +
        "</td><td>" + esc(kept[0]) + '</td><td class="snippet">' + esc(text) + "</td><td>" + esc([...m.reasons].join(", ")) +
        "</td><td>" + esc([...m.cats].join(", ")) + "</td><td class=num>" + score(m.low) + "</td></tr>";
    });
    if (!items.length) html = '<tr><td colspan="6" class="none">No group matches.</td></tr>';
    document.querySelector("#group-list tbody").innerHTML = html;
    $("page-info").textContent = "page " + (page + 1) + " of " + num(pages()) + " · " + num(list.length) + " groups" +
      (list.length < groups.length ? " match" : "");
    $("prev").disabled = page === 0;
    $("next").disabled = page + 1 >= pages();
  }
  function go(p) { page = Math.min(Math.max(0, p), pages() - 1); sel = 0; render(); }
  function select(k) {
    const n = Math.min(PAGE, list.length - page * PAGE);
    if (n <= 0) return;
    if (k < 0 && page > 0) { go(page - 1); sel = PAGE - 1; render(); }
    else if (k >= n && page + 1 < pages()) { go(page + 1); }
    else { sel = Math.min(Math.max(0, k), n - 1); render(); }
    const row = document.querySelector("#group-list tbody tr.sel");
    if (row) row.scrollIntoView({ block: "nearest" });
  }

  // ---- A group and the diff -------------------------------------------------
  function openGroup(gi) {
    open = gi; member = groups[gi][2].length > 1 ? 1 : 0;
    const g = groups[gi];
    $("detail").hidden = false;
    let more = g[1] > g[2].length ? " (" + num(g[2].length) + " of its " + num(g[1]) + " members shown)" : "";
    $("detail-h").textContent = "Group of " + num(g[1]) + ", kept: " + docs[g[0]][0] + more;
    drawMembers();
    drawDiff();
    $("detail").scrollIntoView({ block: "start" });
  }
  function drawMembers() {
    const rows = groups[open][2];
    let html = "";
    rows.forEach((m, k) => {
      html += '<tr data-member="' + k + '"' + (k === member ? ' class="sel"' : "") + "><td>" + esc(docs[m[0]][0]) +
        "</td><td class=num>" + score(m[1]) + "</td><td>" + esc(m[2]) + "</td><td>" + esc(m[3] || "–") +
        "</td><td class=num>" + score(m[4]) + "</td></tr>";
    });
    document.querySelector("#members tbody").innerHTML = html;
  }
  // One side of the diff: the text shown, its blocks highlighted, the cut marked.
  function side(el, slot, blocks) {
    const [id, text, bytes] = docs[slot];
    el.textContent = "";
    if (text === null) { el.innerHTML = '<span class="none">The text of ' + esc(id) + " is not kept (a saved index).</span>"; return; }
    let at = 0;
    const span = (cls, s, kind) => {
      const e = document.createElement("span");
      e.className = cls; e.textContent = s;
      if (kind !== undefined) { e.dataset.kind = KINDS[kind]; e.title = KINDS[kind]; }
      el.appendChild(e);
    };
    for (let i = 0; i < blocks.length; i += 3) {
      const [k, s, e] = [blocks[i], blocks[i + 1], blocks[i + 2]];
      if (s > at) span("", text.slice(at, s));
      span("b" + k, text.slice(s, e), k);
      at = e;
    }
    if (at < text.length) span("", text.slice(at));
    const shown = new TextEncoder().encode(text).length;
    if (bytes > shown) {
      const c = document.createElement("span");
      c.className = "cut";
      c.textContent = "✂ cut here: " + num(bytes - shown) + " more bytes of this document are not shown";
      el.appendChild(c);
    }
  }
  function drawDiff() {
    const g = groups[open], rows = g[2], m = rows[member];
    $("diff-kept-h").textContent = "kept: " + docs[g[0]][0];
    $("diff-member-h").textContent = member === 0 ? "(the kept document itself)" : "member: " + docs[m[0]][0] + " · " + (m[3] || "");
    side($("diff-kept"), g[0], member === 0 ? [] : m[5]);
    side($("diff-member"), m[0], m[6]);
  }
  function pickMember(k) {
    if (open < 0) return;
    member = Math.min(Math.max(0, k), groups[open][2].length - 1);
    drawMembers(); drawDiff();
  }

  // ---- Events ---------------------------------------------------------------
  let timer = 0;
  const later = () => { clearTimeout(timer); timer = setTimeout(filter, 150); };
  $("search").addEventListener("input", later);
  for (const id of ["size-min", "size-max", "score-min", "score-max"]) $(id).addEventListener("input", later);
  for (const id of ["reason", "category"]) $(id).addEventListener("change", filter);
  $("search").addEventListener("keydown", (e) => { if (e.key === "Enter") { clearTimeout(timer); filter(); } });
  $("prev").addEventListener("click", () => go(page - 1));
  $("next").addEventListener("click", () => go(page + 1));
  document.querySelector("#group-list tbody").addEventListener("click", (e) => {
    const tr = e.target.closest("tr[data-group]");
    if (!tr) return;
    sel = [...tr.parentNode.children].indexOf(tr); render();
    openGroup(Number(tr.dataset.group));
  });
  document.querySelector("#members tbody").addEventListener("click", (e) => {
    const tr = e.target.closest("tr[data-member]");
    if (tr) pickMember(Number(tr.dataset.member));
  });
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName);
    if (e.key === "Escape") {
      if (typing) e.target.blur(); else { $("detail").hidden = true; open = -1; }
      return;
    }
    if (typing) return;
    const keys = {
      j: () => select(sel + 1), ArrowDown: () => select(sel + 1),
      k: () => select(sel - 1), ArrowUp: () => select(sel - 1),
      n: () => go(page + 1), p: () => go(page - 1),
      Enter: () => { const gi = list[page * PAGE + sel]; if (gi !== undefined) openGroup(gi); },
      "]": () => pickMember(member + 1), "[": () => pickMember(member - 1),
      "/": () => $("search").focus(), t: toggleTheme,
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });

  summary();
  $("plot-scores").innerHTML = plotScores();
  $("plot-scurve").innerHTML = plotCurve();
  $("plot-sizes").innerHTML = plotSizes();
  render();
  document.body.dataset.ready = "1";
})();
