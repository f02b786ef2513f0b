/**
 * The settings of a gateway answering a fake platform (its credentials and the endpoints pointed
 * at the fake), shared by the gateway tests of that platform.
 *
 * @module
 */
import type { FakeGChatServer } from "../../../src/testing/fake_gchat.ts";
import type { FakeTeamsServer } from "../../../src/testing/fake_teams.ts";

/** The settings of a gateway answering the fake Google Chat `gchat`. */
export function gchatEnv(gchat: FakeGChatServer): Record<string, string> {
  return {
    BUB_GCHAT_CREDENTIALS: gchat.credentials,
    BUB_GCHAT_PROJECT_NUMBER: gchat.projectNumber,
    BUB_GCHAT_BOT_USER_ID: gchat.bot.name,
    BUB_GCHAT_API_BASE: gchat.apiBase,
    BUB_GCHAT_TOKEN_URL: gchat.tokenUrl,
    BUB_GCHAT_CERTS_URL: gchat.certsUrl,
    // Both audiences: the project number (Chat's own tokens) and the endpoint URL (add-ons).
    BUB_GCHAT_ENDPOINT_URL: gchat.endpointUrl,
    BUB_GCHAT_ADDON_SERVICE_ACCOUNT: gchat.addOnAccount,
    BUB_GCHAT_OIDC_CERTS_URL: gchat.oidcCertsUrl,
  };
}

/** The settings of a gateway answering the fake Teams `teams`. */
export function teamsEnv(teams: FakeTeamsServer): Record<string, string> {
  return {
    BUB_TEAMS_APP_ID: teams.appId,
    BUB_TEAMS_APP_PASSWORD: teams.appPassword,
    BUB_TEAMS_API_BASE: teams.apiBase,
  };
}
