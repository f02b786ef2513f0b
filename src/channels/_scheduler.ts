/**
 * Turn scheduling of the channel manager: per-session controllers, turn tasks with their own
 * abort controllers, completion callbacks that run pending messages one at a time, `quit` and
 * cancellation.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { abortable } from "../_internal/async.ts";
import { getLogger } from "../_internal/log.ts";
import type { TurnSnapshot } from "../kernel/channel.ts";
import type { Envelope } from "../kernel/envelope.ts";
import { inboundOf } from "../kernel/inbound.ts";
import type { KernelFramework } from "../kernel/framework.ts";
import { SessionTurnController, TurnTask } from "./_session_controller.ts";

const logger = getLogger(["bub", "channels"]);

/** What scheduling needs of the framework. */
export type SchedulerFramework = Pick<KernelFramework, "processInbound" | "getSteeringInbox">;

/** Session controllers and turn tasks. */
export class TurnScheduler {
  #framework: SchedulerFramework;
  #stream: boolean;
  #controllers = new Map<string, SessionTurnController>();
  #current = new AsyncLocalStorage<TurnTask>();
  #closing = false;

  /** @param framework runs the turns @param stream consume the model as a stream */
  constructor(framework: SchedulerFramework, stream: boolean) {
    this.#framework = framework;
    this.#stream = stream;
  }

  /** Re-enables scheduling of pending messages after {@link cancelAll}. */
  reopen(): void {
    this.#closing = false;
  }

  /** The session's snapshot, or null without a controller. */
  snapshot(sessionId: string): TurnSnapshot | null {
    const controller = this.#controllers.get(sessionId);
    return controller ? controller.snapshot({ session_id: sessionId }) : null;
  }

  /** The session's controller, created (capturing the current steering inbox) on first use. */
  controllerFor(sessionId: string): SessionTurnController {
    let controller = this.#controllers.get(sessionId);
    if (!controller) {
      controller = new SessionTurnController(sessionId, this.#framework.getSteeringInbox());
      this.#controllers.set(sessionId, controller);
    }
    return controller;
  }

  /** Forgets `controller` when it has no task and no pending message. */
  dropIfEmpty(controller: SessionTurnController): void {
    if (controller.isEmpty && this.#controllers.get(controller.sessionId) === controller) {
      this.#controllers.delete(controller.sessionId);
    }
  }

  /** Runs `message` as a task of its session (by its `sessionId`); resolves when it ends. */
  schedule(message: Envelope): Promise<void> {
    const sessionId = String(inboundOf(message).sessionId);
    return this.#scheduleIn(this.controllerFor(sessionId), message);
  }

  #scheduleIn(controller: SessionTurnController, message: Envelope): Promise<void> {
    const task = new TurnTask(controller.sessionId, message);
    controller.tasks.add(task);
    const run = this.#current.run(task, () => this.#runMessage(controller, task));
    task.promise = run.then(
      () => this.#taskDone(controller, task, undefined),
      (error) => this.#taskDone(controller, task, error ?? new Error("Turn failed")),
    );
    return task.promise;
  }

  async #runMessage(controller: SessionTurnController, task: TurnTask): Promise<void> {
    const result = await this.#framework.processInbound(task.message, {
      stream: this.#stream,
      signal: task.signal,
    });
    const inbox = this.#framework.getSteeringInbox() ?? controller.inbox;
    if (!inbox) return;
    const state = "session_id" in result.state
      ? result.state
      : { ...result.state, session_id: result.sessionId };
    const leftovers = await inbox.drainMessages(state);
    if (leftovers.length === 0) return;
    const target = this.controllerFor(controller.sessionId);
    for (const message of leftovers) target.addPending(message);
    logger.info("session.steering leftovers session_id={sessionId} count={count}", {
      sessionId: controller.sessionId,
      count: leftovers.length,
    });
  }

  #taskDone(controller: SessionTurnController, task: TurnTask, error: unknown): void {
    const sessionId = controller.sessionId;
    if (task.signal.aborted) {
      logger.info("session.turn cancelled session_id={sessionId}", { sessionId });
    } else if (error !== undefined) {
      logger.debug("session.turn failed session_id={sessionId}: {error}", { sessionId, error });
    }
    controller.tasks.delete(task);
    const live = this.#controllers.get(sessionId) ?? controller;
    if (!live.isRunning && !this.#closing) {
      const next = live.popPending();
      if (next !== null) void this.#scheduleIn(this.controllerFor(sessionId), next);
    }
    this.dropIfEmpty(live);
  }

  /** Clears the session's pending queue; cancels and awaits its tasks except the caller's. */
  async quit(sessionId: string): Promise<number> {
    const controller = this.#controllers.get(sessionId);
    if (!controller) return 0;
    controller.clearPending();
    const current = this.#current.getStore();
    const targets = [...controller.tasks].filter((task) => task !== current);
    for (const task of targets) task.cancel(`Session ${sessionId} quit`);
    // A caller cancelled meanwhile (e.g. by a concurrent quit) stops waiting: the two would
    // otherwise wait on each other forever.
    await abortable(Promise.all(targets.map((task) => task.promise)), current?.signal);
    for (const task of targets) controller.tasks.delete(task);
    this.dropIfEmpty(controller);
    return targets.length;
  }

  /** Clears every pending queue, cancels and awaits every task, forgets every controller. */
  async cancelAll(): Promise<void> {
    this.#closing = true;
    const tasks: TurnTask[] = [];
    for (const controller of this.#controllers.values()) {
      controller.clearPending();
      tasks.push(...controller.tasks);
    }
    for (const task of tasks) task.cancel("Channel manager shutting down");
    await Promise.all(tasks.map((task) => task.promise));
    this.#controllers.clear();
  }
}
