/** The soak rows by name, in table order (`bench/soak.ts --only=<name>`). @module */
import type { RowOptions, RowResult } from "./_soak_common.ts";
import { gatewayRow } from "./_soak_gateway.ts";
import { killRow } from "./_soak_kill.ts";
import { concurrentCommandsRow, runawayOutputRow } from "./_soak_shell.ts";

/** A row: runs in its own process and returns one line of the table. */
export type Row = (options: RowOptions) => Promise<RowResult>;

/** The rows by name, in table order. */
export const ROWS: Readonly<Record<string, Row>> = {
  "kill-file": (options) => killRow("file", options),
  "kill-sqlite": (options) => killRow("sqlite", options),
  gateway: gatewayRow,
  commands: concurrentCommandsRow,
  output: runawayOutputRow,
};
