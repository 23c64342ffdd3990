"use strict";
const path = decodeURIComponent(location.pathname.replace(/^\/view\//, ""));
let episode = null, position = 0;  // position 0 = the reset observation, k = after step k
const SVG_NS = "http://www.w3.org/2000/svg";

// Points an action names, in screenshot pixels: click/move coordinates, drag from -> to.
function actionMarks(action) {
  const marks = [], pairs = [];
  const re = /\[\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\]|x\s*=\s*(-?\d+(?:\.\d+)?)\s*,\s*y\s*=\s*(-?\d+(?:\.\d+)?)|\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*[,)]/g;
  for (const m of action.matchAll(re)) {
    const x = +(m[1] ?? m[3] ?? m[5]), y = +(m[2] ?? m[4] ?? m[6]);
    if (Number.isFinite(x) && Number.isFinite(y)) pairs.push([x, y]);
    if (pairs.length >= 8) break;
  }
  const typed = action.match(/(?:type|write|typewrite)\s*\(.*?(?:text\s*=\s*)?(["'])(.*?)\1/s);
  if (/drag/i.test(action) && pairs.length >= 2) marks.push({kind: "drag", from: pairs[0], to: pairs[1]});
  else for (const p of pairs) marks.push({kind: "point", at: p});
  if (typed) marks.push({kind: "text", text: typed[2].slice(0, 80), at: pairs[0] || null});
  return marks;
}

function drawOverlay(img, action) {
  const svg = document.getElementById("overlay");
  svg.replaceChildren();
  if (!action || !img.naturalWidth) return;
  svg.setAttribute("viewBox", `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
  const add = (name, attrs, content) => { const el = document.createElementNS(SVG_NS, name); for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v); if (content) el.textContent = content; svg.appendChild(el); return el; };
  for (const mark of actionMarks(action)) {
    if (mark.kind === "point") {
      add("circle", {class: "mark-click", cx: mark.at[0], cy: mark.at[1], r: 14, fill: "none", stroke: "#e53935", "stroke-width": 4});
      add("circle", {cx: mark.at[0], cy: mark.at[1], r: 3, fill: "#e53935"});
    } else if (mark.kind === "drag") {
      add("line", {class: "mark-drag", x1: mark.from[0], y1: mark.from[1], x2: mark.to[0], y2: mark.to[1], stroke: "#e53935", "stroke-width": 4, "stroke-dasharray": "10 6"});
      add("circle", {cx: mark.to[0], cy: mark.to[1], r: 8, fill: "#e53935"});
    } else {
      const [x, y] = mark.at || [20, img.naturalHeight - 30];
      add("rect", {x: x, y: y + 18, width: Math.min(img.naturalWidth - x, 12 * mark.text.length + 16), height: 30, fill: "rgba(255,255,255,.85)", stroke: "#e53935"});
      add("text", {class: "mark-text", x: x + 8, y: y + 40, "font-size": 20, fill: "#b71c1c"}, `⌨ ${mark.text}`);
    }
  }
}

function show(k) {
  const count = episode.steps.length;
  position = Math.max(0, Math.min(count, k));
  const step = position ? episode.steps[position - 1] : null;
  const img = document.getElementById("screen");
  const src = step ? step.screenshot : episode.reset_screenshot;
  img.onload = () => drawOverlay(img, step ? step.action : "");
  if (src) img.src = src; else { img.removeAttribute("src"); drawOverlay(img, ""); }
  document.getElementById("position").textContent = position ? `step ${position} of ${count}` : `start (after reset), ${count} steps`;
  document.getElementById("slider").value = position;
  document.getElementById("action").textContent = step ? step.action : "(reset)";
  document.getElementById("result").textContent = step && step.result ? `Result: ${step.result}` : "";
  document.getElementById("error").textContent = step && step.error ? `Error: ${step.error}` : "";
  document.getElementById("app-info").textContent = step ? step.app_info || "(none)" : "";
  document.getElementById("a11y").textContent = step ? step.a11y_tree || "(not recorded)" : "";
  for (const button of document.querySelectorAll("#timeline button")) {
    if (+button.dataset.position === position) button.setAttribute("aria-current", "step"); else button.removeAttribute("aria-current");
  }
  const verdict = document.getElementById("verdict");
  verdict.hidden = position !== count || !episode.complete;
  if (!verdict.hidden) {
    const ok = episode.success;
    const text = document.getElementById("verdict-text");
    text.textContent = `${ok ? "SUCCESS" : "FAILURE"}${episode.verifier && episode.verifier.reason ? ": " + episode.verifier.reason : ""}${episode.crash ? " (crash: " + episode.crash + ")" : ""}`;
    text.className = ok ? "ok" : "bad";
    document.getElementById("verdict-details").textContent = JSON.stringify(episode.verifier, null, 2);
  }
}

async function load() {
  const reply = await fetch(`/api/episode/${path}`);
  episode = await reply.json();
  if (!reply.ok) { document.getElementById("title").textContent = episode.error; return; }
  document.getElementById("title").textContent = `${episode.task_id} · seed ${episode.seed ?? "–"} · ${episode.steps.length} steps`;
  document.getElementById("instruction").textContent = episode.instruction;
  document.getElementById("slider").max = episode.steps.length;
  const timeline = document.getElementById("timeline");
  for (let k = 0; k <= episode.steps.length; k++) {
    const button = document.createElement("button");
    button.type = "button"; button.dataset.position = k; button.textContent = k ? k : "start";
    const step = k ? episode.steps[k - 1] : null;
    button.title = step ? step.action.slice(0, 120) : "after reset";
    if (step && step.error) button.classList.add("error");
    button.addEventListener("click", () => show(k));
    timeline.appendChild(button);
  }
  if (episode.video) {
    const video = document.getElementById("video");
    video.src = episode.video;
    document.getElementById("video-panel").hidden = false;
    // One frame a step, one second each: the video's second k is position k.
    video.addEventListener("timeupdate", () => { const k = Math.floor(video.currentTime); if (k !== position) show(k); });
  }
  show(0);
}
document.getElementById("prev").addEventListener("click", () => show(position - 1));
document.getElementById("next").addEventListener("click", () => show(position + 1));
document.getElementById("slider").addEventListener("input", event => show(+event.target.value));
document.addEventListener("keydown", event => {
  if (event.target.tagName === "INPUT" && event.target.type !== "range") return;
  if (event.key === "ArrowRight") show(position + 1);
  if (event.key === "ArrowLeft") show(position - 1);
});
load();
