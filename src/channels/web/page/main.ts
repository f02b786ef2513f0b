/**
 * The console page's entry point: the access token (see `auth.ts`), the tape list, the chat
 * view, the tape view, the composer's attachments (Attach button, paste, drop; see
 * `attachments.ts`) and the keyboard (Enter sends, Shift+Enter makes a newline, Esc stops the
 * running turn).
 *
 * @module
 */
import { Attachments } from "./attachments.ts";
import { ChatView } from "./chat.ts";
import { api, loadToken, postJson } from "./auth.ts";
import { byId, el } from "./dom.ts";
import { localTime } from "./local_time.ts";
import { showTape } from "./tape_view.ts";

interface TapeRow {
  name: string;
  session_id: string | null;
  title: string | null;
  entries: number;
  last_activity: string | null;
  waiting?: number;
}

const hasToken = loadToken();
const chat = new URLSearchParams(location.hash.slice(1)).get("chat") || "console";
const chatPath = `/api/sessions/${encodeURIComponent(chat)}`;
const view = new ChatView();
view.post = (content) => postJson(`${chatPath}/messages`, { content }).then(() => {});
const input = byId<HTMLTextAreaElement>("input");
const attachments = new Attachments(byId("attachments"));
const fileInput = byId<HTMLInputElement>("files");
let tapeName: string | null = null;
let tapeLabel = "";
let before: string | null = null;

/** Opens or closes the tape list (a sliding panel on narrow screens). */
function showTapes(open: boolean): void {
  document.body.classList.toggle("tapes-open", open);
  byId("toggle-tapes").setAttribute("aria-expanded", String(open));
}

function showView(tape: boolean): void {
  byId("chat").hidden = tape;
  byId("tape").hidden = !tape;
}

async function send(): Promise<void> {
  const content = input.value;
  if (!content.trim() && attachments.empty) return;
  try {
    const media = await attachments.uploads();
    await postJson(`${chatPath}/messages`, media.length > 0 ? { content, media } : { content });
    input.value = "";
    attachments.clear();
  } catch (error) {
    view.error((error as Error).message);
  }
}

function attach(files: Iterable<File>): void {
  attachments.add(files).catch((error) => view.error((error as Error).message));
}

function stop(): void {
  postJson(`${chatPath}/cancel`, {}).catch((error) => view.error((error as Error).message));
}

async function openTape(name: string, label: string, query = ""): Promise<void> {
  tapeName = name;
  tapeLabel = label;
  showView(true);
  await showTape(name, label, query);
}

function tapeItem(tape: TapeRow): HTMLElement {
  const label = tape.session_id ?? tape.title ?? tape.name;
  const item = el("li", "", label);
  item.title = tape.name;
  if (tape.waiting) {
    const badge = el("span", "badge waiting", `${tape.waiting} waiting`);
    badge.title = "tool calls waiting for approval (,approvals in that session lists them)";
    item.append(badge);
  }
  if (tape.session_id && tape.title) item.append(el("span", "meta title", tape.title));
  const activity = tape.last_activity ? localTime(tape.last_activity) : "empty";
  const meta = el("span", "meta", `${tape.entries} entries \u00b7 ${activity}`);
  if (tape.last_activity) meta.title = tape.last_activity;
  item.append(meta);
  item.addEventListener("click", () => {
    showTapes(false);
    void openTape(tape.name, label);
  });
  return item;
}

async function loadTapes(more = false): Promise<void> {
  const cursor = more && before ? `&before=${encodeURIComponent(before)}` : "";
  const page = await api<{ tapes: TapeRow[]; next: string | null }>(`/api/tapes?limit=50${cursor}`);
  const list = byId("tapes");
  const items = page.tapes.map(tapeItem);
  if (more) list.append(...items);
  else list.replaceChildren(...items);
  before = page.next;
  byId("more-tapes").hidden = page.next === null;
}

byId("chat-label").textContent = `chat: ${chat}`;
byId("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  void send();
});
input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void send();
  } else if (event.key === "Escape") {
    event.preventDefault();
    stop();
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && event.target !== input) stop();
});
byId("stop").addEventListener("click", stop);
byId("attach").addEventListener("click", () => fileInput.click());
fileInput.addEventListener("change", () => {
  attach([...(fileInput.files ?? [])]);
  fileInput.value = "";
});
input.addEventListener("paste", (event) => {
  const files = [...(event.clipboardData?.files ?? [])];
  if (files.length === 0) return;
  event.preventDefault();
  attach(files);
});
byId("composer").addEventListener("dragover", (event) => event.preventDefault());
byId("composer").addEventListener("drop", (event) => {
  const files = [...(event.dataTransfer?.files ?? [])];
  if (files.length === 0) return;
  event.preventDefault();
  attach(files);
});
byId("toggle-tapes").addEventListener("click", () => {
  showTapes(!document.body.classList.contains("tapes-open"));
});
byId("show-chat").addEventListener("click", () => showView(false));
byId("more-tapes").addEventListener("click", () => void loadTapes(true));
byId("search").addEventListener("submit", (event) => {
  event.preventDefault();
  if (tapeName) void openTape(tapeName, tapeLabel, byId<HTMLInputElement>("q").value);
});
// The list follows the store: after each turn (answered, failed or stopped) and every 15 s.
view.onDone = () => void loadTapes().catch(() => {});
setInterval(() => {
  if (document.visibilityState === "visible" && hasToken) void loadTapes().catch(() => {});
}, 15_000);
if (hasToken) {
  view.connect(chat);
  loadTapes().catch((error) => view.error((error as Error).message));
} else {
  view.error("No access token: open the URL that `bub web` printed (it ends with #token=…)");
}
