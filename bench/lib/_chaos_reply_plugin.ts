/**
 * The bench reply plugin (`_telegram_reply.ts`) as a module `bub gateway` loads through `plugins:`
 * in config.yml (the chaos bench's cluster row, `_chaos_cluster.ts`).
 *
 * @module
 */
export { telegramReplyPlugin as plugin } from "./_telegram_reply.ts";
