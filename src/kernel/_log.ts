import { getLogger, type Logger } from "@logtape/logtape";

/** The kernel's logger (`["bub", "kernel"]`). */
export const kernelLogger: Logger = getLogger(["bub", "kernel"]);
/** Observer failures (`["bub", "meta"]`); never breaks a turn. */
export const metaLogger: Logger = getLogger(["bub", "meta"]);
