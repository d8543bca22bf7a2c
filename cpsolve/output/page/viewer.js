// cpsolve view: a small canvas-2D renderer for unit cubes (painter's order), written for this page.
// The data (pieces, colours, solutions, assembly steps) is the JSON element with id "data", made by
// cpsolve/output/page.py from the same scene code as the PNG/SVG pictures (cpsolve/output/scene.py).
"use strict";
window.addEventListener("error", (e) => {  // a failure shows on the page, where a person (or a test) sees it
  const out = document.getElementById("status");
  if (out) { out.textContent = "error: " + e.message; out.dataset.error = e.message; }
});
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  const STEPS = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];  // scene.FACE_STEPS
  const SHADE = [0.80, 0.80, 0.66, 0.66, 1.0, 0.55];  // scene.SHADE
  const DIRS = [[0, 0, 1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, -1]];  // scene.DIRECTIONS
  const $ = (id) => document.getElementById(id);
  const canvas = $("view"), ctx = canvas.getContext("2d");
  const status = $("status");
  const st = { sol: 0, yaw: -0.785, pitch: 0.6155, zoom: 1, explode: 0, asm: 0, hidden: new Set(), playing: false };
  let S = null;  // the current solution, decoded

  const key = (c) => c[0] + "," + c[1] + "," + c[2];
  const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const unit = (a) => { const n = Math.hypot(a[0], a[1], a[2]); return [a[0] / n, a[1] / n, a[2] / n]; };
  function shade(hex, f) {
    const v = parseInt(hex.slice(1), 16);
    const c = [(v >> 16) & 255, (v >> 8) & 255, v & 255].map((x) => Math.max(0, Math.min(255, Math.round(x * f))));
    return "rgb(" + c.join(",") + ")";
  }

  // scene.face_corners / scene.EDGE_DIRS: corners counter-clockwise from outside, edge i from corner i to i+1.
  const PLANE = STEPS.map((s) => {
    const a = s.findIndex((v) => v !== 0), u = [0, 0, 0], w = [0, 0, 0];
    u[(a + 1) % 3] = 1; w[(a + 2) % 3] = 1;
    return s[a] > 0 ? [u, w] : [w, u];
  });
  const EDGE = PLANE.map(([u, w]) => [[-w[0], -w[1], -w[2]], u, w, [-u[0], -u[1], -u[2]]]);
  function corners(c, n, half) {
    const s = STEPS[n], [u, w] = PLANE[n], m = [c[0] + s[0] * half, c[1] + s[1] * half, c[2] + s[2] * half];
    return [[-1, -1], [1, -1], [1, 1], [-1, 1]].map(([a, b]) =>
      [m[0] + (a * u[0] + b * w[0]) * half, m[1] + (a * u[1] + b * w[1]) * half, m[2] + (a * u[2] + b * w[2]) * half]);
  }
  // scene.outer_faces: faces on the piece's surface; an edge is a faint seam where the side goes on flat.
  function outerFaces(cells) {
    const own = new Set(cells.map(key)), out = [];
    for (const c of cells) {
      STEPS.forEach((s, n) => {
        if (own.has(key(add(c, s)))) return;
        const strong = EDGE[n].map((d) => { const side = add(c, d); return !(own.has(key(side)) && !own.has(key(add(side, s)))); });
        out.push({ cell: c, n: n, strong: strong });
      });
    }
    return out;
  }

  function decode(i) {
    const text = D.solutions[i], parts = D.pieces.map((p) => ({ label: p.label, color: p.color, cells: [] }));
    for (let k = 0; k < text.length; k++) parts[D.alphabet.indexOf(text[k])].cells.push(D.cells[k]);
    const all = D.cells, mid = [0, 1, 2].map((a) => all.reduce((s, c) => s + c[a] + 0.5, 0) / all.length);
    let reach = 0;
    for (let a = 0; a < 3; a++) reach = Math.max(reach, Math.max(...all.map((c) => c[a])) - Math.min(...all.map((c) => c[a])) + 1);
    reach += 1;
    for (const p of parts) {
      const cm = [0, 1, 2].map((a) => p.cells.reduce((s, c) => s + c[a] + 0.5, 0) / p.cells.length);
      p.away = [cm[0] - mid[0], cm[1] - mid[1], cm[2] - mid[2]];
      p.faces = D.chain ? [] : outerFaces(p.cells);
    }
    let steps = D.steps && D.steps[String(i)];
    if (!steps) {
      const code = (D.assembly && D.assembly[i]) || "";
      steps = [];
      for (let k = 0; k + 1 < code.length; k += 2) {
        const d = DIRS[+code[k + 1]];
        steps.push({ pieces: [D.pieces[D.alphabet.indexOf(code[k])].label], move: d.map((v) => v * reach) });
      }
      // interlocked and no disassembly given: the pieces drop in from above, top ones last
      if (!steps.length) {
        const top = (p) => Math.max(...p.cells.map((c) => c[2]));
        steps = parts.slice().sort((a, b) => top(b) - top(a)).map((p) => ({ pieces: [p.label], move: [0, 0, reach] }));
      }
    }
    const byLabel = {};
    parts.forEach((p, j) => { byLabel[p.label] = j; });
    return { parts: parts, mid: mid, reach: reach, steps: steps, byLabel: byLabel, given: !!(D.steps && D.steps[String(i)]) };
  }

  // Where each part is at assembly time a (0 = nothing placed, N = assembled): the disassembly steps
  // played backwards; a part that has left the assembly (as far as `reach`) is not drawn.
  function placement(a) {
    const N = S.steps.length, u = N - a, off = S.parts.map(() => [0, 0, 0]), gone = S.parts.map(() => false);
    const whole = Math.floor(u), frac = u - whole;
    for (let j = 0; j < N && j <= whole; j++) {
      const f = j < whole ? 1 : frac;
      if (f <= 0) continue;
      for (const lab of S.steps[j].pieces) {
        const k = S.byLabel[lab];
        if (k === undefined) continue;
        const m = S.steps[j].move;
        off[k] = [off[k][0] + m[0] * f, off[k][1] + m[1] * f, off[k][2] + m[2] * f];
      }
    }
    // Pieces of the (sub-)assemblies whose moves are played already or now are on show; the rest
    // have not come in yet (they sit far away, where a finished disassembly left them).
    const later = new Set();
    for (let j = Math.max(0, whole); j < N; j++) for (const lab of (S.steps[j].part || S.steps[j].pieces)) later.add(lab);
    S.parts.forEach((p, k) => { if (!later.has(p.label) && Math.hypot(...off[k]) >= S.reach - 1e-6) gone[k] = true; });
    return { off: off, gone: gone };
  }

  function camera() {
    const cp = Math.cos(st.pitch);
    const toward = [Math.cos(st.yaw) * cp, Math.sin(st.yaw) * cp, Math.sin(st.pitch)];
    const fwd = [-toward[0], -toward[1], -toward[2]];
    let side = cross(fwd, [0, 0, 1]);
    side = Math.hypot(...side) > 1e-9 ? unit(side) : [1, 0, 0];
    return { toward: toward, right: side, up: cross(side, fwd) };
  }

  function draw() {
    const dpr = window.devicePixelRatio || 1, w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const cam = camera(), place = placement(st.asm), spread = st.explode * 1.6;
    const radius = S.reach * 0.9 * (1 + spread * 0.9);
    const scale = st.zoom * Math.min(w, h) / (2 * radius), cx = w / 2, cy = h / 2;
    const P = (p) => { const q = [p[0] - S.mid[0], p[1] - S.mid[1], p[2] - S.mid[2]]; return [cx + dot(q, cam.right) * scale, cy - dot(q, cam.up) * scale]; };
    const items = [];
    let pieces = 0, faces = 0;
    S.parts.forEach((p, k) => {
      if (st.hidden.has(p.label) || place.gone[k] || !p.cells.length) return;
      pieces++;
      const o = add(place.off[k], p.away.map((v) => v * spread));
      if (D.chain) {
        const c = add(p.cells[0], [0.5 + o[0], 0.5 + o[1], 0.5 + o[2]]).map((v, a) => S.mid[a] + (v - S.mid[a]) * 1.3);
        items.push({ depth: dot(c, cam.toward), kind: "cube", c: c, color: p.color, label: p.label });
        return;
      }
      const byCell = {};
      for (const f of p.faces) {
        if (dot(STEPS[f.n], cam.toward) <= 1e-9) continue;
        const c = add(f.cell, o), kk = key(c);
        if (!byCell[kk]) { byCell[kk] = { depth: dot([c[0] + 0.5, c[1] + 0.5, c[2] + 0.5], cam.toward), kind: "faces", faces: [], color: p.color }; items.push(byCell[kk]); }
        byCell[kk].faces.push({ c: [c[0] + 0.5, c[1] + 0.5, c[2] + 0.5], n: f.n, strong: f.strong });
        faces++;
      }
    });
    if (D.chain) {  // the string between consecutive cubes, in depth order with them
      const cubes = items.slice().sort((a, b) => +a.label - +b.label);
      for (let k = 0; k + 1 < cubes.length; k++) {
        const a = cubes[k].c, b = cubes[k + 1].c;
        if (+cubes[k + 1].label !== +cubes[k].label + 1) continue;
        const t = 0.36 / Math.max(0.72, Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]));  // only the gap shows
        const at = (f) => [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
        items.push({ depth: (dot(a, cam.toward) + dot(b, cam.toward)) / 2 - 1e-6, kind: "string", a: at(t), b: at(1 - t) });
      }
    }
    items.sort((a, b) => a.depth - b.depth);
    ctx.lineJoin = "round"; ctx.lineCap = "round";
    const edgeW = Math.max(1, scale / 24), seamW = Math.max(0.5, scale / 70);
    for (const it of items) {
      if (it.kind === "faces") {
        for (const f of it.faces) {
          const q = corners(f.c, f.n, 0.5).map(P), lit = SHADE[f.n];
          ctx.beginPath(); q.forEach((pt, i) => (i ? ctx.lineTo(pt[0], pt[1]) : ctx.moveTo(pt[0], pt[1]))); ctx.closePath();
          ctx.fillStyle = shade(it.color, lit); ctx.fill();
          ctx.strokeStyle = shade(it.color, lit); ctx.lineWidth = 0.6; ctx.stroke();
          for (let i = 0; i < 4; i++) {
            const a = q[i], b = q[(i + 1) % 4];
            ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
            ctx.strokeStyle = f.strong[i] ? shade(it.color, 0.3) : shade(it.color, lit * 0.82);
            ctx.lineWidth = f.strong[i] ? edgeW : seamW; ctx.stroke();
          }
        }
      } else if (it.kind === "cube") {
        STEPS.forEach((s, n) => {
          if (dot(s, cam.toward) <= 1e-9) return;
          const q = corners(it.c, n, 0.36).map(P);
          ctx.beginPath(); q.forEach((pt, i) => (i ? ctx.lineTo(pt[0], pt[1]) : ctx.moveTo(pt[0], pt[1]))); ctx.closePath();
          ctx.fillStyle = shade(it.color, SHADE[n]); ctx.fill();
          ctx.strokeStyle = shade(it.color, 0.35); ctx.lineWidth = Math.max(1, scale / 30); ctx.stroke();
          faces++;
        });
        const c = P(it.c);
        ctx.font = Math.round(Math.max(10, scale * 0.3)) + "px sans-serif"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
        ctx.lineWidth = 3; ctx.strokeStyle = "#fff"; ctx.strokeText(it.label, c[0], c[1]); ctx.fillStyle = "#222"; ctx.fillText(it.label, c[0], c[1]);
      } else {
        const a = P(it.a), b = P(it.b);
        ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
        ctx.strokeStyle = D.string; ctx.lineWidth = Math.max(2, scale / 12); ctx.stroke();
      }
    }
    status.textContent = "pieces drawn: " + pieces + ", faces: " + faces;
    status.dataset.pieces = pieces; status.dataset.faces = faces;
  }

  // -- controls ------------------------------------------------------------------------------
  let frame = 0;
  const redraw = () => { if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(); }); };

  function showSolution(i) {
    st.sol = Math.max(0, Math.min(D.solutions.length - 1, i));
    S = decode(st.sol);
    const asm = $("assembly");
    asm.max = String(S.steps.length * 100);
    st.asm = S.steps.length; asm.value = asm.max;
    $("which").textContent = D.solutions.length > 1 ? "solution " + st.sol + " of " + D.solutions.length + " (0-based)" : "";
    $("jump").value = String(st.sol);
    $("order").textContent = S.given ? "disassembly moves reversed" : (D.chain ? "cube by cube" : "each piece slides in along an axis");
    redraw();
  }

  const legend = $("legend");
  D.pieces.forEach((p) => {
    const li = document.createElement("li"), sw = document.createElement("span");
    sw.className = "sw"; sw.style.background = p.color;
    li.appendChild(sw); li.appendChild(document.createTextNode(p.label));
    li.title = "click to show or hide";
    li.addEventListener("click", () => {
      if (st.hidden.has(p.label)) st.hidden.delete(p.label); else st.hidden.add(p.label);
      li.classList.toggle("off", st.hidden.has(p.label)); redraw();
    });
    legend.appendChild(li);
  });
  if (D.solutions.length < 2) $("nav").hidden = true;
  $("prev").addEventListener("click", () => showSolution(st.sol - 1));
  $("next").addEventListener("click", () => showSolution(st.sol + 1));
  $("jump").addEventListener("change", (e) => showSolution(parseInt(e.target.value, 10) || 0));
  $("explode").addEventListener("input", (e) => { st.explode = e.target.value / 100; redraw(); });
  $("assembly").addEventListener("input", (e) => { st.asm = e.target.value / 100; stop(); redraw(); });
  const play = $("play");
  function stop() { st.playing = false; play.textContent = "play"; }
  play.addEventListener("click", () => {
    if (st.playing) { stop(); return; }
    st.playing = true; play.textContent = "pause";
    if (st.asm >= S.steps.length) st.asm = 0;
    let last = performance.now();
    const tick = (now) => {
      if (!st.playing) return;
      st.asm = Math.min(S.steps.length, st.asm + (now - last) / 700); last = now;
      $("assembly").value = String(Math.round(st.asm * 100)); draw();
      if (st.asm >= S.steps.length) stop(); else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  let drag = null;
  canvas.addEventListener("pointerdown", (e) => {
    drag = [e.clientX, e.clientY];
    try { canvas.setPointerCapture(e.pointerId); } catch (err) { /* a synthetic pointer cannot be captured */ }
  });
  canvas.addEventListener("pointermove", (e) => {
    if (!drag) return;
    st.yaw -= (e.clientX - drag[0]) * 0.01;
    st.pitch = Math.max(-1.5, Math.min(1.5, st.pitch + (e.clientY - drag[1]) * 0.01));
    drag = [e.clientX, e.clientY]; redraw();
  });
  canvas.addEventListener("pointerup", () => { drag = null; });
  canvas.addEventListener("wheel", (e) => { e.preventDefault(); st.zoom = Math.max(0.3, Math.min(6, st.zoom * Math.exp(-e.deltaY * 0.001))); redraw(); }, { passive: false });
  window.addEventListener("resize", redraw);

  // The address can set the state, through the same controls a person uses (so the address also
  // exercises them): #solution=3&yaw=0.5&pitch=0.4&zoom=1.5&explode=0.5&assembly=2&hide=A,B&drag=40,-10
  const h = new URLSearchParams(location.hash.slice(1));
  if (D.chain) { st.yaw = -0.423; st.pitch = 0.5; }  // seen along a cube diagonal, a chain's cubes hide each other
  showSolution(parseInt(h.get("solution") || "0", 10));
  if (h.has("yaw")) st.yaw = parseFloat(h.get("yaw"));
  if (h.has("pitch")) st.pitch = parseFloat(h.get("pitch"));
  if (h.has("zoom")) st.zoom = parseFloat(h.get("zoom"));
  const slide = (id, value) => { const el = $(id); el.value = String(value); el.dispatchEvent(new Event("input")); };
  if (h.has("explode")) slide("explode", parseFloat(h.get("explode")) * 100);
  if (h.has("assembly")) slide("assembly", parseFloat(h.get("assembly")) * 100);
  for (const lab of (h.get("hide") || "").split(",").filter(Boolean)) {
    const li = legend.children[D.pieces.findIndex((p) => p.label === lab)];
    if (li) li.click();
  }
  if (h.has("drag")) {  // a drag across the picture, as a mouse would make it
    const [dx, dy] = h.get("drag").split(",").map(Number), r = canvas.getBoundingClientRect();
    const at = (x, y, type) => canvas.dispatchEvent(new PointerEvent(type, { clientX: x, clientY: y, pointerId: 1, bubbles: true }));
    const x0 = r.left + r.width / 2, y0 = r.top + r.height / 2;
    at(x0, y0, "pointerdown"); at(x0 + dx, y0 + dy, "pointermove"); at(x0 + dx, y0 + dy, "pointerup");
  }
  draw();
  status.dataset.ms = String(Math.round(performance.now()));  // from navigation to the first picture
})();
