/**
 * Private: the Bot Connector side of the fake Teams (under `<apiBase>/teams/`): the activities a
 * bot sends and updates, kept with their latest text and cards, and the member lookups the
 * adapter makes.
 *
 * @module
 */
import type { TeamsButtonData } from "./_teams_activities.ts";

/**
 * An activity the bot sent (its latest text and attachments), with its updates.
 *
 * @example
 * ```ts
 * import type { FakeTeamsActivity } from "@bub/core/testing";
 * const sent: FakeTeamsActivity = {
 *   id: "m1", conversation: "a:dm", type: "message", text: "hi", attachments: [], updates: 0,
 * };
 * ```
 */
export interface FakeTeamsActivity {
  /** The id the fake gave it. */
  readonly id: string;
  /** Its conversation id. */
  readonly conversation: string;
  /** `message` or `typing`. */
  readonly type: string;
  /** Its latest text. */
  text: string;
  /** Its latest attachments (Adaptive Cards: `{ contentType, content }`). */
  attachments: { contentType?: string; content?: unknown }[];
  /** How often it was updated (`PUT`). */
  updates: number;
  /** Whether the bot deleted it. */
  deleted?: boolean;
}

/**
 * An `Action.Submit` button of a card the bot sent.
 *
 * @example
 * ```ts
 * import type { FakeTeamsButton } from "@bub/core/testing";
 * const button: FakeTeamsButton = {
 *   actionId: "bub_deny", value: ",deny abcdefghij", title: "Deny", messageId: "m3",
 * };
 * ```
 */
export interface FakeTeamsButton extends TeamsButtonData {
  /** The button's title. */
  readonly title: string;
  /** The id of the card's activity. */
  readonly messageId: string;
}

const ACTIVITY = /^\/teams\/v3\/conversations\/([^/]+)\/activities(?:\/([^/?]+))?$/;
const MEMBER = /^\/teams\/v3\/conversations\/([^/]+)\/members\/([^/]+)$/;

/** The logged name of a Bot Connector request (`POST /teams/v3/conversations/{conversation}/activities`), else null. */
export function connectorMethod(verb: string, path: string): string | null {
  const activity = ACTIVITY.exec(path);
  if (activity) {
    return `${verb} /teams/v3/conversations/{conversation}/activities${
      activity[2] ? "/{activity}" : ""
    }`;
  }
  return MEMBER.test(path)
    ? `${verb} /teams/v3/conversations/{conversation}/members/{member}`
    : null;
}

/** The activities a bot sent through the fake Bot Connector. */
export class TeamsConnector {
  #nextId = 1;
  #activities: FakeTeamsActivity[] = [];

  /** The activities sent to `conversation` (typing included), in order. */
  activitiesIn(conversation: string): FakeTeamsActivity[] {
    return this.#activities.filter((activity) => activity.conversation === conversation);
  }

  /** The `Action.Submit` buttons of the cards sent to `conversation`. */
  buttonsIn(conversation: string): FakeTeamsButton[] {
    const buttons: FakeTeamsButton[] = [];
    for (const activity of this.activitiesIn(conversation)) {
      for (const attachment of activity.attachments) {
        const actions = (attachment.content as { actions?: unknown[] } | undefined)?.actions ?? [];
        for (
          const action of actions as { type?: string; title?: string; data?: TeamsButtonData }[]
        ) {
          if (action.type !== "Action.Submit" || !action.data?.actionId) continue;
          buttons.push({ ...action.data, title: action.title ?? "", messageId: activity.id });
        }
      }
    }
    return buttons;
  }

  /** The status and body answering an authorized Bot Connector request. */
  answer(verb: string, path: string, params: Record<string, unknown>): [number, unknown] {
    const member = MEMBER.exec(path);
    if (member && verb === "GET") {
      const id = decodeURIComponent(member[2]!);
      return [200, { id, name: id, userPrincipalName: `${id}@example.test` }];
    }
    const activity = ACTIVITY.exec(path);
    const attachments = (params.attachments as FakeTeamsActivity["attachments"]) ?? [];
    if (activity && verb === "POST") {
      const sent: FakeTeamsActivity = {
        id: `m${this.#nextId++}`,
        conversation: decodeURIComponent(activity[1]!),
        type: String(params.type ?? "message"),
        text: String(params.text ?? ""),
        attachments,
        updates: 0,
      };
      this.#activities.push(sent);
      return [201, { id: sent.id }];
    }
    if (activity?.[2] && verb === "PUT") {
      const sent = this.#activities.find((a) => a.id === activity[2]);
      if (!sent) return [404, { error: { code: "ActivityNotFound" } }];
      sent.text = String(params.text ?? "");
      sent.attachments = attachments;
      sent.updates++;
      return [200, { id: sent.id }];
    }
    if (activity?.[2] && verb === "DELETE") {
      const sent = this.#activities.find((a) => a.id === activity[2]);
      if (!sent) return [404, { error: { code: "ActivityNotFound" } }];
      sent.deleted = true;
      return [200, {}];
    }
    return [404, { error: { code: "NotFound", message: `${verb} ${path}` } }];
  }
}
