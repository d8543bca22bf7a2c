// cpsolve view: a small canvas-2D renderer for unit cubes (painter's order), written for this page.
// The data (pieces, colours, solutions, assembly steps) is the JSON element with id "data", made by
// cpsolve/output/page.py from the same scene code as the PNG/SVG pictures (cpsolve/output/scene.py).
"use strict";
window.addEventListener("error", (e) => {  // a failure shows on the page, where a person (or a test) sees it
  const out = document.getElementById("status");
  if (out) { out.hidden = false; out.textContent = "error: " + e.message; out.dataset.error = e.message; }
});
(function () {
  // -- geometry shared with the workbench's shape editor (cpsolve app): cubes, faces, shading, camera --
  const STEPS = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];  // scene.FACE_STEPS
  const SHADE = [0.80, 0.80, 0.66, 0.66, 1.0, 0.55];  // scene.SHADE
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

  function tint(hex, t) {  // scene.mix with white
    const v = parseInt(hex.slice(1), 16);
    const c = [(v >> 16) & 255, (v >> 8) & 255, v & 255].map((x) => Math.round(x + (255 - x) * t));
    return "rgb(" + c.join(",") + ")";
  }

  // scene.face_corners / scene.EDGE_DIRS: corners counter-clockwise from outside, edge i from corner i to i+1.
  const PLANE = STEPS.map((s) => {
    const a = s.findIndex((v) => v !== 0), u = [0, 0, 0], w = [0, 0, 0];
    u[(a + 1) % 3] = 1; w[(a + 2) % 3] = 1;
    return s[a] > 0 ? [u, w] : [w, u];
  });
  const EDGE = PLANE.map(([u, w]) => [[-w[0], -w[1], -w[2]], u, w, [-u[0], -u[1], -u[2]]]);
  // The corners of the face n of a cube of half-side `half` about c (a square of half-side `size` in it).
  function corners(c, n, half, size = half) {
    const s = STEPS[n], [u, w] = PLANE[n], m = [c[0] + s[0] * half, c[1] + s[1] * half, c[2] + s[2] * half];
    return [[-1, -1], [1, -1], [1, 1], [-1, 1]].map(([a, b]) =>
      [m[0] + (a * u[0] + b * w[0]) * size, m[1] + (a * u[1] + b * w[1]) * size, m[2] + (a * u[2] + b * w[2]) * size]);
  }
  // The camera looking at the origin from yaw (about z) and pitch (above the xy plane): its axes.
  function cameraAt(yaw, pitch) {
    const cp = Math.cos(pitch);
    const toward = [Math.cos(yaw) * cp, Math.sin(yaw) * cp, Math.sin(pitch)];
    const fwd = [-toward[0], -toward[1], -toward[2]];
    let side = cross(fwd, [0, 0, 1]);
    side = Math.hypot(...side) > 1e-9 ? unit(side) : [1, 0, 0];
    return { toward: toward, right: side, up: cross(side, fwd) };
  }

// One viewer on the page's elements (ids view, step, explode, assembly, play, nav, prev, next, jump,
// legend, status, which) showing the data D (cpsolve/output/page.py's page_data). `options.address`
// false: the address is neither read nor written (the workbench shows one solution after another in
// the same elements: `destroy()` removes this viewer's listeners before the next one is made).
function cpsolveViewer(D, options) {
  const opt = options || {}, ac = new AbortController(), on = { signal: ac.signal };
  const W = D.width || 1;  // characters per piece in a solution string
  // scene.DIRECTIONS; on the prism grid its moves in space (page.py "dirs": steps.PRISM_LEAVE, PRISM_WAYS)
  const DIRS = D.dirs ? D.dirs.map((d) => d.v) : [[0, 0, 1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, -1]];
  const OPPOSITE = DIRS.map((v) => DIRS.findIndex((w) => w.every((x, a) => Math.abs(x + v[a]) < 1e-6)));
  const SIDE = D.dirs ? D.dirs.map((d) => d.side) : ["above", "the right", "the left", "the back", "the front", "below"];  // where DIRS[i] leads
  const WAY = D.dirs ? D.dirs.map((d) => d.way) : ["up", "to the right", "to the left", "to the back", "to the front", "down"];  // DIRS[i] as a way
  const UNIT = D.dirs ? D.dirs.map((d) => d.unit) : DIRS.map(() => "cell");  // what one step along DIRS[i] is
  const GAP = 1;  // cells between the boxes of exploded pieces
  const $ = (id) => document.getElementById(id);
  const canvas = $("view"), ctx = canvas.getContext("2d");
  const status = $("status");
  const VIEW = D.chain ? { yaw: -0.423, pitch: 0.5 } : { yaw: -0.785, pitch: 0.6155 };  // a chain seen along a cube diagonal hides itself
  const st = { sol: 0, yaw: VIEW.yaw, pitch: VIEW.pitch, zoom: 1, explode: 0, asm: 0, hidden: new Set(), playing: false };
  let S = null;  // the current solution, decoded
  const base = (label) => label.split("#")[0];

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
  const centroid = (cells) => [0, 1, 2].map((a) => cells.reduce((s, c) => s + c[a] + 0.5, 0) / cells.length);

  // A piece's pose: a point p of it as assembled is drawn at M p + o. Slides change o; a quarter turn
  // (a step's "turn": axis 0-2, sense, pivot c; page.py / steps.Step) turns the pose about the line
  // through c, by the angle (not the cells) interpolated, so a turn is animated as the pieces turn.
  const PLANES = [[1, 2], [2, 0], [0, 1]];  // turns.PLANES: a positive turn maps (u, v) to (-v, u)
  const STILL = { M: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], o: [0, 0, 0] };
  const mul = (M, v) => [dot(M[0], v), dot(M[1], v), dot(M[2], v)];
  const posed = (pose, p) => add(mul(pose.M, p), pose.o);
  function moved(pose, step, frac) {
    if (!step.turn) return { M: pose.M, o: add(pose.o, step.move.map((v) => v * frac)) };
    const t = step.turn, [u, v] = PLANES[t.axis], a = t.sense * frac * Math.PI / 2, c = Math.cos(a), s = Math.sin(a);
    const Q = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
    Q[u][u] = c; Q[u][v] = -s; Q[v][u] = s; Q[v][v] = c;
    const M = Q.map((row) => [0, 1, 2].map((j) => row[0] * pose.M[0][j] + row[1] * pose.M[1][j] + row[2] * pose.M[2][j]));
    const o = add(mul(Q, pose.o.map((x, i) => x - t.pivot[i])), t.pivot);
    // a whole quarter turn maps the lattice onto itself: whole numbers, so that steps add up exactly
    return frac === 1 ? { M: M.map((row) => row.map(Math.round)), o: o.map(Math.round) } : { M: M, o: o };
  }
  // The light on a face whose outward normal is n (a unit vector): scene.SHADE mixed by its squared parts.
  const lit = (n) => [0, 1, 2].reduce((t, a) => t + n[a] * n[a] * SHADE[2 * a + (n[a] < 0 ? 1 : 0)], 0);

  // -- one solution: its pieces, cells, colours, steps -----------------------------------------
  const pieceIndex = (sym) => W === 1 ? D.alphabet.indexOf(sym)
    : D.alphabet.indexOf(sym[0]) * D.alphabet.length + D.alphabet.indexOf(sym[1]);
  function colorOf(i, j) {
    if (!D.colors) return D.pieces[j].color;
    return D.palette[D.alphabet.indexOf(D.colors[i][j])] || D.pieces[j].color;
  }

  function decode(i) {
    const text = D.solutions[i], all = D.pieces.map((p, j) => ({ label: p.label, color: colorOf(i, j), cells: [] }));
    for (let k = 0; k < D.cells.length; k++) {
      const sym = text.substr(k * W, W);
      if (sym[0] !== " ") all[pieceIndex(sym)].cells.push(D.cells[k]);
    }
    const marks = D.marks ? D.marks.solutions[i] : "", mark = {};  // constraint colours, by cell
    for (let k = 0; k < marks.length; k++) if (marks[k] !== " ") mark[key(D.cells[k])] = D.marks.colors[D.alphabet.indexOf(marks[k])];
    const parts = all.filter((p) => p.cells.length), every = parts.flatMap((p) => p.cells);
    let mid = centroid(every);
    let reach = 0;
    for (let a = 0; a < 3; a++) reach = Math.max(reach, Math.max(...every.map((c) => c[a])) - Math.min(...every.map((c) => c[a])) + 1);
    if (D.grid) {  // another grid: the cells' solids (or balls) in space, from page.py / solids.py
      const index = {};
      D.cells.forEach((c, k) => { index[key(c)] = k; });
      const all3 = [];
      for (const p of parts) {
        const own = new Set(p.cells.map((c) => index[key(c)]));
        p.polys = []; p.balls = []; p.faces = [];
        for (const k of own) {
          if (D.balls) p.balls.push(D.balls[k]);
          else for (const f of D.solids[k]) if (!own.has(f[1])) p.polys.push({ pts: f[0], n: f[2] });
        }
        const pts = D.balls ? p.balls.flatMap((b) => [b.map((v) => v - 0.5), b.map((v) => v + 0.5)]) : p.polys.flatMap((f) => f.pts);
        p.lo = [0, 1, 2].map((a) => Math.min(...pts.map((q) => q[a])));
        p.hi = [0, 1, 2].map((a) => Math.max(...pts.map((q) => q[a])));
        p.centre = [0, 1, 2].map((a) => pts.reduce((t, q) => t + q[a], 0) / pts.length);
        all3.push(...pts);
      }
      mid = [0, 1, 2].map((a) => all3.reduce((t, q) => t + q[a], 0) / all3.length);
      reach = Math.max(...[0, 1, 2].map((a) => Math.max(...all3.map((q) => q[a])) - Math.min(...all3.map((q) => q[a]))));
      for (const p of parts) p.away = p.centre.map((v, a) => v - mid[a]);
    } else {
      for (const p of parts) {
        p.away = centroid(p.cells).map((v, a) => v - mid[a]);
        p.faces = D.chain ? [] : outerFaces(p.cells).map((f) => Object.assign(f, { mark: mark[key(f.cell)] }));
        p.lo = [0, 1, 2].map((a) => Math.min(...p.cells.map((c) => c[a])));
        p.hi = [0, 1, 2].map((a) => Math.max(...p.cells.map((c) => c[a])) + 1);
      }
    }
    const given = !!(D.steps && D.steps[String(i)]);
    let unknown = false;
    let steps = given ? D.steps[String(i)] : [];
    if (!given) {  // triples: piece, direction, how far (page.py _step_code)
      const code = (D.assembly && D.assembly[i]) || "";
      for (let k = 0; k + W + 1 < code.length; k += W + 2) {
        const far = D.alphabet.indexOf(code[k + W + 1]);
        steps.push({ pieces: [D.pieces[pieceIndex(code.substr(k, W))].label], move: DIRS[+code[k + W]].map((v) => v * far), out: true });
      }
      // interlocked and no disassembly given: the pieces drop in from above, top ones last
      unknown = !steps.length && parts.length > 1 && !D.chain;
      if (unknown) {
        const top = Math.max(...parts.map((p) => p.hi[2]));  // another grid: just clear of the assembly's top
        const rise = (p) => D.grid ? top - p.lo[2] + 0.3 : reach + 1;
        steps = parts.slice().sort((a, b) => b.hi[2] - a.hi[2]).map((p) => ({ pieces: [p.label], move: [0, 0, rise(p)], out: true }));
      }
    }
    const byLabel = {};
    parts.forEach((p, j) => { byLabel[p.label] = j; });
    // each piece's pose after the first j disassembly moves, and when it first leaves for good
    const cum = [parts.map(() => STILL)], outAt = parts.map(() => Infinity);
    steps.forEach((s, j) => {
      const next = cum[j].slice();
      const out = s.out !== undefined ? s.out : Math.max(...s.move.map(Math.abs)) >= reach;
      for (const lab of s.pieces) {
        const k = byLabel[lab];
        if (k === undefined) continue;
        next[k] = moved(next[k], s, 1);
        if (out) outAt[k] = Math.min(outAt[k], j);
      }
      cum.push(next);
    });
    // in words, a piece is its name, or its label (T#2) where the solution has several copies
    const copies = {};
    parts.forEach((p) => { copies[base(p.label)] = (copies[base(p.label)] || 0) + 1; });
    const name = (label) => copies[base(label)] > 1 ? label : base(label);
    const S1 = { parts: parts, mid: mid, steps: steps, cum: cum, outAt: outAt, byLabel: byLabel, given: given,
      unknown: unknown, name: name };
    S1.apart = explodeOffsets(parts, reach);
    return S1;
  }

  // Explode: each piece along its own direction from the centre, just far enough that its box keeps
  // GAP to the boxes of the pieces nearer the centre (placed first); a piece at the centre tries the axes.
  function explodeOffsets(parts, reach) {
    const order = parts.map((_, k) => k).sort((a, b) => Math.hypot(...parts[a].away) - Math.hypot(...parts[b].away) || a - b);
    const boxes = [], out = parts.map(() => [0, 0, 0]);
    const meet = (lo, hi, b) => [0, 1, 2].every((a) => lo[a] < b.hi[a] + GAP && b.lo[a] < hi[a] + GAP);
    for (const k of order) {
      const p = parts[k], n = Math.hypot(...p.away);
      let best = null;
      for (const w of n > 0.3 ? [p.away.map((v) => v / n)] : DIRS) {
        for (let t = 0; t <= 4 * reach && (!best || t < best.t); t += 0.25) {
          const o = w.map((v) => v * t);
          if (!boxes.some((b) => meet(add(p.lo, o), add(p.hi, o), b))) { best = { t: t, o: o }; break; }
        }
      }
      out[k] = best ? best.o : [0, 0, 0];
      boxes.push({ lo: add(p.lo, out[k]), hi: add(p.hi, out[k]) });
    }
    return out;
  }

  // Where each part is at assembly time a (0 = nothing placed, N = assembled): the disassembly steps
  // played backwards; a part that has left the assembly, and whose sub-assembly is not being built
  // yet, is not drawn.
  function placement(a) {
    const N = S.steps.length, u = Math.max(0, Math.min(N, N - a)), whole = Math.min(Math.floor(u), N), frac = u - whole;
    const off = S.cum[whole].slice();  // poses
    if (whole < N && frac > 0) {
      for (const lab of S.steps[whole].pieces) {
        const k = S.byLabel[lab];
        if (k !== undefined) off[k] = moved(off[k], S.steps[whole], frac);
      }
    }
    const later = new Set();
    for (let j = whole; j < N; j++) for (const lab of (S.steps[j].part || S.steps[j].pieces)) later.add(lab);
    return { off: off, gone: S.parts.map((p, k) => !later.has(p.label) && S.outAt[k] < whole) };
  }

  // A piece's point c moved by o, as drawn (a chain's cubes sit a little apart, so its string shows).
  const at = (c, o) => D.chain ? [0, 1, 2].map((a) => S.mid[a] + (c[a] + o[a] - S.mid[a]) * 1.3) : add(c, o);
  // The box of piece p in `pose`, pulled apart by `ex` (explode), as drawn: [lo, hi].
  function boxOf(p, pose, ex) {
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    for (let m = 0; m < 8; m++) {
      const q = at(posed(pose, [m & 1 ? p.hi[0] : p.lo[0], m & 2 ? p.hi[1] : p.lo[1], m & 4 ? p.hi[2] : p.lo[2]]), ex);
      for (let i = 0; i < 3; i++) { lo[i] = Math.min(lo[i], q[i]); hi[i] = Math.max(hi[i], q[i]); }
    }
    return [lo, hi];
  }

  // The view is centred on the assembled puzzle (exploded as now) and takes in the whole
  // animation: a sphere about that centre holding every piece at every step (a sphere, so that
  // turning the puzzle does not change its size).
  function extent() {
    const box = (offs) => {
      const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity], corners = [];
      S.parts.forEach((p, k) => {
        const [a, b] = boxOf(p, offs[k], S.apart[k].map((v) => v * st.explode));
        for (let m = 0; m < 8; m++) corners.push([m & 1 ? b[0] : a[0], m & 2 ? b[1] : a[1], m & 4 ? b[2] : a[2]]);
        for (let i = 0; i < 3; i++) { lo[i] = Math.min(lo[i], a[i]); hi[i] = Math.max(hi[i], b[i]); }
      });
      return { centre: [0, 1, 2].map((i) => (lo[i] + hi[i]) / 2), corners: corners };
    };
    const centre = box(S.cum[0]).centre;
    let radius = 1;
    for (const offs of S.cum) for (const c of box(offs).corners) radius = Math.max(radius, Math.hypot(c[0] - centre[0], c[1] - centre[1], c[2] - centre[2]));
    return { centre: centre, radius: radius };
  }

  const camera = () => cameraAt(st.yaw, st.pitch);

  function draw() {
    const dpr = window.devicePixelRatio || 1, w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const cam = camera(), place = placement(st.asm), fit = extent();
    const scale = st.zoom * Math.min(w, h) / (2 * fit.radius * 1.04), cx = w / 2, cy = h / 2;
    const P = (p) => { const q = [p[0] - fit.centre[0], p[1] - fit.centre[1], p[2] - fit.centre[2]]; return [cx + dot(q, cam.right) * scale, cy - dot(q, cam.up) * scale]; };
    const items = [], boxes = [];
    let pieces = 0, faces = 0;
    S.parts.forEach((p, k) => {
      if (st.hidden.has(p.label) || place.gone[k]) return;
      pieces++;
      const pose = place.off[k], ex = S.apart[k].map((v) => v * st.explode), o = add(pose.o, ex);  // o: no turns off cubes
      const T = (q) => add(posed(pose, q), ex);
      boxes.push([p.label, ...boxOf(p, pose, ex).flat()].map((v) => typeof v === "number" ? Math.round(v * 1000) / 1000 : v));
      if (D.grid) {  // balls, or the outer faces of the solids that face the eye
        for (const b of p.balls) { const c = add(b, o); items.push({ depth: dot(c, cam.toward), kind: "ball", c: c, color: p.color }); faces++; }
        for (const f of p.polys) {
          if (dot(f.n, cam.toward) <= 1e-9) continue;
          const pts = f.pts.map((q) => add(q, o)), m = [0, 1, 2].map((a) => pts.reduce((t, q) => t + q[a], 0) / pts.length);
          items.push({ depth: dot(m, cam.toward), kind: "poly", pts: pts, n: f.n, color: p.color });
          faces++;
        }
        return;
      }
      if (D.chain) {
        const c = at([p.cells[0][0] + 0.5, p.cells[0][1] + 0.5, p.cells[0][2] + 0.5], o);
        items.push({ depth: dot(c, cam.toward), kind: "cube", c: c, color: p.color, label: p.label });
        return;
      }
      const byCell = {};
      for (const f of p.faces) {
        const n = mul(pose.M, STEPS[f.n]);
        if (dot(n, cam.toward) <= 1e-9) continue;
        const c0 = [f.cell[0] + 0.5, f.cell[1] + 0.5, f.cell[2] + 0.5], c = T(c0), kk = key(c);
        if (!byCell[kk]) { byCell[kk] = { depth: dot(c, cam.toward), kind: "faces", faces: [], color: p.color }; items.push(byCell[kk]); }
        byCell[kk].faces.push({ c: c0, n: f.n, lit: lit(n), T: T, strong: f.strong, mark: f.mark });
        faces++;
      }
    });
    if (D.chain) {  // the string between consecutive cubes, in depth order with them
      const cubes = items.slice().sort((a, b) => +a.label - +b.label);
      for (let k = 0; k + 1 < cubes.length; k++) {
        const a = cubes[k].c, b = cubes[k + 1].c;
        if (+cubes[k + 1].label !== +cubes[k].label + 1) continue;
        const t = 0.36 / Math.max(0.72, Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]));  // only the gap shows
        const along = (f) => [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
        items.push({ depth: (dot(a, cam.toward) + dot(b, cam.toward)) / 2 - 1e-6, kind: "string", a: along(t), b: along(1 - t) });
      }
    }
    items.sort((a, b) => a.depth - b.depth);
    ctx.lineJoin = "round"; ctx.lineCap = "round";
    const edgeW = Math.max(1, scale / 24), seamW = Math.max(0.5, scale / 70);
    for (const it of items) {
      if (it.kind === "faces") {
        for (const f of it.faces) {
          const q = corners(f.c, f.n, 0.5).map((pt) => P(f.T(pt))), lit = f.lit;
          ctx.beginPath(); q.forEach((pt, i) => (i ? ctx.lineTo(pt[0], pt[1]) : ctx.moveTo(pt[0], pt[1]))); ctx.closePath();
          ctx.fillStyle = shade(it.color, lit); ctx.fill();
          ctx.strokeStyle = shade(it.color, lit); ctx.lineWidth = 0.6; ctx.stroke();
          for (let i = 0; i < 4; i++) {
            const a = q[i], b = q[(i + 1) % 4];
            ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
            ctx.strokeStyle = f.strong[i] ? shade(it.color, 0.3) : shade(it.color, lit * 0.82);
            ctx.lineWidth = f.strong[i] ? edgeW : seamW; ctx.stroke();
          }
          if (f.mark) {  // a constraint colour: a square in the middle of the face (pictures.MARK_SIZE)
            const m = corners(f.c, f.n, 0.5, 0.25).map((pt) => P(f.T(pt)));
            ctx.beginPath(); m.forEach((pt, i) => (i ? ctx.lineTo(pt[0], pt[1]) : ctx.moveTo(pt[0], pt[1]))); ctx.closePath();
            ctx.fillStyle = shade(f.mark, lit); ctx.fill();
            ctx.strokeStyle = shade(f.mark, lit * 0.6); ctx.lineWidth = seamW; ctx.stroke();
          }
        }
      } else if (it.kind === "poly") {  // solids.lit: 0.55 facing away from the light, 1.0 facing it
        const L = D.light, lit = 0.55 + 0.45 * Math.max(0, dot(it.n, L) / Math.hypot(L[0], L[1], L[2])), q = it.pts.map(P);
        ctx.beginPath(); q.forEach((pt, i) => (i ? ctx.lineTo(pt[0], pt[1]) : ctx.moveTo(pt[0], pt[1]))); ctx.closePath();
        ctx.fillStyle = shade(it.color, lit); ctx.fill();
        ctx.strokeStyle = shade(it.color, lit * 0.6); ctx.lineWidth = seamW; ctx.stroke();
      } else if (it.kind === "ball") {  // pictures.py's ball: lit from the upper left, darker at the rim
        const c = P(it.c), r = 0.5 * scale;
        const g = ctx.createRadialGradient(c[0] - 0.3 * r, c[1] - 0.32 * r, 0.05 * r, c[0], c[1], r);
        g.addColorStop(0, tint(it.color, 0.55)); g.addColorStop(0.55, shade(it.color, 1)); g.addColorStop(1, shade(it.color, 0.45));
        ctx.beginPath(); ctx.arc(c[0], c[1], r, 0, 2 * Math.PI);
        ctx.fillStyle = g; ctx.fill(); ctx.strokeStyle = shade(it.color, 0.35); ctx.lineWidth = seamW; ctx.stroke();
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
    $("step").textContent = stepWords();
    // what was drawn, for whoever reads the page's DOM (the tests do): not shown
    Object.assign(status.dataset, { pieces: pieces, faces: faces, boxes: JSON.stringify(boxes) });
    remember();
  }

  // -- the current step in words ---------------------------------------------------------------
  function names(list) {
    if (list.length > 4) return list.slice(0, 3).join(", ") + " and " + (list.length - 3) + " more";
    return list.length > 1 ? list.slice(0, -1).join(", ") + " and " + list[list.length - 1] : list[0];
  }
  const AXIS = [["the right", "a left-right"], ["the back", "a front-back"], ["above", "an upright"]];
  function words(step) {
    if (step.turn) {  // played backwards, as the assembly is: the other way round
      const who = names(step.pieces.map(S.name)), one = step.pieces.length === 1, [from, line] = AXIS[step.turn.axis];
      return who + (one ? " turns" : " turn") + " a quarter turn " + (step.turn.sense < 0 ? "anticlockwise" : "clockwise") +
        " (seen from " + from + ") about " + line + " line";
    }
    const m = step.move, far = Math.round(Math.hypot(...m) * 1000) / 1000;  // every DIRS[i] is one unit long
    const d = DIRS.findIndex((v) => v.every((x, a) => Math.abs(x * far - m[a]) < 1e-3));
    const who = D.chain ? "cube " + step.pieces[0] : names(step.pieces.map(S.name)), one = step.pieces.length === 1;
    const out = step.out !== undefined ? step.out : far >= 1e9;
    if (d < 0) return who + (one ? " moves" : " move");
    if (out) return who + (one ? " comes" : " come") + " in from " + SIDE[d];
    return who + (one ? " moves " : " move ") + far + " " + UNIT[d] + (far === 1 ? " " : "s ") + WAY[OPPOSITE[d]];
  }
  function stepWords() {
    const N = S.steps.length;
    if (!N) return "";
    const k = Math.max(1, Math.min(N, Math.ceil(st.asm - 1e-9)));  // the step being made, or just made
    if (S.unknown) {
      return "Step " + k + " of " + N + ": " + S.name(S.steps[N - k].pieces[0]) + " (no way to slide this assembly " +
        "apart is known: its pieces are shown one at a time)";
    }
    return "Step " + k + " of " + N + ": " + words(S.steps[N - k]) + (st.asm >= N ? " (assembled)" : "");
  }

  // -- the address follows the view, so that a link shows the same --------------------------------
  let addressTimer = 0;
  const round = (v, n) => String(Math.round(v * n) / n);
  function remember() { if (!addressTimer && opt.address !== false) addressTimer = setTimeout(writeAddress, 200); }
  function writeAddress() {
    addressTimer = 0;
    const h = [];
    if (D.solutions.length > 1) h.push("solution=" + st.sol);
    if (st.asm < S.steps.length) h.push("assembly=" + round(st.asm, 100));
    if (st.explode > 0) h.push("explode=" + round(st.explode, 100));
    if (st.hidden.size) h.push("hide=" + [...st.hidden].map(encodeURIComponent).join(","));
    if (Math.abs(st.yaw - VIEW.yaw) > 1e-3 || Math.abs(st.pitch - VIEW.pitch) > 1e-3) h.push("yaw=" + round(st.yaw, 1000), "pitch=" + round(st.pitch, 1000));
    if (Math.abs(st.zoom - 1) > 1e-3) h.push("zoom=" + round(st.zoom, 1000));
    const hash = h.length ? "#" + h.join("&") : "";
    if (hash !== location.hash) {
      try { history.replaceState(null, "", location.pathname + location.search + hash); } catch (err) { /* a sandboxed frame: no address to keep */ }
    }
    status.dataset.address = location.hash;
  }

  // -- controls ------------------------------------------------------------------------------
  let frame = 0;
  const redraw = () => { if (!frame) frame = requestAnimationFrame(() => { frame = 0; if (!ac.signal.aborted) draw(); }); };
  const legend = $("legend");

  function buildLegend() {
    legend.textContent = "";
    if (D.chain) {  // one entry for the chain, not one per cube
      const li = document.createElement("li"), sw = document.createElement("span"), n = S.parts.length;
      sw.className = "sw"; sw.style.background = "linear-gradient(90deg, " + D.pieces[0].color + " 50%, " + (D.pieces[1] || D.pieces[0]).color + " 50%)";
      li.append(sw, n + " cubes on a string, numbered 0\u2013" + (n - 1));
      legend.appendChild(li);
      return;
    }
    const groups = new Map();
    for (const p of S.parts) { if (!groups.has(base(p.label))) groups.set(base(p.label), []); groups.get(base(p.label)).push(p); }
    for (const [name, copies] of groups) {
      const li = document.createElement("li"), chips = document.createElement("span");
      li.dataset.name = name; chips.className = "chips";
      li.title = copies.length > 1 ? "click the name to hide or show every copy, a square for one" : "click to show or hide";
      for (const p of copies) {
        const sw = document.createElement("span");
        sw.className = "sw"; sw.style.background = p.color; sw.dataset.label = p.label; sw.title = p.label;
        if (copies.length > 1) sw.addEventListener("click", (e) => { e.stopPropagation(); toggle([p.label]); });
        chips.appendChild(sw);
      }
      li.append(chips, copies.length > 1 ? name + " \u00d7" + copies.length : name);
      li.addEventListener("click", () => toggle(copies.map((p) => p.label)));
      legend.appendChild(li);
    }
    if (D.marks) {  // the constraint colours on the cells
      D.marks.names.forEach((name, j) => {
        const li = document.createElement("li"), sw = document.createElement("span");
        sw.className = "sw"; sw.style.background = D.marks.colors[j];
        li.className = "mark"; li.append(sw, "colour: " + name);
        legend.appendChild(li);
      });
    }
    markLegend();
  }
  function toggle(labels) {
    const hide = labels.some((lab) => !st.hidden.has(lab));
    for (const lab of labels) { if (hide) st.hidden.add(lab); else st.hidden.delete(lab); }
    markLegend(); redraw();
  }
  function markLegend() {
    for (const li of legend.children) {
      const chips = [...li.querySelectorAll("[data-label]")];
      chips.forEach((c) => c.classList.toggle("off", st.hidden.has(c.dataset.label)));
      li.classList.toggle("off", chips.length > 0 && chips.every((c) => st.hidden.has(c.dataset.label)));
    }
  }

  function showSolution(i) {
    st.sol = Math.max(0, Math.min(D.solutions.length - 1, i));
    S = decode(st.sol);
    const asm = $("assembly");
    asm.max = String(S.steps.length * 100);
    st.asm = S.steps.length; asm.value = asm.max;
    $("which").textContent = D.solutions.length > 1 ? "solution " + st.sol + " of " + D.solutions.length + " (0-based)" : "";
    $("jump").value = String(st.sol);
    buildLegend();
    redraw();
  }

  if (D.solutions.length < 2) $("nav").hidden = true;
  $("prev").addEventListener("click", () => showSolution(st.sol - 1), on);
  $("next").addEventListener("click", () => showSolution(st.sol + 1), on);
  $("jump").addEventListener("change", (e) => showSolution(parseInt(e.target.value, 10) || 0), on);
  $("explode").addEventListener("input", (e) => { st.explode = e.target.value / 100; redraw(); }, on);
  $("assembly").addEventListener("input", (e) => { st.asm = e.target.value / 100; stop(); redraw(); }, on);
  const play = $("play");
  function stop() { st.playing = false; play.textContent = "play"; }
  play.addEventListener("click", () => {
    if (st.playing) { stop(); return; }
    st.playing = true; play.textContent = "pause";
    if (st.asm >= S.steps.length) st.asm = 0;
    let last = performance.now();
    const tick = (now) => {
      if (!st.playing || ac.signal.aborted) return;
      st.asm = Math.min(S.steps.length, st.asm + (now - last) / 700); last = now;
      $("assembly").value = String(Math.round(st.asm * 100)); draw();
      if (st.asm >= S.steps.length) stop(); else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, on);
  let drag = null;
  canvas.addEventListener("pointerdown", (e) => {
    drag = [e.clientX, e.clientY];
    try { canvas.setPointerCapture(e.pointerId); } catch (err) { /* a synthetic pointer cannot be captured */ }
  }, on);
  canvas.addEventListener("pointermove", (e) => {
    if (!drag) return;
    st.yaw -= (e.clientX - drag[0]) * 0.01;
    st.pitch = Math.max(-1.5, Math.min(1.5, st.pitch + (e.clientY - drag[1]) * 0.01));
    drag = [e.clientX, e.clientY]; redraw();
  }, on);
  canvas.addEventListener("pointerup", () => { drag = null; }, on);
  canvas.addEventListener("wheel", (e) => { e.preventDefault(); st.zoom = Math.max(0.3, Math.min(6, st.zoom * Math.exp(-e.deltaY * 0.001))); redraw(); }, { passive: false, signal: ac.signal });
  window.addEventListener("resize", redraw, on);

  // The address sets the state, through the same controls a person uses (so the address also
  // exercises them): #solution=3&yaw=0.5&pitch=0.4&zoom=1.5&explode=0.5&assembly=2&hide=A,B&drag=40,-10;
  // the page writes it back as the view changes (without drag, which becomes yaw and pitch).
  const h = new URLSearchParams(opt.address === false ? "" : location.hash.slice(1));
  showSolution(parseInt(h.get("solution") || "0", 10));
  if (h.has("yaw")) st.yaw = parseFloat(h.get("yaw"));
  if (h.has("pitch")) st.pitch = parseFloat(h.get("pitch"));
  if (h.has("zoom")) st.zoom = parseFloat(h.get("zoom"));
  const slide = (id, value) => { const el = $(id); el.value = String(value); el.dispatchEvent(new Event("input")); };
  if (h.has("explode")) slide("explode", parseFloat(h.get("explode")) * 100);
  if (h.has("assembly")) slide("assembly", parseFloat(h.get("assembly")) * 100);
  // hide: labels split on the commas of the address itself (a label's own commas are written %2C)
  const hide = ((opt.address === false ? "" : location.hash.slice(1)).split("&").find((kv) => kv.startsWith("hide=")) || "hide=").slice(5);
  for (const lab of hide.split(",").filter(Boolean).map((v) => decodeURIComponent(v.replace(/\+/g, " ")))) {
    const el = [...legend.querySelectorAll("[data-label]")].find((c) => c.dataset.label === lab);
    if (el && !st.hidden.has(lab)) (el.closest("li").querySelectorAll("[data-label]").length > 1 ? el : el.closest("li")).click();
  }
  if (h.has("drag")) {  // a drag across the picture, as a mouse would make it
    const [dx, dy] = h.get("drag").split(",").map(Number), r = canvas.getBoundingClientRect();
    const fire = (x, y, type) => canvas.dispatchEvent(new PointerEvent(type, { clientX: x, clientY: y, pointerId: 1, bubbles: true }));
    const x0 = r.left + r.width / 2, y0 = r.top + r.height / 2;
    fire(x0, y0, "pointerdown"); fire(x0 + dx, y0 + dy, "pointermove"); fire(x0 + dx, y0 + dy, "pointerup");
  }
  draw();
  status.dataset.ms = String(Math.round(performance.now()));  // from navigation to the first picture
  return { state: st, redraw: redraw, show: showSolution, destroy: () => { st.playing = false; ac.abort(); } };
}

  cpsolveViewer.geometry = { STEPS: STEPS, SHADE: SHADE, key: key, add: add, dot: dot, shade: shade, corners: corners,
    cameraAt: cameraAt };
  window.cpsolveViewer = cpsolveViewer;
  const given = document.getElementById("data");  // the page of `cpsolve view`: its data is in the page
  if (given) cpsolveViewer(JSON.parse(given.textContent));
})();
