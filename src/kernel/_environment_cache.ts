import { kernelLogger } from "./_log.ts";
import type { Environment } from "./environment.ts";
import { checkHookResult } from "./hook_results.ts";

/**
 * One environment (or null) per session id, asked of a provider once; a concurrent loser is
 * closed and the winner returned.
 */
export class EnvironmentCache {
  #entries = new Map<string, Environment | null>();

  /** The cached environment of `sessionId`, or the provider's answer (validated, then cached). */
  async get(sessionId: string, provide: () => Promise<unknown>): Promise<Environment | null> {
    if (this.#entries.has(sessionId)) return this.#entries.get(sessionId)!;
    const value = checkHookResult("provideEnvironment", await provide());
    if (this.#entries.has(sessionId)) {
      const winner = this.#entries.get(sessionId)!;
      if (value !== null && value !== winner) await value.close();
      return winner;
    }
    this.#entries.set(sessionId, value);
    return value;
  }

  /** Empties the cache, then closes every environment concurrently; failures are logged. */
  async closeAll(): Promise<void> {
    const environments = [...this.#entries.values()].filter((env): env is Environment =>
      env !== null
    );
    this.#entries.clear();
    await Promise.all(environments.map(async (env) => {
      try {
        await env.close();
      } catch (error) {
        kernelLogger.warn("Failed to close environment {env}: {error}", {
          env: env.constructor.name,
          error,
        });
      }
    }));
  }
}
