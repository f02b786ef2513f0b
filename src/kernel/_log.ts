import { type BubLogger as Logger, getLogger } from "../_internal/log.ts";

/** The kernel's logger (`["bub", "kernel"]`). */
export const kernelLogger: Logger = getLogger(["bub", "kernel"]);
/** Observer failures (`["bub", "meta"]`); never breaks a turn. */
export const metaLogger: Logger = getLogger(["bub", "meta"]);
