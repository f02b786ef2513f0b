/**
 * Turn admission of the channel manager: resolve the session, ask the `admitMessage` hooks and
 * apply the decision (`process`, `drop`, `follow_up`, `steer`).
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import type { AdmitDecision } from "../kernel/channel.ts";
import { type Envelope, writeSessionId } from "../kernel/envelope.ts";
import { inboundOf } from "../kernel/inbound.ts";
import type { KernelFramework } from "../kernel/framework.ts";
import type { TurnState } from "../kernel/turn.ts";
import type { SessionTurnController } from "./_session_controller.ts";

const logger = getLogger(["bub", "channels"]);

/** What admission needs of the framework. */
export type AdmissionFramework = Pick<
  KernelFramework,
  "resolveSession" | "admitMessage" | "steerMessage" | "hookRuntime"
>;

/** What admission needs of the manager. */
export interface AdmissionHost {
  /** The framework. */
  readonly framework: AdmissionFramework;
  /** The session's controller, created on first use. */
  controllerFor(sessionId: string): SessionTurnController;
  /** Forgets the controller when it has no task and no pending message. */
  dropIfEmpty(controller: SessionTurnController): void;
}

/** The admission state: `session_id`, plus `_runtime_thread_id` from a truthy `context.thread_id`. */
export function admissionState(message: Envelope, sessionId: string): TurnState {
  const state: TurnState = { session_id: sessionId };
  const thread = inboundOf(message).context.thread_id;
  if (thread) state._runtime_thread_id = thread;
  return state;
}

/**
 * Admits `message`; true means "schedule it now". A failing `resolveSession` drops the message
 * (stage `resolve_session` is notified); a failing `admitMessage` processes it (stage
 * `admit_message`). Never enters the message's lifespan.
 */
export async function admitInbound(host: AdmissionHost, message: Envelope): Promise<boolean> {
  const framework = host.framework;
  let sessionId: string;
  try {
    sessionId = await framework.resolveSession(message);
  } catch (error) {
    logger.error("Failed to resolve the session of an inbound message: {error}", { error });
    await framework.hookRuntime.notifyError({ stage: "resolve_session", error, message });
    return false;
  }
  writeSessionId(message, sessionId, "overwrite");
  const controller = host.controllerFor(sessionId);
  const state = admissionState(message, sessionId);
  let decision: AdmitDecision | null;
  try {
    decision = await framework.admitMessage({
      sessionId,
      message,
      turn: controller.snapshot(state),
    });
  } catch (error) {
    logger.error("admit_message failed for session {sessionId}: {error}", { sessionId, error });
    await framework.hookRuntime.notifyError({ stage: "admit_message", error, message });
    return true;
  }
  if (decision === null || decision === undefined) {
    host.dropIfEmpty(controller);
    return true;
  }
  const result = await apply(framework, controller, message, state, decision);
  if (!result || !controller.isRunning) host.dropIfEmpty(controller);
  return result;
}

async function apply(
  framework: AdmissionFramework,
  controller: SessionTurnController,
  message: Envelope,
  state: TurnState,
  decision: AdmitDecision,
): Promise<boolean> {
  const sessionId = controller.sessionId;
  const reason = decision.reason ?? null;
  switch (decision.action) {
    case "process":
      return true;
    case "drop":
      logger.info("session.admission drop session_id={sessionId} reason={reason}", {
        sessionId,
        reason,
      });
      return false;
    case "follow_up":
      return followUp(controller, message);
    case "steer":
      if (
        controller.isRunning && await framework.steerMessage({ message, sessionId, state, reason })
      ) {
        logger.info("session.admission steer session_id={sessionId} reason={reason}", {
          sessionId,
          reason,
        });
        return false;
      }
      return followUp(controller, message);
    default:
      logger.warn(
        "Unknown admission action {action} for session {sessionId}; processing the message",
        {
          action: (decision as { action: unknown }).action,
          sessionId,
        },
      );
      return true;
  }
}

function followUp(controller: SessionTurnController, message: Envelope): boolean {
  if (!controller.isRunning) return true;
  controller.addPending(message);
  logger.info("session.admission follow_up session_id={sessionId} pending={pending}", {
    sessionId: controller.sessionId,
    pending: controller.pendingCount,
  });
  return false;
}
