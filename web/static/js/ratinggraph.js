// A rating's history as a graph: the scaling of its points into an SVG's
// coordinates (pure, unit-tested in web/jstest) and its drawing.

const SVG = "http://www.w3.org/2000/svg";

/** A round step for about n ticks over span: 1, 2 or 5 times a power of ten. */
export function niceStep(span, n = 4) {
  if (!(span > 0)) return 1;
  const raw = span / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/**
 * Scales points [{at, rating}] (at: an ISO time) into a box of width ×
 * height with pad around: x by time (evenly by order when all share one
 * time), y by rating, higher up, the range widened to round ticks and to
 * at least 100 points so that a flat history stays flat. Returns the
 * points' coordinates, the polyline's path and the ticks.
 */
export function scaleGraph(points, { width = 600, height = 220, pad = 36 } = {}) {
  const pts = points.filter((p) => Number.isFinite(p.rating));
  if (!pts.length) return { dots: [], path: "", yTicks: [], lo: 0, hi: 0 };
  const times = pts.map((p) => Date.parse(p.at));
  const validTimes = times.every(Number.isFinite);
  const t0 = validTimes ? Math.min(...times) : 0;
  const t1 = validTimes ? Math.max(...times) : 0;
  let lo = Math.min(...pts.map((p) => p.rating));
  let hi = Math.max(...pts.map((p) => p.rating));
  if (hi - lo < 100) {
    const mid = (hi + lo) / 2;
    lo = mid - 50;
    hi = mid + 50;
  }
  const step = niceStep(hi - lo);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const w = width - 2 * pad;
  const h = height - 2 * pad;
  const x = (i) => {
    if (pts.length === 1) return pad + w / 2;
    if (validTimes && t1 > t0) return pad + ((times[i] - t0) / (t1 - t0)) * w;
    return pad + (i / (pts.length - 1)) * w;
  };
  const y = (r) => pad + (1 - (r - lo) / (hi - lo)) * h;
  const round = (v) => Math.round(v * 10) / 10;
  const dots = pts.map((p, i) => ({ x: round(x(i)), y: round(y(p.rating)), point: p }));
  const path = dots.map((d, i) => `${i ? "L" : "M"}${d.x} ${d.y}`).join(" ");
  const yTicks = [];
  for (let v = lo; v <= hi + step / 2; v += step) yTicks.push({ value: v, y: round(y(v)) });
  return { dots, path, yTicks, lo, hi };
}

function node(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * Draws the graph of points as an SVG labelled label; format writes a
 * rating tick's number. Screen readers get the table that goes with it.
 */
export function drawGraph(points, label, format) {
  const width = 600;
  const height = 220;
  const pad = 56; // room for the ticks' numbers on the left
  const g = scaleGraph(points, { width, height, pad });
  const svg = node("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-graph", role: "img", "aria-label": label });
  for (const tick of g.yTicks) {
    svg.append(node("line", { x1: pad, x2: width - 12, y1: tick.y, y2: tick.y, class: "grid" }));
    svg.append(node("text", { x: pad - 6, y: tick.y + 5, "text-anchor": "end", class: "tick" }, format(tick.value)));
  }
  svg.append(node("path", { d: g.path, class: "line" }));
  for (const d of g.dots) svg.append(node("circle", { cx: d.x, cy: d.y, r: 3, class: "dot" }));
  return svg;
}
