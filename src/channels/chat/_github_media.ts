/**
 * Media on GitHub. In: images and files in an issue or pull-request comment are links to
 * GitHub's attachment URLs (`github.com/user-attachments/assets/<id>`,
 * `github.com/user-attachments/files/<id>/<name>`, the older `github.com/<owner>/<repo>/assets/…`
 * and `…/files/…`, and `user-images.githubusercontent.com` / `private-user-images.githubusercontent.com`
 * image URLs, whose `jwt` signs them). The bot's token goes to the github.com attachment URLs only
 * (a private repository's attachment answers 404 without it), and to the same paths on the
 * `api_base` host (GitHub Enterprise Server, tests) — never to a githubusercontent.com host. An
 * attachment URL redirects to a signed storage URL (`private-user-images.githubusercontent.com`
 * or `objects.githubusercontent.com` with a `jwt`, an S3 `github-production-…` bucket); that one
 * hop is followed without the token, and only to those hosts.
 *
 * Out: GitHub has no REST API to attach a file to a comment (its web uploads use a browser
 * session), so an answer's files cannot be posted: the comment names them with type and size
 * instead, and http(s) URLs of media stay links.
 *
 * @module
 */
import { hostOf, type MediaSource } from "./_media_fetch.ts";
import { linksMarkdown, type OutboundMedia, unsentNote } from "./_outbound_media.ts";

/** GitHub's attachment hosts. */
export const GITHUB_FILE_HOSTS: readonly string[] = [
  "github.com",
  "user-images.githubusercontent.com",
  "private-user-images.githubusercontent.com",
];

/** Attachment paths on github.com (and the `api_base` host). */
const ATTACHMENT_PATH =
  /^\/(?:user-attachments\/(?:assets|files)\/[^/]+|[^/]+\/[^/]+\/(?:assets|files)\/\d+\/[^/]+)/;

/** Signed storage hosts an attachment URL redirects to. */
const STORAGE_HOST =
  /^(?:[a-z0-9-]+\.githubusercontent\.com|github-production-[a-z0-9-]+\.s3(?:\.[a-z0-9-]+)?\.amazonaws\.com)$/;

/** The {@link MediaSource} of GitHub with `token` (see the module doc). */
export function githubMediaSource(apiBase: string | null | undefined, token: string): MediaSource {
  const api = hostOf(apiBase);
  const tokenHosts = new Set(api === null ? ["github.com"] : ["github.com", api]);
  return {
    channel: "github",
    hosts: api === null ? [...GITHUB_FILE_HOSTS] : [...GITHUB_FILE_HOSTS, api],
    authorization: token ? `Bearer ${token}` : null,
    accepts: (url) => !tokenHosts.has(url.hostname) || ATTACHMENT_PATH.test(url.pathname),
    authorizes: (url) => tokenHosts.has(url.hostname),
    redirects: (target) =>
      (target.protocol === "https:" && STORAGE_HOST.test(target.hostname)) ||
      (api !== null && target.hostname === api),
  };
}

/** What GitHub's comment says about files it could not attach. */
export const GITHUB_UNATTACHED = "Not attached (GitHub's API cannot attach files to a comment):";

/**
 * The Markdown an answer's media adds to its GitHub comment: links for http(s) URLs, and a note
 * naming each file (type, size) that could not be attached; "" when there is no media.
 */
export function githubMediaMarkdown(media: OutboundMedia): string {
  const files = [
    ...media.files.map((file) => ({
      filename: file.filename,
      mimeType: file.mimeType,
      size: file.data.byteLength,
      tooLarge: false,
    })),
    ...media.unsent,
  ];
  return [...linksMarkdown(media.links), unsentNote(GITHUB_UNATTACHED, files)]
    .filter((part) => part !== "")
    .join("\n\n");
}
