// agui inspect's page. It renders what the Go side computes (frames,
// findings, the reducer's state after an event) and computes nothing of
// its own about the protocol. No build step: this file is what is served.
"use strict";

const ROW = 24; // px, the height of a timeline row (see .ev in app.css)
const OVERSCAN = 10;

const $ = (id) => document.getElementById(id);
const view = {
  session: "", // the session shown
  frames: [], // its rows, in order
  done: false,
  selected: -1,
  poll: 0, // bumped to stop a session's poll loop
  detailSeq: 0,
  page: null, // the last answer about the session
};
// What the browser tests read.
window.__inspect = { renderMs: 0, maxRenderMs: 0, total: 0, done: false, selected: -1, detailShown: -1 };

function text(el, s) { el.textContent = s; }
function show(el, on) { el.hidden = !on; }

function problem(msg) {
  const el = $("problem");
  text(el, msg || "");
  show(el, !!msg);
}

async function api(path, opts) {
  let resp;
  try {
    resp = await fetch(path, opts);
  } catch (e) {
    throw new Error("the inspector does not answer (" + e.message + "): is agui inspect still running?");
  }
  const body = await resp.text();
  let doc = null;
  try { doc = JSON.parse(body); } catch (_) { /* not JSON: said below */ }
  if (!resp.ok) {
    const m = doc && doc.error ? doc.error.message : body.slice(0, 300);
    throw new Error(m || ("HTTP " + resp.status));
  }
  if (doc === null) throw new Error("the inspector answered something that is not JSON");
  return doc;
}

// ---- compose ----

function parseField(id, what, want) {
  const v = $(id).value.trim();
  if (v === "") return undefined;
  let x;
  try { x = JSON.parse(v); } catch (e) { throw new Error(what + " is not JSON: " + e.message); }
  if (want === "array" && !Array.isArray(x)) throw new Error(what + " must be a JSON array");
  if (want === "object" && (x === null || typeof x !== "object" || Array.isArray(x))) throw new Error(what + " must be a JSON object");
  return x;
}

function newID() {
  return (self.crypto && crypto.randomUUID) ? crypto.randomUUID() : "m-" + Date.now() + "-" + Math.floor(Math.random() * 1e9);
}

function target() {
  return {
    url: $("url").value.trim(),
    headers: $("headers").value.split("\n").filter((l) => l.trim() !== ""),
    proto: $("binding").value === "proto",
  };
}

function composeInput() {
  const input = {};
  const thread = $("thread-id").value.trim();
  const run = $("run-id").value.trim();
  if (thread) input.threadId = thread;
  if (run) input.runId = run;
  input.messages = parseField("messages-in", "Messages", "array") || [];
  const msg = $("message").value;
  if (msg.trim() !== "") input.messages.push({ id: newID(), role: "user", content: msg });
  const state = parseField("state-in", "State");
  if (state !== undefined) input.state = state;
  const tools = parseField("tools-in", "Tools", "array");
  if (tools !== undefined) input.tools = tools;
  const ctx = parseField("context-in", "Context", "array");
  if (ctx !== undefined) input.context = ctx;
  const props = parseField("props-in", "Forwarded props");
  if (props !== undefined) input.forwardedProps = props;
  const resume = parseField("resume-in", "Resume entries", "array");
  if (resume !== undefined) input.resume = resume;
  return input;
}

function formError(msg) {
  text($("form-error"), msg || "");
  show($("form-error"), !!msg);
}

async function startRun(ev) {
  ev.preventDefault();
  formError("");
  let input;
  try { input = composeInput(); } catch (e) { formError(e.message); return; }
  try {
    const r = await api("api/runs", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ ...target(), input }) });
    await refreshSessions(r.id);
    openSession(r.id);
  } catch (e) { formError(e.message); }
}

async function reattach() {
  formError("");
  const runId = $("reattach-id").value.trim() || (view.page && view.page.runId) || "";
  if (!runId) { formError("Reattach needs the durable run's id."); return; }
  try {
    const r = await api("api/reattach", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ ...target(), runId }) });
    await refreshSessions(r.id);
    openSession(r.id);
  } catch (e) { formError(e.message); }
}

async function cancelRun() {
  if (!view.session) return;
  try {
    const r = await api("api/sessions/" + view.session + "/cancel", { method: "POST" });
    text($("status"), r.result);
  } catch (e) { problem(e.message); }
}

async function importFile() {
  const f = $("import").files[0];
  if (!f) return;
  formError("");
  try {
    const r = await api("api/import?name=" + encodeURIComponent(f.name), { method: "POST", body: f });
    await refreshSessions(r.id);
    openSession(r.id);
  } catch (e) { formError(e.message); }
  $("import").value = "";
}

async function refreshSessions(select) {
  const list = await api("api/sessions");
  const sel = $("session");
  sel.textContent = "";
  if (list.length === 0) sel.append(new Option("(none yet)", ""));
  list.forEach((s, i) => {
    const label = (i + 1) + ". " + s.kind + " " + (s.runId || "") + " — " + s.url;
    sel.append(new Option(label, s.id));
  });
  sel.value = select || view.session;
}

// ---- a session: polling for rows ----

function openSession(id) {
  view.poll++;
  view.session = id;
  view.frames = [];
  view.done = false;
  view.selected = -1;
  view.page = null;
  window.__inspect.total = 0;
  window.__inspect.done = false;
  window.__inspect.selected = -1;
  window.__inspect.detailShown = -1;
  problem("");
  clearDetail();
  show($("interrupts"), false);
  $("verdicts").textContent = "";
  $("end").textContent = "";
  const ex = $("export");
  ex.href = "api/sessions/" + id + "/export";
  ex.setAttribute("aria-disabled", "false");
  renderTimeline();
  pollLoop(id, view.poll);
}

async function pollLoop(id, token) {
  for (;;) {
    let page;
    try {
      page = await api("api/sessions/" + id + "?wait=1&from=" + view.frames.length);
    } catch (e) {
      if (token !== view.poll) return;
      problem(e.message);
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    if (token !== view.poll) return;
    view.page = page;
    for (const f of page.frames) view.frames.push(f);
    view.done = page.done;
    window.__inspect.total = view.frames.length;
    renderTimeline();
    renderStatus();
    if (view.selected < 0 && view.frames.length > 0) select(0, false);
    if (page.done && view.frames.length >= page.total) {
      window.__inspect.done = true;
      renderEnd();
      return;
    }
  }
}

function renderStatus() {
  const p = view.page;
  const what = p.kind + (p.runId ? " " + p.runId : "") + " — " + p.url;
  let st = p.done ? "ended" : "streaming";
  const outcome = (p.outcome || "").toLowerCase();
  if (p.done && outcome && outcome !== "running" && outcome !== "not-started") st += ", " + outcome;
  else if (p.done && view.frames.length > 0) st += " without a terminal event the client accepted";
  text($("status"), what + ": " + view.frames.length + " events, " + st + (p.format ? " (" + p.format + ")" : ""));
  text($("count"), "(" + view.frames.length + ")");
  $("cancel").disabled = p.done;
  if (p.runId && !$("reattach-id").value) $("reattach-id").placeholder = p.runId;
}

function renderEnd() {
  const p = view.page;
  if (p.problem) problem(p.problem);
  const v = $("verdicts");
  v.textContent = "";
  for (const name of ["client", "server"]) {
    const r = p.verdicts && p.verdicts[name];
    if (!r) continue;
    const el = document.createElement("span");
    el.className = "verdict " + (r.ok ? "ok" : "bad");
    el.textContent = name + " profile: " + (r.ok ? "valid" : "rejected (" + r.rule + (r.index >= 0 && r.index < view.frames.length ? " at event " + r.index : " at the end") + ")");
    v.append(el);
  }
  const end = $("end");
  end.textContent = "";
  if (p.note) {
    const n = document.createElement("div");
    n.className = "note";
    n.textContent = p.note;
    end.append(n);
  }
  if (p.end.length > 0) {
    const h = document.createElement("h3");
    h.textContent = "At the end of the stream";
    end.append(h);
    p.end.forEach((f) => end.append(findingEl(f)));
  }
  renderInterrupts(p.interrupts || []);
}

// ---- the timeline, virtualised: only the rows in view exist ----

function renderTimeline() {
  const t0 = performance.now();
  const tl = $("timeline");
  $("spacer").style.height = (view.frames.length * ROW) + "px";
  const first = Math.max(0, Math.floor(tl.scrollTop / ROW) - OVERSCAN);
  const last = Math.min(view.frames.length, Math.ceil((tl.scrollTop + tl.clientHeight) / ROW) + OVERSCAN);
  const rows = document.createDocumentFragment();
  for (let i = first; i < last; i++) rows.append(rowEl(view.frames[i]));
  tl.querySelectorAll(".ev").forEach((e) => e.remove());
  tl.append(rows);
  const ms = performance.now() - t0;
  window.__inspect.renderMs = ms;
  window.__inspect.maxRenderMs = Math.max(window.__inspect.maxRenderMs, ms);
}

function rowEl(f) {
  const r = document.createElement("div");
  r.className = "ev" + (f.errors ? " has-error" : f.warnings ? " has-warning" : "");
  r.id = "ev-" + f.index;
  r.setAttribute("role", "option");
  r.setAttribute("aria-selected", String(f.index === view.selected));
  r.dataset.index = f.index;
  r.dataset.type = f.type;
  r.style.top = (f.index * ROW) + "px";
  const ids = f.ids ? Object.entries(f.ids).map(([k, v]) => k + "=" + v).join(" ") : "";
  const cells = [
    ["c-i", String(f.index)],
    ["c-t", "\u2003".repeat(f.depth) + (f.depth ? "↳ " : "") + f.type],
    ["c-ids", ids],
    ["c-s", String(f.size)],
    ["c-dt", f.dt.toFixed(1)],
  ];
  for (const [cls, s] of cells) {
    const c = document.createElement("span");
    c.className = cls + (cls === "c-t" && f.depth ? " nest" : "");
    c.textContent = s;
    if (cls === "c-ids") c.title = s;
    if (cls === "c-t") {
      c.title = f.agent ? "subagent " + f.agent : "";
      if (f.errors) c.append(badge("e", f.errors, "rejections"));
      if (f.warnings) c.append(badge("w", f.warnings, "warnings"));
    }
    r.append(c);
  }
  return r;
}

function badge(cls, n, what) {
  const b = document.createElement("span");
  b.className = "badge " + cls;
  b.textContent = String(n);
  b.title = n + " " + what;
  return b;
}

function select(n, focusRow) {
  if (n < 0 || n >= view.frames.length) return;
  view.selected = n;
  window.__inspect.selected = n;
  const tl = $("timeline");
  const top = n * ROW;
  if (top < tl.scrollTop) tl.scrollTop = top;
  else if (top + ROW > tl.scrollTop + tl.clientHeight) tl.scrollTop = top + ROW - tl.clientHeight;
  renderTimeline();
  tl.setAttribute("aria-activedescendant", "ev-" + n);
  if (focusRow) tl.focus();
  loadDetail(n);
}

function clearDetail() {
  text($("detail-title"), "Choose an event");
  for (const id of ["findings", "state-after", "state-diff", "event-json", "wire", "delivered", "messages"]) $(id).textContent = "";
}

async function loadDetail(n) {
  const seq = ++view.detailSeq;
  const session = view.session;
  let d;
  try {
    d = await api("api/sessions/" + session + "/frames/" + n);
  } catch (e) {
    if (seq === view.detailSeq) problem(e.message);
    return;
  }
  if (seq !== view.detailSeq || session !== view.session) return;
  text($("detail-title"), "Event " + d.index + ": " + d.type + (d.agent ? " (subagent " + d.agent + ")" : ""));
  const fl = $("findings");
  fl.textContent = "";
  if (d.findings.length === 0) {
    const ok = document.createElement("p");
    ok.textContent = "No findings: both profiles accept this event, and nothing was repaired or dropped.";
    fl.append(ok);
  }
  d.findings.forEach((f) => fl.append(findingEl(f)));
  text($("state-after"), d.state);
  const diff = $("state-diff");
  diff.textContent = "";
  const changed = d.stateDiff.some((l) => l.op !== " ");
  if (!changed) diff.textContent = "(unchanged)";
  else for (const l of d.stateDiff) {
    const s = document.createElement("span");
    s.className = l.op === "+" ? "add" : l.op === "-" ? "del" : "same";
    s.textContent = l.op + " " + l.text;
    diff.append(s);
  }
  text($("event-json"), pretty(d.doc));
  text($("wire"), d.wire);
  text($("delivered"), d.events.length ? d.events.map((e) => JSON.stringify(e)).join("\n") : "(nothing: the pipeline delivered no event for this frame)");
  text($("messages"), pretty(d.messages));
  window.__inspect.detailShown = d.index;
}

function pretty(x) { return JSON.stringify(x, null, 2); }

function findingEl(f) {
  const el = document.createElement("div");
  el.className = "finding " + f.severity;
  const head = document.createElement("div");
  const rule = document.createElement("span");
  rule.className = "rule";
  rule.textContent = (f.severity === "error" ? "rejected" : "warning") + " (" + f.source + (f.source === "reducer" ? "" : f.source === "server" ? " profile" : " pipeline") + ")" + (f.rule ? ": " + f.rule : "");
  head.append(rule);
  el.append(head);
  if (f.description) {
    const d = document.createElement("div");
    d.className = "desc";
    d.textContent = f.description;
    el.append(d);
  }
  const m = document.createElement("div");
  m.textContent = f.message;
  el.append(m);
  return el;
}

// ---- interrupts and their resume form ----

function renderInterrupts(list) {
  const sec = $("interrupts");
  const form = $("resume-form");
  form.textContent = "";
  show(sec, list.length > 0);
  if (list.length === 0) return;
  list.forEach((it, i) => {
    const fs = document.createElement("fieldset");
    const lg = document.createElement("legend");
    lg.textContent = "Interrupt " + it.id + " (" + it.reason + ")" + (it.message ? ": " + it.message : "");
    fs.append(lg);
    for (const [val, label] of [["approve", "Approve"], ["answer", "Answer with a payload"], ["decline", "Decline"]]) {
      const l = document.createElement("label");
      l.style.flexDirection = "row";
      const r = document.createElement("input");
      r.type = "radio";
      r.name = "answer-" + i;
      r.value = val;
      r.checked = val === "approve";
      l.append(r, " " + label);
      fs.append(l);
    }
    const pl = document.createElement("label");
    pl.textContent = "Payload (JSON)";
    const ta = document.createElement("textarea");
    ta.id = "payload-" + i;
    ta.rows = 2;
    ta.value = it.responseSchema ? "{}" : "";
    pl.append(ta);
    fs.append(pl);
    fs.dataset.interruptId = it.id;
    form.append(fs);
  });
  const b = document.createElement("button");
  b.type = "submit";
  b.id = "resume";
  b.textContent = "Resume the run";
  form.append(b);
  const err = document.createElement("p");
  err.id = "resume-error";
  err.className = "error";
  err.setAttribute("role", "alert");
  form.append(err);
}

async function resume(ev) {
  ev.preventDefault();
  const entries = [];
  const err = $("resume-error");
  err.textContent = "";
  try {
    $("resume-form").querySelectorAll("fieldset").forEach((fs, i) => {
      const choice = fs.querySelector("input[type=radio]:checked").value;
      const e = { interruptId: fs.dataset.interruptId, status: choice === "decline" ? "cancelled" : "resolved" };
      if (choice === "answer") {
        const v = $("payload-" + i).value;
        try { e.payload = JSON.parse(v); } catch (x) { throw new Error("the payload of " + e.interruptId + " is not JSON: " + x.message); }
      }
      entries.push(e);
    });
    const r = await api("api/sessions/" + view.session + "/resume", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ resume: entries }) });
    await refreshSessions(r.id);
    openSession(r.id);
  } catch (e) { err.textContent = e.message; }
}

// ---- keyboard ----

function onTimelineKey(e) {
  const n = view.selected;
  const pageRows = Math.max(1, Math.floor($("timeline").clientHeight / ROW) - 1);
  const to = {
    ArrowDown: n + 1, j: n + 1, ArrowUp: n - 1, k: n - 1,
    PageDown: n + pageRows, PageUp: n - pageRows, Home: 0, End: view.frames.length - 1,
  }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  select(Math.max(0, Math.min(view.frames.length - 1, to)), false);
}

async function init() {
  $("run-form").addEventListener("submit", startRun);
  $("resume-form").addEventListener("submit", resume);
  $("cancel").addEventListener("click", cancelRun);
  $("reattach").addEventListener("click", reattach);
  $("import").addEventListener("change", importFile);
  $("session").addEventListener("change", (e) => { if (e.target.value) openSession(e.target.value); });
  const tl = $("timeline");
  tl.addEventListener("scroll", () => requestAnimationFrame(renderTimeline));
  tl.addEventListener("keydown", onTimelineKey);
  tl.addEventListener("click", (e) => {
    const row = e.target.closest(".ev");
    if (row) select(Number(row.dataset.index), true);
  });
  window.addEventListener("resize", () => requestAnimationFrame(renderTimeline));
  try {
    const cfg = await api("api/config");
    if (cfg.url) $("url").value = cfg.url;
    if (cfg.headers.length) $("headers").value = cfg.headers.join("\n");
    if (cfg.proto) $("binding").value = "proto";
    await refreshSessions("");
    if (cfg.proxy) {
      text($("status"), "Recording proxy at " + cfg.proxy + " → " + cfg.url + ": point a front end there; its runs appear here.");
      watchProxy();
    }
  } catch (e) { problem(e.message); }
  window.__inspect.ready = true;
}

// In proxy mode, runs start elsewhere: the list of sessions is watched,
// and a new run the proxy recorded is shown unless the one shown is
// still streaming.
async function watchProxy() {
  let known = 0;
  try { known = (await api("api/sessions")).length; } catch (_) { /* counted on the next turn */ }
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    let list;
    try { list = await api("api/sessions"); } catch (_) { continue; }
    if (list.length === known) continue;
    const fresh = list.slice(known).filter((s) => s.kind === "proxy");
    known = list.length;
    await refreshSessions(view.session);
    if (fresh.length > 0 && (view.session === "" || view.done)) {
      const last = fresh[fresh.length - 1].id;
      $("session").value = last;
      openSession(last);
    }
  }
}

init();
