/**
 * The web console's page: one HTML document plus the script and stylesheet bundled from
 * `page/` (browser TypeScript, no framework, no CDN) into `_page_bundle.ts` by
 * `scripts/build_web.ts`. The script renders every model, tool and tape string as text nodes,
 * and the page loads no inline script (the CSP forbids it).
 *
 * @module
 */
export { PAGE_CSS, PAGE_JS } from "./_page_bundle.ts";

/** The page's icon (`/favicon.svg`): Bub's "B" on a rounded square. */
export const FAVICON_SVG: string = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">` +
  `<rect width="32" height="32" rx="7" fill="#2f5fb3"/>` +
  `<text x="16" y="23" font-family="system-ui,sans-serif" font-size="20" font-weight="700" ` +
  `fill="#fff" text-anchor="middle">B</text></svg>`;

/** The HTML document. */
export const PAGE_HTML: string = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Bub console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/app.css"></head>
<body><aside><h1>Bub</h1><h2>Tapes</h2><ul id="tapes"></ul><button id="more-tapes" type="button" hidden>More</button></aside>
<main><nav><button id="toggle-tapes" type="button" aria-controls="tapes" aria-expanded="false">Tapes</button>
<button id="show-chat" type="button">Chat</button>
<span id="chat-label"></span></nav>
<section id="chat"><div id="log"></div>
<form id="composer"><div id="attachments" hidden></div><textarea id="input" rows="3" placeholder="Message (Enter sends, Shift+Enter newline, Esc stops; paste or drop files to attach)"></textarea>
<input id="files" type="file" multiple hidden><button id="attach" type="button" title="Attach files">Attach</button>
<button id="send" type="submit">Send</button><button id="stop" type="button">Stop</button></form></section>
<section id="tape" hidden><form id="search"><input id="q" placeholder="Search the tape">
<button type="submit">Search</button></form><h2 id="tape-name"></h2><span id="tape-count" class="meta"></span><ol id="entries"></ol></section>
</main><script type="module" src="/app.js"></script></body></html>
`;
