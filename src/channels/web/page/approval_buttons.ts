/**
 * Approve / Always / Deny buttons for a call held for approval: they post the same comma
 * commands a user would type (`,approve <id>`, `,approve <id> always`, `,deny <id>`), and are
 * disabled once one was pressed.
 *
 * @module
 */
import { el } from "./dom.ts";

/** The approval ids a turn's text asks about (`,approve <id>`), in order, each once. */
export function approvalIds(text: string): string[] {
  const ids: string[] = [];
  for (const [, id] of text.matchAll(/,approve ([a-z2-7]{10})\b/g)) {
    if (!ids.includes(id!)) ids.push(id!);
  }
  return ids;
}

/** The buttons of approval `id`; `post` sends a comma command as the user's message. */
export function approvalBar(id: string, post: (content: string) => Promise<void>): HTMLElement {
  const bar = el("div", "approval");
  bar.dataset.approval = id;
  const choices: [string, string][] = [
    ["Approve", `,approve ${id}`],
    ["Always", `,approve ${id} always`],
    ["Deny", `,deny ${id}`],
  ];
  const buttons = choices.map(([label, command]) => {
    const button = el("button", `approval-${label.toLowerCase()}`, label);
    button.type = "button";
    button.addEventListener("click", () => {
      for (const other of buttons) other.disabled = true;
      post(command).catch(() => {
        for (const other of buttons) other.disabled = false;
      });
    });
    return button;
  });
  bar.append(el("span", "meta", `approval ${id}`), ...buttons);
  return bar;
}
