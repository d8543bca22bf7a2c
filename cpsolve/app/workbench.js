// cpsolve workbench: the page of `cpsolve app` (cpsolve/app/). Three parts: Edit (shapes drawn layer by
// layer and in 3-D, YAML both ways), Run (every command, in worker processes on the server) and Browse
// (solutions in the 3-D page's own viewer, cpsolve/output/page/viewer.js). No library, no network but
// this server: everything the page needs is served by it.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const G = window.cpsolveViewer.geometry;  // the viewer's cube geometry, shading and camera
  const PALETTE = ["#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
    "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000", "#aaffc3", "#808000", "#ffd8b1",
    "#000075", "#808080"];
  const CONTAINER_COLOR = "#b8c4d6";
  const OPTIONAL_COLOR = "#e9eef5";

  // -- grids: everything the editor knows about the lattice is here, so other grids slot in --------------
  // A grid gives: the faces of a cell (3-D polygons, each with the neighbour across it), the cells of a
  // layer as 2-D polygons, and its default view. The rest of the editor only sees opaque cells [a, b, c].
  const GRIDS = {
    cube: {
      name: "cubes",
      faces(cell) {  // the 6 faces of unit cube `cell`, corners counter-clockwise from outside
        const c = [cell[0] + 0.5, cell[1] + 0.5, cell[2] + 0.5];
        return G.STEPS.map((s, n) => ({ n: n, normal: s, corners: G.corners(c, n, 0.5), shade: G.SHADE[n],
          across: [cell[0] + s[0], cell[1] + s[1], cell[2] + s[2]] }));
      },
      centre: (cell) => [cell[0] + 0.5, cell[1] + 0.5, cell[2] + 0.5],
      layerOf: (cell) => cell[2],
      // the cells of layer z of a box of `size`, each with its square in the layer's own 2-D drawing
      // (x to the right, y downwards as BurrTools and the YAML drawings show them)
      layer(size, z) {
        const out = [];
        for (let y = 0; y < size[1]; y++) for (let x = 0; x < size[0]; x++) out.push({ cell: [x, y, z], col: x, row: y });
        return out;
      },
      floor(size, z) {  // squares to click on an empty layer: the tops of the cells below it
        return this.layer(size, z).map((q) => ({ cell: q.cell, corners: G.corners([q.cell[0] + 0.5, q.cell[1] + 0.5, z + 0.5], 5, 0.5) }));
      },
      box: (size) => [[0, 0, 0], size],
    },
  };

  // -- state ---------------------------------------------------------------------------------------
  const st = {
    doc: null,            // the editor's model: {grid, name, kind, container{cells, optional, colors}, pieces[], keep}
    sel: "container",     // the shape being drawn: "container" or a piece's index
    tool: "add",
    layer: 0,
    sizes: {},            // drawing size per shape (the grid the layer view shows)
    yaw: -0.785, pitch: 0.6155, zoom: 1,
    undo: [], redo: [],
    file: null,           // {path, model, kind, problem, problems}
    savedText: null,
    yamlText: "",
    yamlOwn: false,       // the YAML pane holds the user's own text (not regenerated from the drawing)
    info: null,
    viewer: null,
    browse: { source: null, rows: [], start: 0, total: 0, selected: null },
    lastSolve: null,
  };
  const key = (c) => c[0] + "," + c[1] + "," + c[2];
  const clone = (x) => JSON.parse(JSON.stringify(x));

  async function api(path, body, raw) {
    const init = body === undefined ? { credentials: "same-origin" }
      : { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    const r = await fetch(path, init);
    if (raw) { if (!r.ok) throw new Error((await r.json()).error || r.statusText); return r; }
    const data = await r.json().catch(() => ({ error: r.status + " " + r.statusText }));
    if (!r.ok && r.status !== 409) throw new Error(data.error || r.statusText);
    return data;
  }
  function say(text, bad) {
    const m = $("message"); m.textContent = text; m.className = bad ? "bad" : "";
    m.dataset.text = text;
  }
  const fail = (e) => say(e.message || String(e), true);

  // -- tabs ----------------------------------------------------------------------------------------
  function showTab(name) {
    for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === name);
    for (const s of document.querySelectorAll("main > section")) s.classList.toggle("on", s.id === name);
    document.body.dataset.tab = name;
    if (name === "edit") drawAll();
    if (name === "browse") { refreshSources(); loadList(true); if (st.viewer) st.viewer.redraw(); }
    if (name === "run") renderRuns();
  }
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));

  // -- the document --------------------------------------------------------------------------------
  function emptyDoc(name) {
    return { grid: "cube", name: name || "untitled", kind: "pieces", container: { cells: [], optional: [], colors: [] }, pieces: [], keep: {} };
  }
  function shape() {  // the shape being drawn: {cells, optional?, colors}
    return st.sel === "container" ? st.doc.container : st.doc.pieces[st.sel];
  }
  function bounds(cells) {
    if (!cells.length) return [3, 3, 3];
    return [0, 1, 2].map((a) => Math.max(...cells.map((c) => c[a])) + 1);
  }
  function sizeOf() {
    const k = st.sel === "container" ? "container" : "p" + st.sel;
    const need = bounds(shape() ? shape().cells : []);
    const have = st.sizes[k] || need;
    st.sizes[k] = [0, 1, 2].map((a) => Math.max(have[a], need[a]));
    return st.sizes[k];
  }
  function colorOf(i) {
    const p = st.doc.pieces[i];
    return (p && p.color) || PALETTE[i % PALETTE.length];
  }
  function setDoc(doc, keepUndo) {
    if (!keepUndo) { st.undo = []; st.redo = []; }
    st.doc = doc; st.sizes = {};
    if (st.sel !== "container" && !(st.sel < doc.pieces.length)) st.sel = doc.pieces.length ? 0 : "container";
    st.layer = Math.min(st.layer, sizeOf()[2] - 1);
    renderShapes(); renderProps(); drawAll();
  }
  function change(fn, quiet) {  // every edit: undo point, apply, redraw, YAML later
    st.undo.push(JSON.stringify({ doc: st.doc, sel: st.sel })); if (st.undo.length > 300) st.undo.shift();
    st.redo = [];
    fn();
    afterChange(quiet);
  }
  function afterChange(quiet) {
    st.yamlOwn = false;
    if (!quiet) { renderShapes(); renderProps(); }
    drawAll();
    scheduleYaml();
  }
  function undoRedo(from, to) {
    if (!from.length) return;
    to.push(JSON.stringify({ doc: st.doc, sel: st.sel }));
    const s = JSON.parse(from.pop());
    st.doc = s.doc; st.sel = s.sel;
    afterChange();
  }
  $("undo").addEventListener("click", () => undoRedo(st.undo, st.redo));
  $("redo").addEventListener("click", () => undoRedo(st.redo, st.undo));
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, textarea, select")) return;
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "z") { e.preventDefault(); undoRedo(e.shiftKey ? st.redo : st.undo, e.shiftKey ? st.undo : st.redo); }
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "y") { e.preventDefault(); undoRedo(st.redo, st.undo); }
    if (e.key === "PageUp") moveLayer(1);
    if (e.key === "PageDown") moveLayer(-1);
  });

  // cell edits --------------------------------------------------------------------------------------
  function has(cells, c) { const k = key(c); return cells.some((d) => key(d) === k); }
  function without(cells, c) { const k = key(c); return cells.filter((d) => key(d) !== k); }
  function applyTool(cell, tool) {
    const s = shape();
    if (!s || cell.some((v) => v < 0)) return;
    const isContainer = st.sel === "container";
    change(() => {
      if (tool === "erase") {
        s.cells = without(s.cells, cell);
        if (isContainer) s.optional = without(s.optional, cell);
        s.colors = s.colors.filter((cc) => key(cc[0]) !== key(cell));
      } else if (tool === "paint") {
        if (!has(s.cells, cell)) s.cells.push(cell);
        const name = $("paint-name").value.trim() || "red";
        const had = s.colors.find((cc) => key(cc[0]) === key(cell));
        s.colors = s.colors.filter((cc) => key(cc[0]) !== key(cell));
        if (!had || had[1] !== name) s.colors.push([cell, name]);
      } else {
        if (!has(s.cells, cell)) s.cells.push(cell);
        if (isContainer) {
          s.optional = without(s.optional, cell);
          if (tool === "optional") s.optional.push(cell);
        }
      }
      const size = sizeOf();
      for (let a = 0; a < 3; a++) size[a] = Math.max(size[a], cell[a] + 1);
    }, true);
    renderShapes();
  }
  function toggleCell(cell, shift) {
    const s = shape();
    const filled = has(s.cells, cell);
    let tool = shift ? "erase" : st.tool;
    if (tool === "add" && filled) tool = "erase";  // click a filled square to empty it
    if (tool === "optional" && filled && has(s.optional || [], cell)) tool = "erase";
    applyTool(cell, tool);
  }

  // -- shapes list and properties --------------------------------------------------------------------
  function renderShapes() {
    const ul = $("shapes"); ul.textContent = "";
    const item = (id, label, color, sub) => {
      const li = document.createElement("li"), sw = document.createElement("span"), name = document.createElement("span");
      li.dataset.shape = id; li.className = String(st.sel) === String(id) ? "on" : "";
      sw.className = "sw"; sw.style.background = color;
      name.className = "name"; name.textContent = label;
      const small = document.createElement("small"); small.textContent = sub;
      li.append(sw, name, small);
      li.addEventListener("click", () => { st.sel = id === "container" ? "container" : +id; st.layer = 0; renderShapes(); renderProps(); drawAll(); });
      ul.appendChild(li);
    };
    const c = st.doc.container;
    if (st.doc.kind === "chain") { const li = document.createElement("li"); li.textContent = "a chain puzzle: edit its YAML"; ul.appendChild(li); return; }
    item("container", "Container", CONTAINER_COLOR, c.cells.length + " cells" + (c.optional.length ? ", " + c.optional.length + " optional" : ""));
    st.doc.pieces.forEach((p, i) => {
      const copies = p.min !== null && p.min !== undefined && p.min !== p.count ? " ×" + p.min + "–" + p.count : p.count > 1 ? " ×" + p.count : "";
      item(i, p.name + copies, colorOf(i), p.cells.length + " cells");
    });
    const vol = st.doc.pieces.reduce((s, p) => s + p.cells.length * (p.count || 1), 0);
    const need = c.cells.length - c.optional.length;
    const foot = document.createElement("li"); foot.className = "volume";
    foot.textContent = "pieces " + vol + " cells, container " + need + (c.optional.length ? "–" + c.cells.length : "");
    foot.classList.toggle("bad", vol < need || vol > c.cells.length);
    ul.appendChild(foot);
  }
  function renderProps() {
    const isPiece = st.sel !== "container";
    $("props").hidden = !isPiece;
    $("props-title").textContent = isPiece ? "Piece" : "Container";
    document.querySelector('[data-tool="optional"]').disabled = isPiece;
    if (isPiece && st.tool === "optional") setTool("add");
    $("doc-name-input").value = st.doc.name;
    $("doc-name").textContent = st.doc.name + (st.file && st.file.path ? " — " + st.file.path : st.file && st.file.model ? " (built-in model)" : " (not saved)");
    if (!isPiece) return;
    const p = st.doc.pieces[st.sel];
    $("p-name").value = p.name;
    $("p-color").value = colorOf(st.sel);
    $("p-count").value = p.count || 1;
    const ranged = p.min !== null && p.min !== undefined;
    $("p-range").checked = ranged; $("p-min").disabled = !ranged;
    $("p-min").value = ranged ? p.min : 0;
  }
  const prop = (fn) => () => change(fn);
  $("p-name").addEventListener("change", () => {
    const name = $("p-name").value.trim(), p = st.doc.pieces[st.sel];
    if (!name || st.doc.pieces.some((q) => q !== p && q.name === name)) { $("p-name").value = p.name; say(name ? "another piece is named " + name : "a piece needs a name", true); return; }
    change(() => { p.name = name; });
  });
  $("p-color").addEventListener("change", prop(() => { st.doc.pieces[st.sel].color = $("p-color").value; }));
  $("p-count").addEventListener("change", prop(() => { st.doc.pieces[st.sel].count = Math.max(1, parseInt($("p-count").value, 10) || 1); }));
  $("p-range").addEventListener("change", prop(() => { const p = st.doc.pieces[st.sel]; p.min = $("p-range").checked ? 0 : null; }));
  $("p-min").addEventListener("change", prop(() => { st.doc.pieces[st.sel].min = Math.max(0, parseInt($("p-min").value, 10) || 0); }));
  $("doc-name-input").addEventListener("change", prop(() => { st.doc.name = $("doc-name-input").value.trim() || "untitled"; }));

  function newPieceName() {
    const used = new Set(st.doc.pieces.map((p) => p.name));
    for (let i = 0; i < 26 * 27; i++) {
      const n = i < 26 ? String.fromCharCode(65 + i) : String.fromCharCode(64 + Math.floor(i / 26)) + String.fromCharCode(65 + i % 26);
      if (!used.has(n)) return n;
    }
    return "P" + st.doc.pieces.length;
  }
  function addPiece(cells, name, color) {
    change(() => {
      st.doc.pieces.push({ name: name && !st.doc.pieces.some((p) => p.name === name) ? name : newPieceName(), cells: cells || [], count: 1, min: null,
        color: color || PALETTE[st.doc.pieces.length % PALETTE.length], colors: [] });
      st.sel = st.doc.pieces.length - 1; st.layer = 0;
    });
  }
  $("add-piece").addEventListener("click", () => addPiece([]));
  $("dup-piece").addEventListener("click", () => { if (st.sel !== "container") { const p = st.doc.pieces[st.sel]; addPiece(clone(p.cells), null, null); } });
  $("del-piece").addEventListener("click", () => {
    if (st.sel === "container") return;
    change(() => { st.doc.pieces.splice(st.sel, 1); st.sel = st.doc.pieces.length ? Math.min(st.sel, st.doc.pieces.length - 1) : "container"; });
  });

  // -- tools, layers, size -----------------------------------------------------------------------------
  function setTool(t) {
    st.tool = t;
    for (const b of document.querySelectorAll("[data-tool]")) b.classList.toggle("on", b.dataset.tool === t);
  }
  for (const b of document.querySelectorAll("[data-tool]")) b.addEventListener("click", () => setTool(b.dataset.tool));
  function moveLayer(d) { st.layer = Math.max(0, Math.min(sizeOf()[2] - 1, st.layer + d)); drawAll(); }
  $("layer-up").addEventListener("click", () => moveLayer(1));
  $("layer-down").addEventListener("click", () => moveLayer(-1));
  for (const [id, a] of [["sx", 0], ["sy", 1], ["sz", 2]]) {
    $(id).addEventListener("change", () => {
      const size = sizeOf(), need = bounds(shape().cells);
      size[a] = Math.max(need[a], Math.min(40, parseInt($(id).value, 10) || 1));
      st.layer = Math.min(st.layer, size[2] - 1);
      drawAll();
    });
  }

  // -- drawing: the layer grid and the 3-D view ---------------------------------------------------------
  function drawAll() {
    if (!st.doc || st.doc.kind === "chain") return;
    const t0 = performance.now();
    drawLayer();
    draw3d();
    const s = shape(), size = sizeOf();
    $("sx").value = size[0]; $("sy").value = size[1]; $("sz").value = size[2];
    $("layer-label").textContent = "layer z = " + st.layer + " of " + size[2];
    $("shape-info").textContent = (st.sel === "container" ? "Container" : "Piece " + st.doc.pieces[st.sel].name) + ": " +
      s.cells.length + " cells" + (s.optional && s.optional.length ? " (" + s.optional.length + " optional)" : "") +
      (s.colors.length ? ", " + s.colors.length + " coloured" : "");
    document.body.dataset.drawMs = String(performance.now() - t0);
  }
  function fillOf(cell) {
    const s = shape();
    if (st.sel === "container") return has(s.optional, cell) ? OPTIONAL_COLOR : CONTAINER_COLOR;
    return colorOf(st.sel);
  }
  function markOf(cell) {
    const found = shape().colors.find((cc) => key(cc[0]) === key(cell));
    return found ? found[1] : null;
  }
  function drawLayer() {
    const grid = $("grid"), size = sizeOf(), s = shape(), g = GRIDS[st.doc.grid];
    const filled = new Set(s.cells.map(key)), opt = new Set((s.optional || []).map(key));
    grid.style.gridTemplateColumns = "repeat(" + size[0] + ", var(--cell))";
    grid.textContent = "";
    for (const q of g.layer(size, st.layer)) {
      const d = document.createElement("div"), k = key(q.cell);
      d.className = "cell"; d.dataset.x = q.cell[0]; d.dataset.y = q.cell[1]; d.dataset.z = q.cell[2];
      if (filled.has(k)) {
        d.classList.add(opt.has(k) ? "optional" : "filled");
        d.style.background = fillOf(q.cell);
        const m = markOf(q.cell);
        if (m) { d.classList.add("marked"); d.dataset.mark = m; d.style.color = cssColour(m); d.title = "constraint colour " + m; }
      } else if (st.layer > 0 && filled.has(key([q.cell[0], q.cell[1], st.layer - 1]))) {
        d.classList.add("below");
      }
      grid.appendChild(d);
    }
  }
  // How long a click takes to show: from the input event to the end of the redraw, and to the next frame
  // (benchmarks/workbench.py reads these; a designer should never wait on a click).
  function timed(e) {
    const body = document.body.dataset;
    body.clickMs = String(performance.now() - e.timeStamp);
    requestAnimationFrame(() => { body.frameMs = String(performance.now() - e.timeStamp); body.clicks = String(+(body.clicks || 0) + 1); });
  }
  $("grid").addEventListener("click", (e) => {
    const d = e.target.closest(".cell");
    if (d) { toggleCell([+d.dataset.x, +d.dataset.y, +d.dataset.z], e.shiftKey); timed(e); }
  });

  // 3-D: painter's order with the viewer's geometry; the faces drawn are kept for picking.
  const cv = $("editor3d"), ctx = cv.getContext("2d");
  let picks = [];
  function draw3d() {
    const dpr = window.devicePixelRatio || 1, w = cv.clientWidth, h = cv.clientHeight;
    if (!w || !h) return;
    if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(h * dpr)) { cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr); }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const g = GRIDS[st.doc.grid], s = shape(), size = sizeOf(), cam = G.cameraAt(st.yaw, st.pitch);
    const mid = [size[0] / 2, size[1] / 2, size[2] / 2], radius = Math.hypot(size[0], size[1], size[2]) / 2 + 0.6;
    const scale = st.zoom * Math.min(w, h) / (2 * radius), cx = w / 2, cy = h / 2;
    const P = (p) => { const q = [p[0] - mid[0], p[1] - mid[1], p[2] - mid[2]]; return [cx + G.dot(q, cam.right) * scale, cy - G.dot(q, cam.up) * scale]; };
    const filled = new Set(s.cells.map(key));
    const items = [];
    // the drawing's box, and the current layer's floor: faint, clickable where empty
    for (const f of g.floor(size, st.layer)) {
      if (filled.has(key(f.cell))) continue;
      items.push({ depth: -1e9, floor: true, cell: f.cell, pts: f.corners.map(P) });
    }
    for (const c of s.cells) {
      const base = fillOf(c), m = markOf(c), dim = c[2] > st.layer ? 0.55 : 1;
      for (const f of g.faces(c)) {
        if (G.dot(f.normal, cam.toward) <= 1e-9 || filled.has(key(f.across))) continue;
        const ctr = g.centre(c);
        items.push({ depth: G.dot([ctr[0] + f.normal[0] * 0.5, ctr[1] + f.normal[1] * 0.5, ctr[2] + f.normal[2] * 0.5], cam.toward),
          cell: c, across: f.across, pts: f.corners.map(P), color: base, lit: f.shade, mark: m, dim: dim,
          layer: c[2] === st.layer });
      }
    }
    items.sort((a, b) => a.depth - b.depth);
    ctx.lineJoin = "round";
    drawBox(P, size);
    for (const it of items) {
      ctx.beginPath(); it.pts.forEach((p, i) => (i ? ctx.lineTo(p[0], p[1]) : ctx.moveTo(p[0], p[1]))); ctx.closePath();
      if (it.floor) {
        ctx.fillStyle = "rgba(80,110,160,0.06)"; ctx.fill();
        ctx.strokeStyle = "rgba(80,110,160,0.35)"; ctx.lineWidth = 1; ctx.stroke();
        continue;
      }
      ctx.globalAlpha = it.dim < 1 ? 0.45 : 1;
      ctx.fillStyle = G.shade(it.color, it.lit); ctx.fill();
      ctx.strokeStyle = it.layer ? "#1d2b44" : G.shade(it.color, 0.35); ctx.lineWidth = it.layer ? 1.6 : 1; ctx.stroke();
      if (it.mark) {
        const m = it.pts, cxm = (m[0][0] + m[2][0]) / 2, cym = (m[0][1] + m[2][1]) / 2;
        ctx.beginPath(); m.forEach((p, i) => { const x = cxm + (p[0] - cxm) * 0.45, y = cym + (p[1] - cym) * 0.45; i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
        ctx.closePath(); ctx.fillStyle = cssColour(it.mark); ctx.fill(); ctx.strokeStyle = "#0006"; ctx.lineWidth = 1; ctx.stroke();
      }
      ctx.globalAlpha = 1;
    }
    picks = items;
  }
  function drawBox(P, size) {
    const c = [[0, 0, 0], [size[0], 0, 0], [size[0], size[1], 0], [0, size[1], 0], [0, 0, size[2]], [size[0], 0, size[2]], [size[0], size[1], size[2]], [0, size[1], size[2]]].map(P);
    ctx.strokeStyle = "rgba(60,80,120,0.25)"; ctx.lineWidth = 1; ctx.setLineDash([4, 4]);
    for (const [a, b] of [[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4], [0, 4], [1, 5], [2, 6], [3, 7]]) {
      ctx.beginPath(); ctx.moveTo(c[a][0], c[a][1]); ctx.lineTo(c[b][0], c[b][1]); ctx.stroke();
    }
    ctx.setLineDash([]);
  }
  const probe = document.createElement("span");
  function cssColour(name) { probe.style.color = ""; probe.style.color = name; return probe.style.color || "#c00"; }
  function inside(pts, x, y) {
    let yes = false;
    for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
      const [xi, yi] = pts[i], [xj, yj] = pts[j];
      if ((yi > y) !== (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) yes = !yes;
    }
    return yes;
  }
  function pick(x, y) {  // the front-most face under the pointer
    for (let i = picks.length - 1; i >= 0; i--) if (inside(picks[i].pts, x, y)) return picks[i];
    return null;
  }
  let drag = null;
  cv.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY, moved: false }; try { cv.setPointerCapture(e.pointerId); } catch (err) { /* synthetic */ } });
  cv.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    drag.moved = true;
    st.yaw -= dx * 0.01; st.pitch = Math.max(-1.5, Math.min(1.5, st.pitch + dy * 0.01));
    drag.x = e.clientX; drag.y = e.clientY;
    draw3d();
  });
  cv.addEventListener("pointerup", (e) => {
    const was = drag; drag = null;
    if (!was || was.moved) return;
    const r = cv.getBoundingClientRect(), hit = pick(e.clientX - r.left, e.clientY - r.top);
    if (!hit) return;
    const erase = e.shiftKey || st.tool === "erase";
    if (hit.floor) { if (!erase) applyTool(hit.cell, st.tool === "erase" ? "add" : st.tool); return; }
    if (erase) applyTool(hit.cell, "erase");
    else if (st.tool === "paint") applyTool(hit.cell, "paint");
    else applyTool(hit.across, st.tool);
    timed(e);
  });
  cv.addEventListener("wheel", (e) => { e.preventDefault(); st.zoom = Math.max(0.3, Math.min(6, st.zoom * Math.exp(-e.deltaY * 0.001))); draw3d(); }, { passive: false });
  window.addEventListener("resize", () => { if (document.body.dataset.tab !== "browse") drawAll(); });

  // -- YAML both ways ----------------------------------------------------------------------------------
  let yamlTimer = 0, parseTimer = 0, yamlSeq = 0;
  function scheduleYaml() { clearTimeout(yamlTimer); yamlTimer = setTimeout(writeYaml, 150); $("yaml-status").textContent = "…"; }
  async function writeYaml() {
    const seq = ++yamlSeq;
    try {
      const r = await api("/api/yaml", { model: st.doc });
      if (seq !== yamlSeq) return;
      setYamlText(r.yaml);
      showYamlStatus(r.error);
    } catch (e) { showYamlStatus(e.message); }
  }
  function setYamlText(text) {
    st.yamlText = text;
    const ta = $("yaml");
    if (document.activeElement !== ta) ta.value = text;
    document.body.dataset.yamlSeq = String(yamlSeq);
  }
  function showYamlStatus(error) {
    const p = $("yaml-status");
    p.textContent = error ? error : "valid puzzle file";
    p.className = "status " + (error ? "bad" : "good");
    p.dataset.state = error ? "error" : "ok";
  }
  $("yaml").addEventListener("input", () => {
    clearTimeout(parseTimer); clearTimeout(yamlTimer); yamlSeq++;
    st.yamlText = $("yaml").value; st.yamlOwn = true;
    parseTimer = setTimeout(readYaml, 400);
  });
  async function readYaml() {
    const text = $("yaml").value, seq = ++yamlSeq;
    try {
      const r = await api("/api/parse", { yaml: text });
      if (seq !== yamlSeq) return;
      showYamlStatus(r.error);
      if (r.editor) {
        st.undo.push(JSON.stringify({ doc: st.doc, sel: st.sel })); st.redo = [];
        st.doc = r.editor; st.sizes = {};
        if (st.sel !== "container" && !(st.sel < st.doc.pieces.length)) st.sel = "container";
        renderShapes(); renderProps(); drawAll();
      }
    } catch (e) { showYamlStatus(e.message); }
  }

  // -- files: new, open, save ------------------------------------------------------------------------------
  $("new").addEventListener("click", () => {
    st.file = null; setDoc(emptyDoc("untitled")); st.sel = "container"; st.sizes.container = [3, 3, 3];
    renderShapes(); renderProps(); drawAll(); writeYaml(); say("a new puzzle: draw the container, then the pieces");
  });
  async function openFile(what) {
    try {
      const r = await api("/api/open", what);
      st.file = { path: r.path, model: r.model, kind: r.kind, problem: r.problem, problems: r.problems || [] };
      const select = $("problem"); select.textContent = "";
      (r.problems || []).forEach((name, i) => { const o = document.createElement("option"); o.value = i; o.textContent = i + ": " + name; select.appendChild(o); });
      select.value = String(r.problem || 0);
      $("problem-row").hidden = (r.problems || []).length < 2;
      if (r.yaml !== null && r.yaml !== undefined) {
        clearTimeout(yamlTimer); clearTimeout(parseTimer); yamlTimer = 0; yamlSeq++;  // the file's text wins over pending writes
        st.yamlText = r.yaml; st.savedText = r.yaml; st.yamlOwn = true; $("yaml").value = r.yaml;
        showYamlStatus(r.error);
      }
      if (r.editor) { st.sel = "container"; st.layer = 0; setDoc(r.editor); }
      say("opened " + (r.path || r.model) + (r.error ? " (not a valid puzzle: see the YAML pane)" : ""), !!r.error);
      document.body.dataset.opened = r.path || r.model;
      if (r.kind === "xmpuzzle" || r.kind === "solutions") { addSource({ file: r.path, problem: r.problem, label: r.kind === "solutions" ? r.path : r.path + ": stored assemblies" }, true); }
      renderProps();
      return r;
    } catch (e) { fail(e); return null; }
  }
  $("problem").addEventListener("change", () => { if (st.file && st.file.path) openFile({ path: st.file.path, problem: +$("problem").value }); });
  $("open").addEventListener("click", async () => {
    const dlg = $("open-dialog"), files = $("open-files"), models = $("open-models");
    files.textContent = ""; models.textContent = "";
    try {
      const [f, s] = await Promise.all([api("/api/files"), api("/api/state")]);
      const li = (ul, label, sub, fn) => { const x = document.createElement("li"), b = document.createElement("button"); b.type = "button"; b.textContent = label; if (sub) { const m = document.createElement("small"); m.textContent = sub; b.append(" ", m); } b.addEventListener("click", () => { dlg.close(); fn(); }); x.appendChild(b); ul.appendChild(x); };
      if (!f.files.length) { const x = document.createElement("li"); x.textContent = "no puzzle files here"; files.appendChild(x); }
      for (const file of f.files) li(files, file.path, file.kind === "solutions" ? "solutions" : "", () => openFile({ path: file.path }));
      for (const m of s.models) li(models, m, "", () => openFile({ model: m }));
      dlg.showModal();
    } catch (e) { fail(e); }
  });
  function currentText() { return st.yamlOwn ? $("yaml").value : st.yamlText; }
  async function saveTo(path, overwrite) {
    try {
      await flushYaml();
      const r = await api("/api/save", { path: path, yaml: currentText(), overwrite: !!overwrite });
      if (r.exists) {
        if (!window.confirm(path + " exists: replace it?")) return;
        return saveTo(path, true);
      }
      st.file = Object.assign({}, st.file || {}, { path: path, model: null, kind: "puzzle" });
      st.savedText = currentText();
      say("saved " + path + " (" + r.bytes + " bytes)");
      document.body.dataset.saved = path;
      renderProps();
    } catch (e) { fail(e); }
  }
  async function flushYaml() {
    if (yamlTimer) { clearTimeout(yamlTimer); yamlTimer = 0; if (!st.yamlOwn) await writeYaml(); }
  }
  $("save").addEventListener("click", () => {
    if (st.file && st.file.path && st.file.kind === "puzzle") saveTo(st.file.path, true); else $("save-as").click();
  });
  $("save-as").addEventListener("click", () => {
    const base = (st.doc.name || "puzzle").replace(/[^A-Za-z0-9._-]+/g, "_");
    $("save-name").value = st.file && st.file.path && st.file.kind === "puzzle" ? st.file.path : base + ".yaml";
    $("save-dialog").showModal();
  });
  $("save-dialog").addEventListener("close", () => { if ($("save-dialog").returnValue === "ok" && $("save-name").value.trim()) saveTo($("save-name").value.trim(), false); });

  // -- libraries ---------------------------------------------------------------------------------------------
  async function fillLibraries(state) {
    const sel = $("library");
    const group = (label) => { const g = document.createElement("optgroup"); g.label = label; sel.appendChild(g); return g; };
    const opt = (g, value, label) => { const o = document.createElement("option"); o.value = value; o.textContent = label; g.appendChild(o); };
    const none = document.createElement("option"); none.value = ""; none.textContent = "add a piece from…"; sel.appendChild(none);
    const shapes = group("shape libraries");
    for (const l of state.libraries) opt(shapes, "lib:" + l, l);
    opt(shapes, "kaenel", "six-piece burr stick (Kaenel number)");
    const models = group("pieces of a built-in model");
    for (const m of state.models) opt(models, "model:" + m, m);
  }
  $("library").addEventListener("change", () => showLibrary($("library").value));
  $("kaenel").addEventListener("change", () => showLibrary("kaenel"));
  async function showLibrary(v) {
    const box = $("library-shapes"); box.textContent = "";
    $("kaenel").hidden = v !== "kaenel";
    if (!v) return;
    try {
      let shapes = [];
      if (v.startsWith("lib:")) {
        const r = await api("/api/library?name=" + encodeURIComponent(v.slice(4)));
        shapes = Object.entries(r.shapes).map(([n, cells]) => ({ name: n, cells: cells }));
      } else if (v === "kaenel") {
        const n = parseInt($("kaenel").value, 10);
        if (!n) { $("kaenel").focus(); return; }
        const r = await api("/api/library?name=kaenel:" + n);
        shapes = Object.entries(r.shapes).map(([name, cells]) => ({ name: name, cells: cells }));
      } else if (v.startsWith("model:")) {
        const r = await api("/api/open", { model: v.slice(6) });
        shapes = r.editor ? r.editor.pieces.map((p) => ({ name: p.name, cells: p.cells, color: p.color, count: p.count })) : [];
      }
      for (const s of shapes) {
        const b = document.createElement("button"); b.type = "button"; b.className = "shape-chip";
        b.title = "add " + s.name + " (" + s.cells.length + " cells) as a new piece";
        b.appendChild(thumb(s.cells, s.color || "#7f9fc8"));
        const t = document.createElement("span"); t.textContent = s.name; b.appendChild(t);
        b.dataset.name = s.name;
        b.addEventListener("click", () => addPiece(clone(s.cells), s.name, s.color));
        box.appendChild(b);
      }
    } catch (e) { fail(e); }
  }
  function thumb(cells, color) {  // a small 3-D picture of a shape, drawn with the same geometry
    const c = document.createElement("canvas"), w = 44, x = c.getContext("2d");
    c.width = w; c.height = w; c.className = "thumb";
    const cam = G.cameraAt(-0.785, 0.6155), size = bounds(cells), mid = size.map((v) => v / 2);
    const scale = w / (Math.hypot(...size) + 0.6);
    const P = (p) => [w / 2 + G.dot([p[0] - mid[0], p[1] - mid[1], p[2] - mid[2]], cam.right) * scale, w / 2 - G.dot([p[0] - mid[0], p[1] - mid[1], p[2] - mid[2]], cam.up) * scale];
    const own = new Set(cells.map(key)), faces = [];
    for (const cell of cells) for (const f of GRIDS.cube.faces(cell)) {
      if (G.dot(f.normal, cam.toward) <= 0 || own.has(key(f.across))) continue;
      faces.push({ d: G.dot(GRIDS.cube.centre(cell), cam.toward), pts: f.corners.map(P), lit: f.shade });
    }
    faces.sort((a, b) => a.d - b.d);
    for (const f of faces) {
      x.beginPath(); f.pts.forEach((p, i) => (i ? x.lineTo(p[0], p[1]) : x.moveTo(p[0], p[1]))); x.closePath();
      x.fillStyle = G.shade(color, f.lit); x.fill(); x.strokeStyle = G.shade(color, 0.4); x.lineWidth = 0.7; x.stroke();
    }
    return c;
  }

  // -- Run ---------------------------------------------------------------------------------------------------
  const runs = {};
  let pollTimer = 0;
  function options() {
    const o = {};
    const num = (id) => { const v = $(id).value.trim(); return v === "" ? null : Number(v); };
    if (num("o-workers")) o.workers = num("o-workers");
    if (num("o-timeout")) o.timeout = num("o-timeout");
    if (num("o-limit")) o.limit = num("o-limit");
    o.disassemble = $("o-disassemble").checked;
    o.change = $("o-change").value;
    return o;
  }
  async function startRun(action, extra) {
    try {
      await flushYaml();
      const body = Object.assign({ action: action, yaml: currentText(), where: st.file && st.file.path ? st.file.path : null, options: options() }, extra || {});
      const job = await api("/api/run", body);
      runs[job.id] = job;
      say(action + " started");
      renderRuns(); poll();
      return job;
    } catch (e) { fail(e); return null; }
  }
  for (const b of document.querySelectorAll("[data-action]")) b.addEventListener("click", () => startRun(b.dataset.action));
  async function poll() {
    clearTimeout(pollTimer);
    try {
      const r = await api("/api/jobs");
      for (const j of r.jobs) {
        const before = runs[j.id];
        runs[j.id] = j;
        if (before && before.state === "running" && j.state !== "running") finished(j);
      }
      renderRuns();
      if (st.browse.source && r.jobs.some((j) => j.state === "running" && j.out === st.browse.source.file)) loadList(true);
      if (r.jobs.some((j) => j.state === "running" || j.state === "starting")) pollTimer = setTimeout(poll, 300);
    } catch (e) { pollTimer = setTimeout(poll, 1000); }
  }
  async function finished(j) {
    if (j.out) addSource({ file: j.out, label: j.out });
    if (j.action === "solve") {
      const full = await api("/api/jobs/" + j.id);
      if (full.extra && full.extra.pieces) { st.lastSolve = { pieces: full.extra.pieces, yaml: currentText() }; addSource({ solve: true, label: "solution found by Solve" }); }
    }
    if (j.action === "disassemble") {
      const full = await api("/api/jobs/" + j.id);
      if (full.extra && full.extra.view) { mountViewer(full.extra.view); $("b-result").textContent = j.text || ""; }
    }
    if (st.browse.source && j.out === st.browse.source.file) loadList(true);
  }
  function clock(s) {
    if (s === null || s === undefined) return "?";
    s = Math.round(s); const h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60), x = s % 60;
    return h ? h + ":" + String(m).padStart(2, "0") + ":" + String(x).padStart(2, "0") : m + ":" + String(x).padStart(2, "0");
  }
  // The runs, newest first. A card whose run changed only its figures is updated in place, so that a
  // button (Stop) is not replaced under the pointer while the progress moves.
  function renderRuns() {
    const box = $("runs");
    const list = Object.values(runs).sort((a, b) => b.id - a.id);
    if (!list.length) { box.textContent = ""; const p = document.createElement("p"); p.className = "hint"; p.textContent = "No runs yet: press a button above."; box.appendChild(p); }
    else for (const p of box.querySelectorAll(":scope > p.hint")) p.remove();
    let prev = null;
    for (const j of list) {
      const fresh = runCard(j), old = box.querySelector('.run[data-id="' + j.id + '"]');
      let now = fresh;
      if (old && old.dataset.shape === fresh.dataset.shape) {
        now = old;
        for (const sel of [".badge", ".facts", "pre"]) {
          const mine = old.querySelectorAll(sel), theirs = fresh.querySelectorAll(sel);
          mine.forEach((el, i) => { el.textContent = theirs[i].textContent; Object.assign(el.dataset, theirs[i].dataset); });
        }
        const bar = old.querySelector(".bar span"), bar2 = fresh.querySelector(".bar span");
        if (bar && bar2) bar.style.width = bar2.style.width;
      } else if (old) old.replaceWith(fresh);
      const want = prev ? prev.nextSibling : box.firstChild;
      if (want !== now) box.insertBefore(now, want);
      prev = now;
    }
    $("run-what").textContent = st.doc ? "· " + st.doc.name : "";
  }
  function runCard(j) {
    {
      const card = document.createElement("div"); card.className = "run " + j.state; card.dataset.id = j.id; card.dataset.state = j.state;
      card.dataset.status = j.status || "";
      card.dataset.shape = [j.state, j.status, j.stopping, !!j.text, !!j.error, j.out, j.state !== "running" && j.notes && j.notes.length,
        !!(j.result && j.result.disassembly)].join("|");
      const head = document.createElement("div"); head.className = "run-head";
      const title = document.createElement("strong"); title.textContent = j.title;
      const badge = document.createElement("span"); badge.className = "badge"; badge.textContent = j.stopping ? "stopping…" : j.state === "done" ? (j.status || "done") : j.state;
      head.append(title, badge);
      card.appendChild(head);
      const p = j.progress || {};
      if (j.action === "enumerate" || j.action === "count") {
        const bar = document.createElement("div"); bar.className = "bar";
        const fill = document.createElement("span");
        const frac = j.state === "done" && j.status === "complete" ? 1 : p.work ? Math.min(0.99, p.work_done / p.work) : 0;
        fill.style.width = (100 * frac).toFixed(1) + "%"; bar.appendChild(fill); card.appendChild(bar);
        const facts = document.createElement("div"); facts.className = "facts";
        const c = j.result || p;
        facts.textContent = (c.total !== undefined ? c.total.toLocaleString() + " in all, " + (c.unique_rotation || 0).toLocaleString() + " up to rotation, " +
          (c.unique_symmetry || 0).toLocaleString() + " up to rotation and reflection" : "preparing…") +
          (j.result && j.result.subproblems ? " · " + j.result.subproblems_done + "/" + j.result.subproblems + " subproblems"
            : p.parts ? " · " + p.parts_done + "/" + p.parts + " subproblems" : "") +
          (j.state === "running" && p.elapsed !== undefined ? " · " + clock(p.elapsed) + " elapsed, ETA " + clock(p.eta) : "") +
          (j.result ? " · " + j.result.seconds + " s" : "");
        facts.dataset.total = c.total !== undefined ? c.total : "";
        facts.dataset.unique = [c.total, c.unique_rotation, c.unique_symmetry].join("/");
        card.appendChild(facts);
        const taken = j.result && j.result.disassembly;
        if (taken) {  // enumerate --disassemble: assemblies against solutions, the levels
          const lv = document.createElement("div"); lv.className = "facts levels";
          const s = taken.solutions || {}, levels = Object.entries(taken.levels || {});
          lv.textContent = (s.unique_symmetry || 0).toLocaleString() + " of " + (c.unique_symmetry || 0).toLocaleString() +
            " come apart" + (levels.length ? "; levels " + levels.map(([l, n]) => l + ": " + n).join(", ") : "") +
            (taken.highest_level ? "; highest " + taken.highest_level : "");
          card.appendChild(lv);
        }
      }
      if (j.text) { const pre = document.createElement("pre"); pre.textContent = j.text; card.appendChild(pre); }
      if (j.error) { const e = document.createElement("p"); e.className = "bad"; e.textContent = j.error; card.appendChild(e); }
      if (j.notes && j.notes.length && j.state !== "running") { const n = document.createElement("details"); const s = document.createElement("summary"); s.textContent = "notes"; const pre = document.createElement("pre"); pre.textContent = j.notes.join("\n"); n.append(s, pre); card.appendChild(n); }
      const actions = document.createElement("div"); actions.className = "row";
      if (j.state === "running") {
        const b = document.createElement("button"); b.type = "button"; b.textContent = "Stop"; b.className = "stop";
        b.addEventListener("click", () => api("/api/jobs/" + j.id + "/stop", {}).then(poll).catch(fail));
        actions.appendChild(b);
      }
      if (j.action === "enumerate" && j.state === "done" && j.status !== "complete") {
        const b = document.createElement("button"); b.type = "button"; b.textContent = "Resume"; b.className = "resume primary";
        b.addEventListener("click", () => startRun("enumerate", { options: Object.assign(options(), { resume: true }) }));
        actions.appendChild(b);
      }
      if (j.out) {
        const b = document.createElement("button"); b.type = "button"; b.textContent = "Browse " + j.out; b.className = "browse";
        b.addEventListener("click", () => { addSource({ file: j.out, label: j.out }, true); showTab("browse"); });
        actions.appendChild(b);
      }
      if (j.action === "solve" && j.state === "done" && j.text && j.text !== "has no solution") {
        const b = document.createElement("button"); b.type = "button"; b.textContent = "Show in 3-D";
        b.addEventListener("click", () => { addSource({ solve: true, label: "solution found by Solve" }, true); showTab("browse"); });
        actions.appendChild(b);
      }
      card.appendChild(actions);
      return card;
    }
  }

  // -- Browse ------------------------------------------------------------------------------------------------
  const sources = [];
  function addSource(s, select) {
    const id = s.solve ? "solve" : s.file + "|" + (s.problem === null || s.problem === undefined ? "" : s.problem);
    s.id = id;
    const known = sources.findIndex((x) => x.id === id);
    if (known < 0) sources.push(s); else sources[known] = s;
    renderSources();
    if (select || !st.browse.source) chooseSource(id);
  }
  async function refreshSources() {
    try {
      const r = await api("/api/files");
      for (const f of r.files) if (f.kind === "solutions" && !sources.some((s) => s.file === f.path)) sources.push({ id: f.path + "|", file: f.path, label: f.path });
      renderSources();
      if (!st.browse.source && sources.length) chooseSource(sources[0].id);
    } catch (e) { fail(e); }
  }
  function renderSources() {
    const sel = $("b-source"); sel.textContent = "";
    for (const s of sources) { const o = document.createElement("option"); o.value = s.id; o.textContent = s.label; sel.appendChild(o); }
    if (st.browse.source) sel.value = st.browse.source.id;
  }
  $("b-source").addEventListener("change", () => chooseSource($("b-source").value));
  function chooseSource(id) {
    const s = sources.find((x) => x.id === id);
    if (!s) return;
    st.browse.source = s; $("b-source").value = id;
    $("b-level").value = ""; $("b-piece").value = "";
    if (s.solve) {
      st.browse.rows = []; $("b-list").textContent = ""; $("b-count").textContent = "one solution, found by Solve";
      showSolution({ pieces: st.lastSolve.pieces, yaml: st.lastSolve.yaml });
      return;
    }
    loadList(false);
  }
  for (const id of ["b-level", "b-piece"]) $(id).addEventListener("change", () => loadList(false));
  $("b-more").addEventListener("click", () => loadList(true, true));
  let listing = false, listAgain = false;  // one refresh of the list at a time; one more if asked meanwhile
  async function loadList(keep, more) {
    const s = st.browse.source;
    if (!s || s.solve) return;
    if (keep && !more && listing) { listAgain = true; return; }
    listing = true;
    try { await readList(s, keep, more); } finally {
      listing = false;
      if (listAgain) { listAgain = false; loadList(true); }
    }
  }
  async function readList(s, keep, more) {
    const start = more ? st.browse.rows.length : 0, want = keep && !more ? Math.max(st.browse.rows.length, 200) : 200;
    const q = new URLSearchParams({ file: s.file, start: String(start), limit: String(want) });
    if (s.problem !== null && s.problem !== undefined) q.set("problem", String(s.problem));
    if ($("b-level").value) q.set("level", $("b-level").value);
    if ($("b-piece").value) q.set("piece", $("b-piece").value);
    try {
      const r = await api("/api/solutions?" + q);
      st.browse.rows = more ? st.browse.rows.concat(r.rows) : r.rows;
      st.browse.total = r.total;
      fillFilter("b-level", Object.keys(r.levels).filter((l) => l !== "-" || Object.keys(r.levels).length > 1), (l) => (l === "-" ? "not taken apart" : "level " + l) + " (" + r.levels[l] + ")");
      fillFilter("b-piece", r.pieces, (p) => p);
      const noun = (n) => n.toLocaleString() + (n === 1 ? " solution" : " solutions");
      $("b-count").textContent = r.matched === r.total ? noun(r.total) : r.matched.toLocaleString() + " of " + noun(r.total);
      $("b-count").dataset.total = r.total; $("b-count").dataset.matched = r.matched;
      renderList(r.matched);
      if (!keep && st.browse.rows.length) showSolution({ file: s.file, problem: s.problem, n: st.browse.rows[0].n });
    } catch (e) { fail(e); }
  }
  function fillFilter(id, values, label) {
    const sel = $(id), now = sel.value;
    sel.textContent = "";
    const any = document.createElement("option"); any.value = ""; any.textContent = "any"; sel.appendChild(any);
    for (const v of values) { const o = document.createElement("option"); o.value = v; o.textContent = label(v); sel.appendChild(o); }
    sel.value = values.includes(now) ? now : "";
  }
  function renderList(matched) {
    const ol = $("b-list"); ol.textContent = "";
    for (const row of st.browse.rows) {
      const li = document.createElement("li"); li.dataset.n = row.n;
      li.className = st.browse.selected && st.browse.selected.n === row.n ? "on" : "";
      const a = document.createElement("span"); a.className = "idx"; a.textContent = "#" + row.index;
      const b = document.createElement("span"); b.className = "lvl"; b.textContent = row.level ? "level " + row.level : "";
      const c = document.createElement("span"); c.className = "asm"; c.textContent = row.assemblies ? row.assemblies + " asm." : "";
      li.append(a, b, c);
      if (row.id) li.title = "id " + row.id;
      li.addEventListener("click", () => showSolution({ file: st.browse.source.file, problem: st.browse.source.problem, n: row.n }));
      ol.appendChild(li);
    }
    $("b-more").hidden = st.browse.rows.length >= matched;
  }
  let viewSeq = 0;  // the last solution asked for is the one shown, whatever order the answers come in
  async function showSolution(which) {
    const seq = ++viewSeq;
    try {
      const data = await api("/api/view", which);
      if (seq !== viewSeq) return;
      st.browse.selected = which;
      for (const li of $("b-list").children) li.classList.toggle("on", +li.dataset.n === which.n);
      mountViewer(data);
      $("b-title").textContent = data.title + (which.n !== undefined ? ", solution " + (st.browse.rows.find((r) => r.n === which.n) || { index: which.n }).index : "");
      $("b-result").textContent = "";
    } catch (e) { fail(e); }
  }
  function mountViewer(data) {
    if (st.viewer) st.viewer.destroy();
    $("explode").value = "0";
    st.viewer = window.cpsolveViewer(data, { address: false });
    $("status").dataset.steps = String(st.viewer.state.asm);
  }
  function selectedBody() {
    const w = st.browse.selected;
    if (!w) throw new Error("choose a solution first");
    return w.pieces ? { pieces: w.pieces, yaml: w.yaml } : { file: w.file, problem: w.problem, n: w.n };
  }
  $("b-disassemble").addEventListener("click", () => {
    try {
      const w = selectedBody();
      if (w.pieces) startRun("disassemble", { pieces: w.pieces, yaml: w.yaml });
      else startRun("disassemble", { yaml: null, file: w.file, problem: w.problem, index: w.n });
    } catch (e) { fail(e); }
  });
  $("b-explain").addEventListener("click", () => {
    try {
      const w = selectedBody();
      if (w.pieces) startRun("explain", { pieces: w.pieces, yaml: w.yaml });
      else startRun("explain", { yaml: null, file: w.file, problem: w.problem, index: w.n });
      showTab("run");
    } catch (e) { fail(e); }
  });
  for (const b of document.querySelectorAll("[data-export]")) {
    b.addEventListener("click", async () => {
      try {
        const body = Object.assign(selectedBody(), { format: b.dataset.export, exploded: +$("explode").value > 0 });
        if (b.dataset.export === "sheet" && !body.pieces) body.many = st.browse.rows.slice(0, 48).map((r) => r.n);
        const r = await api("/api/export", body, true);
        const blob = await r.blob(), name = (r.headers.get("content-disposition") || "").replace(/.*filename="([^"]+)".*/, "$1") || "export";
        const url = URL.createObjectURL(blob);
        if (b.dataset.export === "sheet") {  // shown here first, to look at; downloaded from there
          $("sheet-img").src = url; $("sheet-save").href = url; $("sheet-save").download = name;
          $("sheet-title").textContent = "Contact sheet: " + (body.many ? body.many.length : 1) + " solutions";
          $("sheet-dialog").showModal();
        } else {
          const a = document.createElement("a"); a.href = url; a.download = name;
          document.body.appendChild(a); a.click(); a.remove();
          setTimeout(() => URL.revokeObjectURL(url), 10000);
        }
        say("exported " + name + " (" + blob.size + " bytes)");
        document.body.dataset.exported = name + ":" + blob.size;
      } catch (e) { fail(e); }
    });
  }

  // For tests and benchmarks: where a cell's face is on the 3-D canvas (page coordinates), as drawn now.
  window.cpsolveWorkbench = {
    facePoint(cell, normal) {
      const it = picks.find((p) => !p.floor && key(p.cell) === key(cell) && key(p.across) === key(G.add(cell, normal)));
      if (!it) return null;
      const r = cv.getBoundingClientRect(), n = it.pts.length;
      return [r.left + it.pts.reduce((s, p) => s + p[0], 0) / n, r.top + it.pts.reduce((s, p) => s + p[1], 0) / n];
    },
    floorPoint(cell) {
      const it = picks.find((p) => p.floor && key(p.cell) === key(cell));
      if (!it) return null;
      const r = cv.getBoundingClientRect(), n = it.pts.length;
      return [r.left + it.pts.reduce((s, p) => s + p[0], 0) / n, r.top + it.pts.reduce((s, p) => s + p[1], 0) / n];
    },
    shape: () => clone(shape()),
    doc: () => clone(st.doc),
  };

  // -- start ---------------------------------------------------------------------------------------------------
  (async function start() {
    try {
      const s = await api("/api/state");
      fillLibraries(s);
      $("o-workers").placeholder = String(s.cores);
      const r = await api("/api/jobs");
      for (const j of r.jobs) runs[j.id] = j;
      if (s.start && (s.start.path || s.start.model)) await openFile(s.start.path ? { path: s.start.path, problem: s.start.problem } : { model: s.start.model });
      if (!st.doc) { setDoc(emptyDoc("untitled")); st.sizes.container = [3, 3, 3]; drawAll(); writeYaml(); }
      renderRuns(); poll();
      document.body.dataset.ready = "1";
    } catch (e) { fail(e); }
  })();
})();
