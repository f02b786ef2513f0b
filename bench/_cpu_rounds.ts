/**
 * CPU per turn in alternating rounds (`turn_loop.ts`): each variant warmed up,
 * then `rounds` rounds of `n` turns of Bub and of the raw client in turn, CPU ms per turn of this
 * process for each round.
 *
 * @module
 */
import process from "node:process";
import type { Turn } from "./_turn_raw.ts";

/** Runs turns and measures them; turn numbers go on across calls. */
export class CpuRounds {
  #turn = 0;

  /** CPU ms per turn of this process over `n` turns of `run`. */
  async round(run: Turn, n: number): Promise<number> {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) await run(this.#turn++);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000 / n;
  }

  /** `warmup` turns of each, then `rounds` alternating rounds of `n` turns of each. */
  async alternate(
    bub: Turn,
    raw: Turn,
    options: { warmup: number; n: number; rounds: number },
  ): Promise<{ bub: number[]; raw: number[] }> {
    await this.round(bub, options.warmup);
    await this.round(raw, options.warmup);
    const out = { bub: [] as number[], raw: [] as number[] };
    for (let r = 0; r < options.rounds; r++) {
      out.bub.push(await this.round(bub, options.n));
      out.raw.push(await this.round(raw, options.n));
    }
    return out;
  }
}
