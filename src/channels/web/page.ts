/**
 * The web console's page: one HTML document, one script and one stylesheet, served from these
 * constants (no framework, no CDN). The script renders every model, tool and tape string with
 * `textContent` only, and the page loads no inline script (the CSP forbids it).
 *
 * @module
 */

/** The HTML document. */
export const PAGE_HTML: string = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bub console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/app.css"></head>
<body><aside><h1>Bub</h1><h2>Tapes</h2><ul id="tapes"></ul></aside>
<main><nav><button id="show-chat" type="button">Chat</button>
<span id="chat-label"></span></nav>
<section id="chat"><div id="log"></div>
<form id="composer"><textarea id="input" rows="3" placeholder="Message (Enter sends, Shift+Enter newline, Esc stops)"></textarea>
<button id="send" type="submit">Send</button><button id="stop" type="button">Stop</button></form></section>
<section id="tape" hidden><form id="search"><input id="q" placeholder="Search the tape">
<button type="submit">Search</button></form><h2 id="tape-name"></h2><ol id="entries"></ol></section>
</main><script type="module" src="/app.js"></script></body></html>
`;

/** The stylesheet. */
export const PAGE_CSS: string = `
[hidden]{display:none!important}
body{margin:0;display:flex;height:100vh;font:14px system-ui,sans-serif;color:#222}
aside{width:260px;overflow:auto;background:#f3f3f0;border-right:1px solid #ddd;padding:8px}
aside li{cursor:pointer;padding:4px;border-radius:4px;list-style:none}aside li:hover{background:#e4e4de}
aside ul{padding:0}.meta{color:#777;font-size:12px;display:block}
main{flex:1;display:flex;flex-direction:column;min-width:0}nav{padding:8px;border-bottom:1px solid #ddd}
section{flex:1;display:flex;flex-direction:column;min-height:0}#log,#entries{flex:1;overflow:auto;padding:8px}
.msg{white-space:pre-wrap;margin:6px 0;padding:6px 8px;border-radius:6px}.user{background:#e8f0fe}
.bot{background:#f6f6f6}.error{background:#fde8e8}details.tool{border:1px solid #ccc;border-radius:6px;margin:6px 0;padding:4px 8px}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0}#composer{display:flex;gap:6px;padding:8px;border-top:1px solid #ddd}
#input{flex:1}.anchor{border-top:3px solid #c90;font-weight:bold}.entry{margin:4px 0}
`;

/** The script (an ES module; plain JavaScript so it needs no build step). */
export const PAGE_JS: string = `
const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = String(text);
  return node;
};
const show = (value) => typeof value === "string" ? value : JSON.stringify(value, null, 2);
let chat = new URLSearchParams(location.hash.slice(1)).get("chat") || "console";
let source = null;
let answer = null;
const cards = new Map();
const log = $("log");
const scroll = () => { log.scrollTop = log.scrollHeight; };

function toolCard(data) {
  const card = el("details", "tool");
  const summary = el("summary", "", "tool " + data.name + " \\u2026");
  card.append(summary, el("div", "meta", "arguments"), el("pre", "", show(data.arguments)));
  cards.set(data.call_id || data.name, { card, summary });
  log.append(card);
}
function toolEnd(data) {
  let entry = cards.get(data.call_id || data.name);
  if (!entry) { toolCard(data); entry = cards.get(data.call_id || data.name); }
  entry.summary.textContent = "tool " + data.name + (data.ok ? " ok" : " failed") +
    " (" + Math.round(data.duration_ms) + " ms)";
  entry.card.append(el("div", "meta", data.ok ? "result" : "error"),
    el("pre", "", show(data.ok ? data.result : data.error)));
}
const handlers = {
  turn_start(data) { answer = null; log.append(el("div", "msg user", data.content)); },
  text(data) {
    if (!answer) { answer = el("div", "msg bot", ""); log.append(answer); }
    answer.textContent += data.delta;
  },
  steer(data) { answer = null; log.append(el("div", "msg user", data.content)); },
  tool_start(data) { answer = null; toolCard(data); },
  tool_end: toolEnd,
  usage(data) { log.append(el("div", "meta", "usage " + JSON.stringify(data))); },
  error(data) { log.append(el("div", "msg error", data.message)); },
  done() { answer = null; refreshTapes(); },
  failed(data) { log.append(el("div", "msg error", "failed: " + data.message)); },
  cancelled() { log.append(el("div", "msg error", "stopped")); },
};
function connect() {
  if (source) source.close();
  log.replaceChildren();
  cards.clear();
  $("chat-label").textContent = "chat: " + chat;
  source = new EventSource("/api/sessions/" + encodeURIComponent(chat) + "/events");
  for (const [kind, handle] of Object.entries(handlers)) {
    source.addEventListener(kind, (event) => { handle(JSON.parse(event.data)); scroll(); });
  }
}
async function send() {
  const content = $("input").value;
  if (!content.trim()) return;
  const response = await fetch("/api/sessions/" + encodeURIComponent(chat) + "/messages", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ content }),
  });
  if (response.ok) $("input").value = "";
  else log.append(el("div", "msg error", (await response.json()).error.message));
}
const stop = () => fetch("/api/sessions/" + encodeURIComponent(chat) + "/cancel", { method: "POST" });
async function refreshTapes() {
  const { tapes } = await (await fetch("/api/tapes")).json();
  $("tapes").replaceChildren(...tapes.map((tape) => {
    const item = el("li", "", tape.name);
    item.append(el("span", "meta", tape.entries + " entries \\u00b7 " + (tape.last_activity || "empty")));
    item.addEventListener("click", () => openTape(tape.name));
    return item;
  }));
}
function entryLabel(entry) {
  const payload = entry.payload || {};
  if (entry.kind === "anchor") {
    const summary = payload.state && typeof payload.state.summary === "string" ? payload.state.summary : "";
    return "anchor " + payload.name + (summary ? " \u2014 " + summary : "");
  }
  if (entry.kind === "event") return "event " + payload.name;
  if (entry.kind === "tool_call" && Array.isArray(payload.calls)) {
    return "tool_call " + payload.calls.map((call) => (call.function || {}).name || "?").join(", ");
  }
  if (entry.kind === "tool_result" && Array.isArray(payload.results)) {
    return "tool_result (" + payload.results.length + ")";
  }
  if (entry.kind === "message" && typeof payload.role === "string") return "message " + payload.role;
  return entry.kind;
}
let tapeName = null;
async function openTape(name, q) {
  tapeName = name;
  $("chat").hidden = true;
  $("tape").hidden = false;
  $("tape-name").textContent = name;
  const query = q ? "?q=" + encodeURIComponent(q) : "";
  const { entries } = await (await fetch("/api/tapes/" + encodeURIComponent(name) + "/entries" + query)).json();
  $("entries").replaceChildren(...entries.map((entry) => {
    const item = el("li", "entry" + (entry.kind === "anchor" ? " anchor" : ""));
    const label = entryLabel(entry);
    const card = el("details");
    card.append(el("summary", "", "#" + entry.id + " " + label + " \\u00b7 " + entry.date),
      el("pre", "", show(entry.payload)));
    item.append(card);
    return item;
  }));
}
$("composer").addEventListener("submit", (event) => { event.preventDefault(); send(); });
$("input").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); send(); }
  if (event.key === "Escape") stop();
});
$("stop").addEventListener("click", stop);
$("show-chat").addEventListener("click", () => { $("tape").hidden = true; $("chat").hidden = false; });
$("search").addEventListener("submit", (event) => {
  event.preventDefault();
  if (tapeName) openTape(tapeName, $("q").value);
});
connect();
refreshTapes();
`;
