// A tiny SVG line chart (no dependencies): lineChart(svg, points [[x, y]...], {markers: [{x, label}],
// range: [lo, hi] (a fixed y axis; values are clamped into it, e.g. [0, 1] for rates),
// intervals: [{x, y, low, high, label}] (points with error bars, e.g. held-out evals with their CI)}).
"use strict";
const SVG_NS = "http://www.w3.org/2000/svg";

function svgEl(name, attrs, text) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs || {})) el.setAttribute(key, value);
  if (text !== undefined) el.textContent = text;
  return el;
}

function lineChart(svg, points, options) {
  options = options || {};
  const width = 400, height = 200, left = 42, right = 10, top = 10, bottom = 24;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  const range = options.range;
  const clamp = y => range ? Math.min(range[1], Math.max(range[0], y)) : y;
  const finite = y => y !== null && y !== undefined && Number.isFinite(y);
  const data = points.filter(p => finite(p[1])).map(p => [p[0], clamp(p[1])]);
  const intervals = (options.intervals || []).filter(i => finite(i.y))
    .map(i => ({...i, y: clamp(i.y), low: clamp(finite(i.low) ? i.low : i.y), high: clamp(finite(i.high) ? i.high : i.y)}));
  if (!data.length && !intervals.length) {
    svg.appendChild(svgEl("text", {x: width / 2, y: height / 2, "text-anchor": "middle", fill: "#5b6475"}, "no data yet"));
    return;
  }
  const xs = [...data.map(p => p[0]), ...intervals.map(i => i.x)];
  const ys = [...data.map(p => p[1]), ...intervals.flatMap(i => [i.low, i.high])];
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)], [y0, y1] = range ? range : [Math.min(...ys), Math.max(...ys)];
  if (x0 === x1) x1 = x0 + 1;
  if (y0 === y1) { y0 -= 0.5; y1 += 0.5; }
  const sx = x => left + (x - x0) / (x1 - x0) * (width - left - right);
  const sy = y => height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom);
  svg.appendChild(svgEl("line", {x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, stroke: "#999"}));
  svg.appendChild(svgEl("line", {x1: left, y1: top, x2: left, y2: height - bottom, stroke: "#999"}));
  for (const y of [y0, (y0 + y1) / 2, y1]) {
    svg.appendChild(svgEl("text", {x: left - 4, y: sy(y) + 4, "text-anchor": "end", "font-size": 10, fill: "#5b6475"}, +y.toPrecision(3)));
  }
  svg.appendChild(svgEl("text", {x: left, y: height - 6, "font-size": 10, fill: "#5b6475"}, x0));
  svg.appendChild(svgEl("text", {x: width - right, y: height - 6, "font-size": 10, "text-anchor": "end", fill: "#5b6475"}, x1));
  for (const marker of options.markers || []) {
    if (marker.x < x0 || marker.x > x1) continue;
    const mx = sx(marker.x);
    svg.appendChild(svgEl("line", {class: "phase-marker", x1: mx, y1: top, x2: mx, y2: height - bottom, stroke: "#c62828", "stroke-dasharray": "4 3"}));
    svg.appendChild(svgEl("text", {x: mx + 3, y: top + 10, "font-size": 10, fill: "#c62828"}, marker.label));
  }
  const line = svgEl("polyline", {class: "series", fill: "none", stroke: options.color || "#2457c5", "stroke-width": 2,
    points: data.map(p => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(" ")});
  line.appendChild(svgEl("title", {}, `${data.length} points`));
  svg.appendChild(line);
  for (const i of intervals) {
    const mx = sx(i.x), color = options.intervalColor || "#2ca02c";
    svg.appendChild(svgEl("line", {class: "interval", x1: mx, y1: sy(i.low), x2: mx, y2: sy(i.high), stroke: color, "stroke-width": 2}));
    const dot = svgEl("rect", {class: "interval-point", x: mx - 4, y: sy(i.y) - 4, width: 8, height: 8, fill: color, transform: `rotate(45 ${mx} ${sy(i.y)})`});
    dot.appendChild(svgEl("title", {}, i.label || `${i.y}`));
    svg.appendChild(dot);
  }
}
