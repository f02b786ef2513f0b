/**
 * Bub's Bot Framework authentication of Teams activities and the bot's token, against the fake
 * Teams' OpenID metadata, JWKS and token endpoint: the checks the gateway test does not reach
 * (lifetime, issuer, key endorsements, caching, a refused password).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { BotFrameworkAuth } from "../../../src/channels/chat/_teams_auth.ts";
import { BubError } from "../../../src/kernel/errors.ts";
import { FakeTeamsServer, type TeamsDeliveryOptions } from "../../../src/testing/fake_teams.ts";

describe("Bot Framework authentication of the Teams channel", () => {
  let teams: FakeTeamsServer;
  const ADA = { id: "29:ada", name: "Ada", aadObjectId: "aad-ada" };
  const SCOPE = "https://api.botframework.com/.default";

  before(async () => {
    teams = await FakeTeamsServer.start();
  });

  after(async () => {
    await teams?.close();
  });

  function auth(overrides: { appPassword?: string; tenantId?: string } = {}): BotFrameworkAuth {
    return new BotFrameworkAuth({
      appId: teams.appId,
      appPassword: overrides.appPassword ?? teams.appPassword,
      tenantId: overrides.tenantId ?? "",
      apiBase: teams.apiBase,
    });
  }

  async function verify(
    checker: BotFrameworkAuth,
    activity: Record<string, unknown>,
    options: TeamsDeliveryOptions = {},
  ): Promise<boolean> {
    const authorization = await teams.authorization(activity, options);
    const request = new Request("http://127.0.0.1/webhooks/teams", {
      method: "POST",
      headers: authorization === null ? {} : { authorization },
    });
    return await checker.verify(request, JSON.stringify(activity));
  }

  test("a token past its 5-minute skew, of another issuer, or by a key not endorsed for the channel is refused", async () => {
    const checker = auth();
    const keysBefore = teams.callsOf("GET /v1/.well-known/keys").length;
    const activity = teams.message(ADA, "hi");
    assert.equal(await verify(checker, activity), true);
    assert.equal(await verify(checker, activity, { expiresIn: -200 }), true);
    assert.equal(await verify(checker, activity, { expiresIn: -400 }), false);
    assert.equal(await verify(checker, activity, { issuer: "https://sts.example.test" }), false);
    // The fake's key, like Bot Framework's, is endorsed for msteams only.
    assert.equal(await verify(checker, { ...activity, channelId: "webchat" }), false);
    // The keys are fetched once for all of these.
    assert.equal(teams.callsOf("GET /v1/.well-known/keys").length, keysBefore + 1);
  });

  test("the bot's token is fetched once and reused, from botframework.com or the app's own tenant", async () => {
    const grants = () => teams.callsOf("POST /{tenant}/oauth2/v2.0/token").length;
    const before = grants();
    const multi = auth();
    const first = await multi.token(SCOPE);
    assert.equal(await multi.token(SCOPE), first);
    // The SDK may name a tenant (an environment's TENANT_ID): a multi-tenant bot's token still
    // comes from botframework.com.
    assert.equal(await multi.token(SCOPE, "11111111-2222-3333-4444-555555555555"), first);
    assert.equal(grants(), before + 1);
    await auth({ tenantId: teams.tenantId }).token(SCOPE);
    assert.equal(
      teams.callsOf("POST /{tenant}/oauth2/v2.0/token").at(-1)!.params.__path,
      `/${teams.tenantId}/oauth2/v2.0/token`,
    );
  });

  test("a refused password is a config error naming the app, never the password", async () => {
    const password = "not-the-app-password-123";
    await assert.rejects(auth({ appPassword: password }).token(SCOPE), (error: unknown) => {
      assert.ok(BubError.isInstance(error), String(error));
      assert.equal(error.kind, "config");
      assert.match(error.message, new RegExp(teams.appId));
      assert.ok(!String(error).includes(password));
      return true;
    });
  });
});
