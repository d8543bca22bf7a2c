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

  // -- grids: everything the editor knows about a lattice is here; the rest of the editor sees cells as
  // opaque triples [x, y, z] and asks the grid. A grid is built from the server's `cpsolve.grid_solids`
  // (one period of its cells as solids in space: faces with the cell across each, or balls), moved by
  // whole periods to any cell. Editing goes by *units*: a cell, or on the rhombic and tetra-octa grids a
  // block of cells (one cube of the cube grid cut into 24 or 5 cells, as BurrTools' converter cuts it):
  // the layer view and the floor fill and empty whole units, the 3-D view adds the real cell beyond a face.
  const GRIDS = {};
  const NOUN = { cubes: "cubes", prisms: "prisms", spheres: "balls", rhombic: "cells", "tetra-octa": "cells" };
  const LAYER_PX = { cubes: 42, prisms: 50, spheres: 46, rhombic: 42, "tetra-octa": 42 };
  const CUBE_SHADE = (n) => G.SHADE[G.STEPS.findIndex((s) => s[0] === n[0] && s[1] === n[1] && s[2] === n[2])];
  const LIGHT = [-0.35, -0.55, 0.76], LIGHT_N = Math.hypot(...LIGHT);  // solids.LIGHT: the viewer's light
  function makeGrid(info, solids) {
    const P = solids.period, SP = solids.span, B = solids.block, name = info.name, balls = name === "spheres";
    const table = {};
    for (const [k, v] of Object.entries(solids.cells)) {
      if (balls) { table[k] = { centre: v.centre }; continue; }
      const faces = v.faces.map(([pts, n, across]) => ({ pts: pts, normal: n, across: across,
        mid: [0, 1, 2].map((a) => pts.reduce((t, p) => t + p[a], 0) / pts.length),
        lit: name === "cubes" ? CUBE_SHADE(n) : 0.55 + 0.45 * Math.max(0, G.dot(n, LIGHT) / LIGHT_N) }));
      const corners = faces.flatMap((f) => f.pts);
      table[k] = { faces: faces, centre: [0, 1, 2].map((a) => corners.reduce((t, p) => t + p[a], 0) / corners.length) };
    }
    const split = (c) => {  // the cell's period box and its place in it
      const b = [Math.floor(c[0] / P[0]), Math.floor(c[1] / P[1]), Math.floor(c[2] / P[2])];
      return [b, table[(c[0] - b[0] * P[0]) + "," + (c[1] - b[1] * P[1]) + "," + (c[2] - b[2] * P[2])]];
    };
    const shift = (p, o) => [p[0] + o[0], p[1] + o[1], p[2] + o[2]];
    const side = [0, 1, 2].map((a) => B * SP[a] / P[a]);  // a unit's size in space (blocks: one cube)
    const g = {
      name: name, title: info.title, block: B, balls: balls, noun: NOUN[name] || "cells", info: info,
      steps: solids.steps,
      isCell: (c) => !!split(c)[1],
      centre(c) { const [b, t] = split(c); return shift(t.centre, [b[0] * SP[0], b[1] * SP[1], b[2] * SP[2]]); },
      // the faces of cell c: corners in space, outward normal, brightness, and the cell across (or null);
      // kept once made (a HexSticks container has 2,256 cells: the 3-D view redraws them on every click)
      faces(c) {
        const k = key(c), known = faceCache.get(k);
        if (known) return known;
        const [b, t] = split(c), o = [b[0] * SP[0], b[1] * SP[1], b[2] * SP[2]];
        const made = t.faces.map((f) => ({ pts: f.pts.map((p) => shift(p, o)), normal: f.normal, lit: f.lit,
          mid: shift(f.mid, o), across: f.across && shift(c, f.across) }));
        if (faceCache.size > 200000) faceCache.clear();
        faceCache.set(k, made);
        return made;
      },
      unitOf: (c) => [Math.floor(c[0] / B), Math.floor(c[1] / B), Math.floor(c[2] / B)],
      layerOf: (c) => Math.floor(c[2] / B),
      // the cells of unit u (a cell, or the cells of a block)
      unitCells(u) {
        if (B === 1) return this.isCell(u) ? [u] : [];
        const k = key(u);
        if (!blockCache[k]) {
          const out = [];
          for (let z = 0; z < B; z++) for (let y = 0; y < B; y++) for (let x = 0; x < B; x++) {
            const c = [u[0] * B + x, u[1] * B + y, u[2] * B + z];
            if (this.isCell(c)) out.push(c);
          }
          blockCache[k] = out;
        }
        return blockCache[k];
      },
      // the units of layer L of a drawing of `size` units, each with its outline in the layer's plane
      // (space x, y): a square, a triangle, or a ball's circle
      layer(size, L) {
        const out = [];
        for (let y = 0; y < size[1]; y++) for (let x = 0; x < size[0]; x++) {
          const u = [x, y, L];
          if (B > 1) {
            out.push({ unit: u, cells: this.unitCells(u), poly: [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]].map((p) => [p[0] * side[0], p[1] * side[1]]) });
          } else if (this.isCell(u)) {
            if (balls) { const c = this.centre(u); out.push({ unit: u, cells: [u], circle: [c[0], c[1], 0.5] }); continue; }
            const bottom = this.faces(u).find((f) => f.normal[2] < -0.5);
            out.push({ unit: u, cells: [u], poly: bottom.pts.map((p) => [p[0], p[1]]) });
          }
        }
        return out;
      },
      // where the unit's floor is in space, to click on an empty layer: a polygon in a horizontal plane
      floor(q) {
        const u = q.unit;
        if (B > 1) return q.poly.map((p) => [p[0], p[1], u[2] * side[2]]);
        if (balls) {
          const c = this.centre(u);
          return Array.from({ length: 12 }, (_, i) => [c[0] + 0.3 * Math.cos(i * Math.PI / 6), c[1] + 0.3 * Math.sin(i * Math.PI / 6), c[2]]);
        }
        return q.poly.map((p) => [p[0], p[1], u[2] * side[2]]);
      },
      // the drawing's box in space: [low corner, high corner]
      box(size) {
        const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
        const seen = (p) => { for (let a = 0; a < 3; a++) { lo[a] = Math.min(lo[a], p[a]); hi[a] = Math.max(hi[a], p[a]); } };
        for (const L of size[2] > 1 ? [0, 1, size[2] - 1] : [0]) {
          for (const q of this.layer(size, L)) {
            if (q.circle) { const c = this.centre(q.unit); seen([c[0] - 0.5, c[1] - 0.5, c[2] - 0.5]); seen([c[0] + 0.5, c[1] + 0.5, c[2] + 0.5]); } else for (const p of q.poly) { seen([p[0], p[1], L * side[2]]); seen([p[0], p[1], (L + 1) * side[2]]); }
          }
        }
        if (lo[0] === Infinity) return [[0, 0, 0], [1, 1, 1]];
        return [lo, hi];
      },
    };
    const blockCache = {}, faceCache = new Map();
    return g;
  }
  const grid = () => GRIDS[st.doc.grid];
  async function loadGrids(infos) {
    await Promise.all(infos.map(async (info) => {
      if (!GRIDS[info.name]) GRIDS[info.name] = makeGrid(info, await api("/api/grid?name=" + encodeURIComponent(info.name)));
    }));
  }

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
  function emptyDoc(name, gridName) {
    return { grid: gridName || "cubes", name: name || "untitled", kind: "pieces", container: { cells: [], optional: [], colors: [] }, pieces: [], keep: {} };
  }
  function shape() {  // the shape being drawn: {cells, optional?, colors}
    return st.sel === "container" ? st.doc.container : st.doc.pieces[st.sel];
  }
  const DEFAULT_SIZE = { spheres: [5, 5, 3] };
  function bounds(cells) {  // the units (cells, or cubes of a block grid) a drawing needs along each axis
    const B = grid().block;
    if (!cells.length) return (DEFAULT_SIZE[st.doc.grid] || [3, 3, 3]).slice();
    return [0, 1, 2].map((a) => Math.floor(Math.max(...cells.map((c) => c[a])) / B) + 1);
  }
  function sizeOf() {
    const k = st.sel === "container" ? "container" : "p" + st.sel;
    const cells = shape() ? shape().cells : [], need = bounds(cells);
    // a piece is shown with room to grow (one unit more each way, three at least); a container as it is
    const have = st.sizes[k] || (k === "container" || !cells.length ? need : need.map((v) => Math.max(v + 1, 3)));
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
  function applyTool(cells, tool) {  // one edit of some cells (a cell, or the cells of a unit)
    const s = shape(), g = grid();
    cells = (cells || []).filter((c) => c && c.every((v) => v >= 0) && g.isCell(c));
    if (!s || !cells.length) return;
    const isContainer = st.sel === "container", name = $("paint-name").value.trim() || "red";
    const unmark = (cs) => { const k = new Set(cs.map(key)); s.colors = s.colors.filter((cc) => !k.has(key(cc[0]))); };
    change(() => {
      const held = new Set(s.cells.map(key)), fresh = cells.filter((c) => !held.has(key(c)));
      if (tool === "erase") {
        const k = new Set(cells.map(key));
        s.cells = s.cells.filter((c) => !k.has(key(c)));
        if (isContainer) s.optional = s.optional.filter((c) => !k.has(key(c)));
        unmark(cells);
      } else if (tool === "paint") {  // the colour on every cell, or off again where every cell had it
        const all = cells.every((c) => s.colors.some((cc) => key(cc[0]) === key(c) && cc[1] === name));
        s.cells.push(...fresh);
        unmark(cells);
        if (!all) s.colors.push(...cells.map((c) => [c, name]));
      } else {
        s.cells.push(...fresh);
        if (isContainer) {
          const k = new Set(cells.map(key));
          s.optional = s.optional.filter((c) => !k.has(key(c)));
          if (tool === "optional") s.optional.push(...cells);
        }
      }
      const size = sizeOf();
      for (const c of cells) { const u = g.unitOf(c); for (let a = 0; a < 3; a++) size[a] = Math.max(size[a], u[a] + 1); }
    }, true);
    renderShapes();
  }
  function toggleUnit(u, shift) {  // a click on the layer view: fill the unit, or empty it when it is full
    const s = shape(), cells = grid().unitCells(u), held = new Set(s.cells.map(key));
    const full = cells.length > 0 && cells.every((c) => held.has(key(c)));
    let tool = shift ? "erase" : st.tool;
    if (tool === "add" && full) tool = "erase";  // click a filled square to empty it
    if (tool === "optional" && full && cells.every((c) => has(s.optional || [], c))) tool = "erase";
    applyTool(cells, tool);
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
    const noun = grid().noun;
    item("container", "Container", CONTAINER_COLOR, c.cells.length + " " + noun + (c.optional.length ? ", " + c.optional.length + " optional" : ""));
    st.doc.pieces.forEach((p, i) => {
      const copies = p.min !== null && p.min !== undefined && p.min !== p.count ? " ×" + p.min + "–" + p.count : p.count > 1 ? " ×" + p.count : "";
      item(i, p.name + copies, colorOf(i), p.cells.length + " " + noun);
    });
    const vol = st.doc.pieces.reduce((s, p) => s + p.cells.length * (p.count || 1), 0);
    const need = c.cells.length - c.optional.length;
    const foot = document.createElement("li"); foot.className = "volume";
    foot.textContent = "pieces " + vol + " " + noun + ", container " + need + (c.optional.length ? "–" + c.cells.length : "");
    foot.classList.toggle("bad", vol < need || vol > c.cells.length);
    ul.appendChild(foot);
  }
  let shownGrid = null;
  function renderProps() {
    if (st.doc.grid !== shownGrid) gridChanged();
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

  // -- drawing: the layer view and the 3-D view ---------------------------------------------------------
  function drawAll() {
    if (!st.doc || st.doc.kind === "chain") return;
    const t0 = performance.now();
    drawLayer();
    draw3d();
    const s = shape(), size = sizeOf(), g = grid();
    $("sx").value = size[0]; $("sy").value = size[1]; $("sz").value = size[2];
    $("layer-label").textContent = (g.block > 1 ? "cube layer " : "layer z = ") + st.layer + " of " + size[2];
    $("shape-info").textContent = (st.sel === "container" ? "Container" : "Piece " + st.doc.pieces[st.sel].name) + ": " +
      s.cells.length + " " + g.noun + (s.optional && s.optional.length ? " (" + s.optional.length + " optional)" : "") +
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
  // The current layer as SVG, seen from above as in BurrTools and the 3-D view (x to the right, y up):
  // squares, triangles (up and down), balls in a checkerboard, or whole cubes of a block grid (filled,
  // partly filled, empty). The balls of the layer below show faintly between this layer's.
  const SVG = "http://www.w3.org/2000/svg";
  function svgEl(name, attrs, parent) {
    const el = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (parent) parent.appendChild(el);
    return el;
  }
  function drawLayer() {
    const box = $("grid"), size = sizeOf(), s = shape(), g = grid(), px = LAYER_PX[g.name] || 42;
    const filled = new Set(s.cells.map(key)), opt = new Set((s.optional || []).map(key));
    const units = g.layer(size, st.layer);
    const under = st.layer > 0 ? g.layer(size, st.layer - 1) : [];
    // the frame: every layer's places (balls sit elsewhere in odd and even layers), so that it keeps still
    const frame = g.balls ? g.layer(size, 0).concat(size[2] > 1 ? g.layer(size, 1) : []) : units;
    const pts = frame.flatMap((q) => q.circle ? [[q.circle[0] - 0.5, q.circle[1] - 0.5], [q.circle[0] + 0.5, q.circle[1] + 0.5]] : q.poly);
    const lo = [Math.min(...pts.map((p) => p[0])), Math.min(...pts.map((p) => p[1]))];
    const hi = [Math.max(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[1]))];
    const pad = 4, W = (hi[0] - lo[0]) * px + 2 * pad, H = (hi[1] - lo[1]) * px + 2 * pad;
    const X = (x) => (pad + (x - lo[0]) * px).toFixed(1), Y = (y) => (pad + (hi[1] - y) * px).toFixed(1);  // y up
    box.textContent = "";
    const svg = svgEl("svg", { width: W.toFixed(0), height: H.toFixed(0), viewBox: "0 0 " + W.toFixed(0) + " " + H.toFixed(0), class: "layer-svg " + g.name });
    const defs = svgEl("defs", {}, svg), hatch = svgEl("pattern", { id: "below", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
    svgEl("rect", { width: 8, height: 8, fill: "#ffffff" }, hatch); svgEl("rect", { width: 4, height: 8, fill: "#e4e9f1" }, hatch);
    if (g.balls) {  // the layer below, seen between this layer's balls (whose empty places are drawn small)
      for (const q of under) if (filled.has(key(q.unit))) svgEl("circle", { cx: X(q.circle[0]), cy: Y(q.circle[1]), r: (0.5 * px - 1.5).toFixed(1), class: "under" }, svg);
    }
    for (const q of units) {
      const n = q.cells.filter((c) => filled.has(key(c))).length, full = n > 0 && n === q.cells.length;
      const attrs = { class: "cell", "data-x": q.unit[0], "data-y": q.unit[1], "data-z": q.unit[2] };
      let el;
      if (q.circle) el = svgEl("circle", Object.assign(attrs, { cx: X(q.circle[0]), cy: Y(q.circle[1]), r: ((n ? q.circle[2] : 0.3) * px - 1.5).toFixed(1) }), svg);
      else el = svgEl("polygon", Object.assign(attrs, { points: shrink(q.poly, g.name === "prisms" ? 0.06 : 0.03).map((p) => X(p[0]) + "," + Y(p[1])).join(" ") }), svg);
      if (n) {
        const optional = q.cells.every((c) => !filled.has(key(c)) || opt.has(key(c)));
        el.classList.add(optional ? "optional" : "filled");
        if (!full) { el.classList.add("partial"); el.style.fillOpacity = "0.45"; }
        el.style.fill = fillOf(q.cells.find((c) => filled.has(key(c))));
        const m = q.cells.map(markOf).find((v) => v);
        if (m) {
          el.classList.add("marked"); el.dataset.mark = m;
          const c = centroid2(q);
          svgEl("circle", { cx: X(c[0]), cy: Y(c[1]), r: (0.13 * px).toFixed(1), fill: cssColour(m), class: "mark" }, svg);
        }
        const tip = svgEl("title", {}, el);
        tip.textContent = (g.block > 1 ? n + " of " + q.cells.length + " cells of this cube" : "") + (m ? " constraint colour " + m : "");
      } else if (st.layer > 0 && !g.balls && g.unitCells([q.unit[0], q.unit[1], q.unit[2] - 1]).some((c) => filled.has(key(c)))) {
        el.classList.add("below");
      }
    }
    box.appendChild(svg);
  }
  function shrink(poly, t) {  // a polygon pulled in towards its centre, so that neighbours show a gap
    const c = [poly.reduce((s, p) => s + p[0], 0) / poly.length, poly.reduce((s, p) => s + p[1], 0) / poly.length];
    return poly.map((p) => [p[0] + (c[0] - p[0]) * t, p[1] + (c[1] - p[1]) * t]);
  }
  function centroid2(q) {
    if (q.circle) return q.circle;
    return [q.poly.reduce((s, p) => s + p[0], 0) / q.poly.length, q.poly.reduce((s, p) => s + p[1], 0) / q.poly.length];
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
    if (d) { toggleUnit([+d.dataset.x, +d.dataset.y, +d.dataset.z], e.shiftKey); timed(e); }
  });

  // 3-D: painter's order (faces by their centres, balls by theirs); what is drawn is kept for picking.
  const cv = $("editor3d"), ctx = cv.getContext("2d");
  let picks = [], view = null;
  function draw3d() {
    const dpr = window.devicePixelRatio || 1, w = cv.clientWidth, h = cv.clientHeight;
    if (!w || !h) return;
    if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(h * dpr)) { cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr); }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const g = grid(), s = shape(), size = sizeOf(), cam = G.cameraAt(st.yaw, st.pitch), [blo, bhi] = g.box(size);
    const mid = [0, 1, 2].map((a) => (blo[a] + bhi[a]) / 2), radius = Math.hypot(bhi[0] - blo[0], bhi[1] - blo[1], bhi[2] - blo[2]) / 2 + 0.6;
    const scale = st.zoom * Math.min(w, h) / (2 * radius), cx = w / 2, cy = h / 2;
    const P = (p) => { const q = [p[0] - mid[0], p[1] - mid[1], p[2] - mid[2]]; return [cx + G.dot(q, cam.right) * scale, cy - G.dot(q, cam.up) * scale]; };
    view = { cam: cam, P: P, scale: scale, rect: null };
    const filled = new Set(s.cells.map(key));
    const items = [];
    // the current layer's floor: faint, clickable where the unit is empty
    for (const q of g.layer(size, st.layer)) {
      if (q.cells.some((c) => filled.has(key(c)))) continue;
      items.push({ depth: -1e9, floor: true, cell: q.cells[0], unit: q.unit, cells: q.cells, pts: g.floor(q).map(P) });
    }
    for (const c of s.cells) {
      const base = fillOf(c), m = markOf(c), L = g.layerOf(c), dim = L > st.layer ? 0.55 : 1;
      if (g.balls) {
        const ctr = g.centre(c);
        items.push({ depth: G.dot(ctr, cam.toward), ball: true, cell: c, at: P(ctr), r: 0.5 * scale, color: base, mark: m, dim: dim, layer: L === st.layer });
        continue;
      }
      for (const f of g.faces(c)) {
        if (G.dot(f.normal, cam.toward) <= 1e-9 || (f.across && filled.has(key(f.across)))) continue;
        items.push({ depth: G.dot(f.mid, cam.toward), cell: c, across: f.across, pts: f.pts.map(P), color: base, lit: f.lit, mark: m, dim: dim,
          layer: L === st.layer });
      }
    }
    items.sort((a, b) => a.depth - b.depth);
    ctx.lineJoin = "round";
    drawBox(P, blo, bhi);
    const cubes = g.name === "cubes";
    for (const it of items) {
      if (it.ball) { drawBall(it); continue; }
      ctx.beginPath(); it.pts.forEach((p, i) => (i ? ctx.lineTo(p[0], p[1]) : ctx.moveTo(p[0], p[1]))); ctx.closePath();
      if (it.floor) {
        ctx.fillStyle = "rgba(80,110,160,0.06)"; ctx.fill();
        ctx.strokeStyle = "rgba(80,110,160,0.35)"; ctx.lineWidth = 1; ctx.stroke();
        continue;
      }
      ctx.globalAlpha = it.dim < 1 ? 0.45 : 1;
      ctx.fillStyle = G.shade(it.color, it.lit); ctx.fill();
      if (cubes) { ctx.strokeStyle = it.layer ? "#1d2b44" : G.shade(it.color, 0.35); ctx.lineWidth = it.layer ? 1.6 : 1; }
      else { ctx.strokeStyle = G.shade(it.color, it.layer ? 0.3 : it.lit * 0.72); ctx.lineWidth = it.layer ? 1.1 : 0.7; }  // small cells: seams
      ctx.stroke();
      if (it.mark) {
        const m = it.pts, cxm = m.reduce((t, p) => t + p[0], 0) / m.length, cym = m.reduce((t, p) => t + p[1], 0) / m.length;
        ctx.beginPath(); m.forEach((p, i) => { const x = cxm + (p[0] - cxm) * 0.45, y = cym + (p[1] - cym) * 0.45; i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
        ctx.closePath(); ctx.fillStyle = cssColour(it.mark); ctx.fill(); ctx.strokeStyle = "#0006"; ctx.lineWidth = 1; ctx.stroke();
      }
      ctx.globalAlpha = 1;
    }
    picks = items;
  }
  function drawBall(it) {  // the viewer's ball: lit from the upper left, darker at the rim
    const [x, y] = it.at, r = it.r;
    ctx.globalAlpha = it.dim < 1 ? 0.45 : 1;
    const grad = ctx.createRadialGradient(x - 0.3 * r, y - 0.32 * r, 0.05 * r, x, y, r);
    grad.addColorStop(0, G.shade(it.color, 1.25)); grad.addColorStop(0.55, G.shade(it.color, 1)); grad.addColorStop(1, G.shade(it.color, 0.5));
    ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fillStyle = grad; ctx.fill();
    ctx.strokeStyle = it.layer ? "#1d2b44" : G.shade(it.color, 0.35); ctx.lineWidth = it.layer ? 1.6 : 1; ctx.stroke();
    if (it.mark) { ctx.beginPath(); ctx.arc(x, y, 0.28 * r, 0, 2 * Math.PI); ctx.fillStyle = cssColour(it.mark); ctx.fill(); ctx.strokeStyle = "#0006"; ctx.stroke(); }
    ctx.globalAlpha = 1;
  }
  function drawBox(P, lo, hi) {
    const c = [[lo[0], lo[1], lo[2]], [hi[0], lo[1], lo[2]], [hi[0], hi[1], lo[2]], [lo[0], hi[1], lo[2]], [lo[0], lo[1], hi[2]], [hi[0], lo[1], hi[2]], [hi[0], hi[1], hi[2]], [lo[0], hi[1], hi[2]]].map(P);
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
  function pick(x, y) {  // the front-most face or ball under the pointer
    for (let i = picks.length - 1; i >= 0; i--) {
      const it = picks[i];
      if (it.ball ? Math.hypot(x - it.at[0], y - it.at[1]) <= it.r : inside(it.pts, x, y)) return it;
    }
    return null;
  }
  // A click on a ball adds the touching ball on the side clicked: the point of the ball's surface under the
  // pointer gives a direction, and the free neighbour nearest it is the one added.
  function ballBeyond(it, x, y) {
    const g = grid(), cam = view.cam, filled = new Set(shape().cells.map(key));
    const dx = (x - it.at[0]) / it.r, dy = -(y - it.at[1]) / it.r, dz = Math.sqrt(Math.max(0, 1 - dx * dx - dy * dy));
    const n = [0, 1, 2].map((a) => dx * cam.right[a] + dy * cam.up[a] + dz * cam.toward[a]);
    let best = null, bestDot = -Infinity;
    for (const s of g.steps) {
      const c = G.add(it.cell, s);
      if (filled.has(key(c))) continue;
      const d = G.dot(s, n) / Math.hypot(...s);
      if (d > bestDot) { bestDot = d; best = c; }
    }
    return best;
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
    const r = cv.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top, hit = pick(x, y);
    if (!hit) return;
    const erase = e.shiftKey || st.tool === "erase";
    if (hit.floor) { if (!erase) applyTool(hit.cells, st.tool); timed(e); return; }
    if (erase) applyTool([hit.cell], "erase");
    else if (st.tool === "paint") applyTool([hit.cell], "paint");
    else {
      const beyond = hit.ball ? ballBeyond(hit, x, y) : hit.across;
      if (beyond && grid().isCell(beyond)) applyTool([beyond], st.tool);
    }
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
  // New: the grid first (it cannot change later, as in BurrTools), then the container to start from
  const GRID_HINT = { cubes: "polycubes, burrs, boxes", prisms: "triangular prisms in layers: polyiamond boards, Bermuda",
    spheres: "balls in the face-centred cubic packing: Kanoodle's pyramid", rhombic: "24 tetrahedra to a cube: Coffin's rhombic dodecahedra (HexSticks)",
    "tetra-octa": "tetrahedra and octahedra, 5 cells to a cube" };
  function fillNewDialog() {
    const box = $("new-grids"); box.textContent = "";
    for (const info of st.info.grids) {
      const label = document.createElement("label"), input = document.createElement("input"), b = document.createElement("strong"), small = document.createElement("small");
      input.type = "radio"; input.name = "new-grid"; input.value = info.name; input.checked = info.name === (st.doc ? st.doc.grid : "cubes");
      b.textContent = info.title; small.textContent = GRID_HINT[info.name] || "";
      label.append(input, b, small); box.appendChild(label);
      input.addEventListener("change", newFormChanged);
    }
    newFormChanged();
  }
  function newGrid() { const on = document.querySelector('input[name="new-grid"]:checked'); return on ? on.value : "cubes"; }
  function newFormChanged() {
    const g = newGrid(), form = $("new-form-kind");
    for (const o of form.options) o.hidden = (o.value === "pyramid" || o.value === "tetrahedron") && g !== "spheres";
    if (form.selectedOptions[0].hidden) form.value = "empty";
    $("new-size-row").hidden = form.value === "empty";
    $("new-size-unit").textContent = form.value === "box" ? (GRIDS[g].block > 1 ? "cubes" : GRIDS[g].noun) : form.value === "pyramid" ? "balls along the base" : "balls along an edge";
    for (const id of ["new-sy", "new-sz"]) $(id).hidden = form.value !== "box";
  }
  $("new-form-kind").addEventListener("change", newFormChanged);
  $("new").addEventListener("click", () => { fillNewDialog(); $("new-dialog").showModal(); });
  $("new-dialog").addEventListener("close", async () => {
    if ($("new-dialog").returnValue !== "ok") return;
    const g = newGrid(), form = $("new-form-kind").value, n = ["new-sx", "new-sy", "new-sz"].map((id) => Math.max(1, parseInt($(id).value, 10) || 1));
    try {
      const doc = form === "empty" ? emptyDoc("untitled", g) : await api("/api/new", { grid: g, form: form, size: n });
      st.file = null; st.sel = "container"; st.layer = 0;
      setDoc(doc);
      st.sizes.container = form === "box" ? n : bounds(doc.container.cells);
      if (form === "empty" && !GRIDS[g].balls) st.sizes.container = [3, 3, 3];
      renderShapes(); renderProps(); drawAll(); writeYaml();
      say("a new puzzle on the " + GRIDS[g].title + " grid: draw the container, then the pieces");
    } catch (e) { fail(e); }
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

  // -- the grid: what the page offers on it ------------------------------------------------------------------
  function libLabel(name) {  // a flat ball library (design.pieces.POOLS: square-balls-N, triangular-balls-N) in words
    const m = /^(square|triangular)-balls-(\d+)$/.exec(name);
    if (!m) return name;
    return m[2] + (m[2] === "1" ? " ball" : " balls") + " in a " + m[1] + " layer" + (name === "square-balls-5" ? " (Kanoodle's)" : "");
  }
  function gridChanged() {
    const g = grid(), info = g.info;
    shownGrid = g.name;
    document.body.dataset.grid = g.name;
    $("grid-title").textContent = g.title;
    fillLibraries();
    // what the grid cannot do is said where its button is, in words
    const noApart = info.disassemble ? "" : "BurrTools has no disassembler for the " + g.name + " grid either: assemblies there are counted, not taken apart";
    $("o-disassemble").disabled = !info.disassemble;
    if (!info.disassemble) $("o-disassemble").checked = false;
    $("o-disassemble").closest("label").title = noApart || "enumerate --disassemble: each solution taken apart, its level";
    $("grid-note").textContent = "On the " + g.title + " grid: " + noApart + ".";
    $("grid-note").hidden = !noApart;
    $("layer-hint").textContent = g.block > 1
      ? "Each square is one cube of " + g.block + "\u00d7" + g.block + "\u00d7" + g.block + " cells (" + g.unitCells([0, 0, 0]).length + " of them real): a click fills or empties the cube's cells; a half-filled square is a cube partly filled. Single cells: in 3-D."
      : g.balls ? "Balls in a checkerboard, seen from above: each layer's balls sit in the hollows of the layer below (faint)."
        : g.name === "prisms" ? "Triangles seen from above (up and down in turn); each layer a layer of prisms. The hatched ones are the layer below."
          : "Layer by layer, seen from above as in BurrTools: the hatched squares are the layer below.";
  }
  function fillLibraries() {
    const sel = $("library"), info = grid().info;
    sel.textContent = "";
    $("library-shapes").textContent = ""; $("kaenel").hidden = true;
    const group = (label) => { const g = document.createElement("optgroup"); g.label = label; sel.appendChild(g); return g; };
    const opt = (g, value, label) => { const o = document.createElement("option"); o.value = value; o.textContent = label; g.appendChild(o); };
    const none = document.createElement("option"); none.value = ""; none.textContent = "add a piece from…"; sel.appendChild(none);
    const blocks = grid().block > 1 ? " (cubes as blocks)" : "";
    const shapes = group("shape libraries");
    for (const l of info.libraries) opt(shapes, "lib:" + l, libLabel(l) + blocks);
    if (info.kaenel) opt(shapes, "kaenel", "six-piece burr stick (Kaenel number)" + blocks);
    const models = group("pieces of a built-in model");
    for (const m of st.info.models) if ((st.info.model_grids[m] || "cubes") === info.name) opt(models, "model:" + m, m);
  }
  $("library").addEventListener("change", () => showLibrary($("library").value));
  $("kaenel").addEventListener("change", () => showLibrary("kaenel"));
  async function showLibrary(v) {
    const box = $("library-shapes"); box.textContent = "";
    $("kaenel").hidden = v !== "kaenel";
    if (!v) return;
    const g = grid(), on = "&grid=" + encodeURIComponent(g.name);
    try {
      let shapes = [];
      if (v.startsWith("lib:")) {
        const r = await api("/api/library?name=" + encodeURIComponent(v.slice(4)) + on);
        shapes = Object.entries(r.shapes).map(([n, cells]) => ({ name: n, cells: cells }));
      } else if (v === "kaenel") {
        const n = parseInt($("kaenel").value, 10);
        if (!n) { $("kaenel").focus(); return; }
        const r = await api("/api/library?name=kaenel:" + n + on);
        shapes = Object.entries(r.shapes).map(([name, cells]) => ({ name: name, cells: cells }));
      } else if (v.startsWith("model:")) {
        const r = await api("/api/open", { model: v.slice(6) });
        shapes = r.editor && r.editor.grid === g.name ? r.editor.pieces.map((p) => ({ name: p.name, cells: p.cells, color: p.color, count: p.count })) : [];
      }
      if (grid() !== g) return;  // the grid changed while the library was read
      for (const s of shapes) {
        const b = document.createElement("button"); b.type = "button"; b.className = "shape-chip";
        b.title = "add " + s.name + " (" + s.cells.length + " " + g.noun + ") as a new piece";
        b.appendChild(thumb(s.cells, s.color || "#7f9fc8", g));
        const t = document.createElement("span"); t.textContent = s.name; b.appendChild(t);
        b.dataset.name = s.name;
        b.addEventListener("click", () => addPiece(clone(s.cells), s.name, s.color));
        box.appendChild(b);
      }
      box.dataset.shown = v + ":" + shapes.length;
    } catch (e) { fail(e); }
  }
  function thumb(cells, color, g) {  // a small 3-D picture of a shape on its grid, drawn with the same geometry
    const c = document.createElement("canvas"), w = 44, x = c.getContext("2d");
    c.width = w; c.height = w; c.className = "thumb";
    const flat = cells.every((c) => g.layerOf(c) === g.layerOf(cells[0]));  // a flat piece: seen more from above
    const cam = G.cameraAt(-0.785, flat ? 1.0 : 0.6155), own = new Set(cells.map(key)), items = [];
    for (const cell of cells) {
      if (g.balls) { items.push({ d: G.dot(g.centre(cell), cam.toward), ball: g.centre(cell) }); continue; }
      for (const f of g.faces(cell)) {
        if (G.dot(f.normal, cam.toward) <= 0 || (f.across && own.has(key(f.across)))) continue;
        items.push({ d: G.dot(f.mid, cam.toward), pts: f.pts, lit: f.lit });
      }
    }
    const all = items.flatMap((it) => it.ball ? [it.ball.map((v) => v - 0.5), it.ball.map((v) => v + 0.5)] : it.pts);
    const lo = [0, 1, 2].map((a) => Math.min(...all.map((p) => p[a]))), hi = [0, 1, 2].map((a) => Math.max(...all.map((p) => p[a])));
    const mid = [0, 1, 2].map((a) => (lo[a] + hi[a]) / 2), scale = w / (Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) + 0.3);
    const P = (p) => { const q = [p[0] - mid[0], p[1] - mid[1], p[2] - mid[2]]; return [w / 2 + G.dot(q, cam.right) * scale, w / 2 - G.dot(q, cam.up) * scale]; };
    items.sort((a, b) => a.d - b.d);
    for (const it of items) {
      x.beginPath();
      if (it.ball) { const q = P(it.ball); x.arc(q[0], q[1], 0.5 * scale, 0, 2 * Math.PI); x.fillStyle = G.shade(color, 0.95); }
      else { it.pts.map(P).forEach((p, i) => (i ? x.lineTo(p[0], p[1]) : x.moveTo(p[0], p[1]))); x.closePath(); x.fillStyle = G.shade(color, it.lit); }
      x.fill(); x.strokeStyle = G.shade(color, 0.4); x.lineWidth = 0.7; x.stroke();
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
    // what the solution's grid cannot do, said at its buttons
    const g = data.grid || "cubes", info = st.info.grids.find((x) => x.name === g) || {};
    const why = info.disassemble ? "" : "BurrTools has no disassembler for the " + g + " grid either: assemblies there are counted, not taken apart (the step slider drops the pieces in, one at a time).";
    const noExplain = g === "cubes" ? "" : why || "Explain takes assemblies apart on the cube grid only: Disassemble takes this one apart along the grid's own moves.";
    $("b-disassemble").disabled = !!why; $("b-disassemble").title = why || "take this assembly apart: its level and moves";
    $("b-explain").disabled = !!noExplain; $("b-explain").title = noExplain || "why it does not come apart, what blocks what";
    $("b-why").textContent = why || (noExplain && g !== "cubes" ? noExplain : "");
    $("b-why").hidden = !$("b-why").textContent;
    $("stage").dataset.grid = g;
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
    facePoint(cell, normal) { return this.acrossPoint(cell, G.add(cell, normal)); },
    floorPoint(cell) {
      const it = picks.find((p) => p.floor && p.cells.some((c) => key(c) === key(cell)));
      if (!it) return null;
      const r = cv.getBoundingClientRect(), n = it.pts.length;
      return [r.left + it.pts.reduce((s, p) => s + p[0], 0) / n, r.top + it.pts.reduce((s, p) => s + p[1], 0) / n];
    },
    // where to click in 3-D to add cell `across` beyond cell `cell`: the middle of the face between them,
    // or on a ball the point of its surface facing the ball to add (null when hidden)
    acrossPoint(cell, across) {
      const it = picks.find((p) => !p.floor && key(p.cell) === key(cell) && (p.ball || (p.across && key(p.across) === key(across))));
      if (!it) return null;
      let x, y;
      if (it.ball) {
        const d = [0, 1, 2].map((a) => across[a] - cell[a]), n = Math.hypot(...d), cam = view.cam;
        if (G.dot(d, cam.toward) / n < 0.15) return null;
        x = it.at[0] + 0.8 * it.r * G.dot(d, cam.right) / n; y = it.at[1] - 0.8 * it.r * G.dot(d, cam.up) / n;
      } else {
        x = it.pts.reduce((s, p) => s + p[0], 0) / it.pts.length; y = it.pts.reduce((s, p) => s + p[1], 0) / it.pts.length;
      }
      if (pick(x, y) !== it) return null;  // another cell in front
      const r = cv.getBoundingClientRect();
      return [r.left + x, r.top + y];
    },
    faces: () => picks.filter((p) => !p.floor).map((p) => ({ cell: p.cell, across: p.across || null })),
    shape: () => clone(shape()),
    doc: () => clone(st.doc),
    grid: () => st.doc.grid,
    layer: () => st.layer,
  };

  // -- start ---------------------------------------------------------------------------------------------------
  (async function start() {
    try {
      const s = await api("/api/state");
      st.info = s;
      await loadGrids(s.grids);
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
