/**
 * Runs one soak row in this process and prints `result <json>` (a `RowResult`) as its last line.
 * `bench/soak.ts` starts one of these per row, so every row gets a fresh process to measure and a
 * row that crashes cannot take the others down.
 *
 * Usage: _soak_row.ts <row> <quick: 0|1>
 *
 * @module
 */
import process from "node:process";
import { ROWS } from "./_soak_rows.ts";

const [name, quick] = process.argv.slice(2);
const row = ROWS[name ?? ""];
if (!row) {
  process.stderr.write(`Unknown soak row ${JSON.stringify(name)}\n`);
  process.exit(2);
}
const result = await row({ quick: quick === "1" });
process.stdout.write(`result ${JSON.stringify(result)}\n`);
process.exit(0);
