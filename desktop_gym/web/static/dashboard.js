"use strict";
const THUMB_PERIOD_MS = 300;   // each visible thumbnail refreshes a few times a second
const HISTORY = 240;           // chart points kept
const history = {steps: [], reset: []};
let latest = [], focused = null, tick = 0;

function text(tag, value, cls) { const el = document.createElement(tag); el.textContent = value; if (cls) el.className = cls; return el; }
function fmt(seconds) { seconds = Math.round(seconds); return seconds < 120 ? `${seconds}s` : `${Math.round(seconds / 60)}min`; }

function renderCounters(servers) {
  const sum = key => servers.reduce((total, s) => total + ((s.counters || {})[key] || 0), 0);
  const envs = servers.reduce((total, s) => total + (s.envs || []).length, 0);
  const steps = servers.reduce((total, s) => total + (s.steps_per_s || 0), 0);
  const p50 = servers.map(s => (s.reset_latency_s || {}).p50).filter(v => v !== null && v !== undefined);
  const items = [["Envs", envs], ["Steps/s", steps.toFixed(1)], ["Reset p50", p50.length ? `${Math.max(...p50).toFixed(2)} s` : "–"],
    ["Steps", sum("steps")], ["Resets", sum("resets")], ["Crashes", sum("crashes")], ["Recoveries", sum("recoveries")], ["Servers", servers.length]];
  const box = document.getElementById("counters");
  box.replaceChildren(...items.map(([name, value]) => { const c = text("div", name, "counter"); c.appendChild(text("b", value)); c.dataset.name = name; return c; }));
  tick += 1;
  history.steps.push([tick, steps]); history.reset.push([tick, p50.length ? Math.max(...p50) : null]);
  for (const series of Object.values(history)) if (series.length > HISTORY) series.shift();
  lineChart(document.getElementById("chart-steps"), history.steps);
  lineChart(document.getElementById("chart-reset"), history.reset);
}

function renderEnvs(servers) {
  const grid = document.getElementById("envs");
  const seen = new Set();
  servers.forEach((server, index) => (server.envs || []).forEach(env => {
    const key = `${index}/${env.env_id}`;
    seen.add(key);
    let card = grid.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (!card) {
      card = document.createElement("article");
      card.className = "env"; card.tabIndex = 0; card.dataset.key = key; card.setAttribute("role", "button");
      const img = document.createElement("img"); img.alt = `desktop of env ${env.env_id}`; card.appendChild(img);
      card.appendChild(text("div", "", "meta"));
      card.addEventListener("click", () => focus(index, env.env_id));
      card.addEventListener("keydown", event => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); focus(index, env.env_id); } });
      grid.appendChild(card);
    }
    card.className = `env state-${env.state}`;
    card.setAttribute("aria-label", `env ${env.env_id}: ${env.task_id}, ${env.state}`);
    const meta = card.querySelector(".meta");
    meta.replaceChildren(text("strong", env.task_id), text("div", `${env.env_id} · ${env.state} · step ${env.step} · return ${(+env.episode_return).toFixed(2)} · up ${fmt(env.uptime_s)}`, "muted"));
    if (env.last_error) meta.appendChild(text("div", env.last_error.slice(0, 200), "bad"));
  }));
  for (const card of [...grid.children]) if (!seen.has(card.dataset.key)) card.remove();
}

function renderTables(servers) {
  const nodes = document.querySelector("#nodes tbody");
  nodes.replaceChildren(...servers.map(s => {
    const row = document.createElement("tr"), node = s.node || {}, pool = s.pool || {};
    for (const value of [s.address || "?", (s.envs || []).length, pool.ready ?? "–", node.cpu_percent ?? "–",
      node.mem_available_mb !== undefined ? Math.round(node.mem_available_mb) : "–", node.server_rss_mb !== undefined ? Math.round(node.server_rss_mb) : "–",
      s.error ? s.error : (s.steps_per_s || 0).toFixed(1)]) row.appendChild(text("td", value));
    return row;
  }));
  const perTask = {};
  for (const s of servers) for (const [task, v] of Object.entries(s.success_per_task || {})) {
    perTask[task] = perTask[task] || {episodes: 0, successes: 0};
    perTask[task].episodes += v.episodes; perTask[task].successes += v.successes;
  }
  document.querySelector("#tasks tbody").replaceChildren(...Object.entries(perTask).map(([task, v]) => {
    const row = document.createElement("tr");
    row.append(text("td", task), text("td", v.episodes), text("td", `${Math.round(100 * v.successes / v.episodes)}%`));
    return row;
  }));
}

function refreshThumbnails() {
  for (const card of document.querySelectorAll("#envs .env")) {
    const [server, envId] = card.dataset.key.split("/");
    const img = card.querySelector("img");
    if (img.dataset.loading) continue;
    img.dataset.loading = "1";
    const next = new Image();
    next.onload = () => { img.src = next.src; delete img.dataset.loading; };
    next.onerror = () => { delete img.dataset.loading; };
    next.src = `/api/thumb/${server}/${encodeURIComponent(envId)}?w=320&t=${Date.now()}`;
  }
  if (focused) {
    const img = document.getElementById("focus-img");
    img.src = `/api/thumb/${focused.server}/${encodeURIComponent(focused.envId)}?w=1280&t=${Date.now()}`;
  }
}

function focus(server, envId) {
  focused = {server, envId};
  document.getElementById("focus").hidden = false;
  document.getElementById("focus-title").textContent = `Env ${envId}`;
  document.getElementById("focus-msg").textContent = "";
  document.getElementById("focus-hide").focus();
}

document.getElementById("focus-hide").addEventListener("click", () => { focused = null; document.getElementById("focus").hidden = true; });
document.getElementById("token").value = sessionStorage.getItem("desktop-gym-token") || "";
document.getElementById("focus-close-env").addEventListener("click", async () => {
  const token = document.getElementById("token").value;
  sessionStorage.setItem("desktop-gym-token", token);
  const reply = await fetch(`/api/envs/${focused.server}/${encodeURIComponent(focused.envId)}/close`, {method: "POST", headers: {Authorization: `Bearer ${token}`}});
  const body = await reply.json();
  document.getElementById("focus-msg").textContent = reply.ok ? `closed ${body.closed}` : body.error;
});

const events = new EventSource("/api/events");
events.onmessage = message => {
  latest = JSON.parse(message.data);
  document.getElementById("live").textContent = `live · ${new Date().toLocaleTimeString()}`;
  renderCounters(latest); renderEnvs(latest); renderTables(latest);
};
events.onerror = () => { document.getElementById("live").textContent = "disconnected, retrying…"; };
setInterval(refreshThumbnails, THUMB_PERIOD_MS);
