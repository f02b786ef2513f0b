/**
 * The chat platform settings: `channels.<platform>` in config.yml under `BUB_<PLATFORM>_*`
 * variables, the shared webhook server's `webhook_host` / `webhook_port`, and config.yml
 * validation naming the bad key.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  loadChatPlatformSettings,
  loadWebhookSettings,
} from "../../../src/builtin/chat_settings.ts";
import { chatChannels } from "../../../src/builtin/chat_channels.ts";
import { registerBuiltinConfigSections } from "../../../src/builtin/settings.ts";
import { misspeltSettings } from "../../../src/builtin/misspelt_settings.ts";
import { validateConfig } from "../../../src/kernel/configure.ts";
import { BubError } from "../../../src/kernel/errors.ts";

function configError(pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(BubError.isInstance(error), String(error));
    assert.equal((error as BubError).kind, "config");
    assert.match((error as BubError).message, pattern);
    return true;
  };
}

describe("chat platform settings", () => {
  test("YAML channels.slack is read, and BUB_SLACK_* variables win over it", () => {
    const settings = loadChatPlatformSettings("slack", {
      env: { BUB_SLACK_ALLOW_USERS: "U1,U2", BUB_SLACK_API_BASE: "http://127.0.0.1:1/api/" },
      config: {
        channels: { slack: { bot_token: "xoxb-yaml", signing_secret: "s", allow_users: "U9" } },
      },
    });
    assert.equal(settings.bot_token, "xoxb-yaml");
    assert.equal(settings.signing_secret, "s");
    assert.equal(settings.allow_users, "U1,U2");
    assert.equal(settings.api_base, "http://127.0.0.1:1/api/");
    assert.equal(settings.allow_channels, null);
  });

  test("GitHub reads token, webhook_secret and user_name (default bub); a YAML list is a comma list", () => {
    const settings = loadChatPlatformSettings("github", {
      env: { BUB_GITHUB_TOKEN: "ghp_env" },
      config: {
        channels: { github: { webhook_secret: "w", allow_channels: ["acme/app", "a/b"] } },
      },
    });
    assert.equal(settings.token, "ghp_env");
    assert.equal(settings.webhook_secret, "w");
    assert.equal(settings.user_name, "bub");
    assert.equal(settings.allow_channels, "acme/app,a/b");
  });

  test("Discord reads bot_token, public_key, application_id and api_base from YAML and BUB_DISCORD_*", () => {
    const settings = loadChatPlatformSettings("discord", {
      env: { BUB_DISCORD_PUBLIC_KEY: "ab".repeat(32), BUB_DISCORD_ALLOW_CHANNELS: "9,8" },
      config: {
        channels: {
          discord: { bot_token: "bot-yaml", application_id: "42", api_base: "http://x/api/v10" },
        },
      },
    });
    assert.equal(settings.bot_token, "bot-yaml");
    assert.equal(settings.public_key, "ab".repeat(32));
    assert.equal(settings.application_id, "42");
    assert.equal(settings.api_base, "http://x/api/v10");
    assert.equal(settings.allow_channels, "9,8");
    assert.equal(settings.allow_users, null);
    registerBuiltinConfigSections();
    assert.throws(
      () => validateConfig({ channels: { discord: { public_key: 7 } } }),
      configError(/channels\.discord\.public_key/),
    );
  });

  test("the webhook server defaults to 127.0.0.1:8788; BUB_WEBHOOK_PORT outside 0..65535 is refused", () => {
    assert.deepEqual(loadWebhookSettings({}), { webhook_host: "127.0.0.1", webhook_port: 8788 });
    assert.equal(loadWebhookSettings({ config: { webhook_port: 9000 } }).webhook_port, 9000);
    assert.throws(
      () => loadWebhookSettings({ env: { BUB_WEBHOOK_PORT: "70000" } }),
      configError(/webhook_port must be at most 65535/),
    );
  });

  test("config.yml validation names a bad channels key and a channels section that is no mapping", () => {
    registerBuiltinConfigSections();
    assert.throws(
      () => validateConfig({ channels: { slack: { bot_token: 5 } } }),
      configError(/channels\.slack\.bot_token/),
    );
    assert.throws(
      () => validateConfig({ channels: "slack" }),
      configError(/section "channels" must be a mapping/),
    );
    assert.doesNotThrow(() => validateConfig({ channels: { slack: { bot_token: "x" } } }));
    assert.deepEqual(misspeltSettings({ channels: {} }), []);
  });

  test("only the platforms with credentials are enabled, under their names", () => {
    const none = chatChannels(() => Promise.resolve(), {});
    assert.deepEqual(none.map((channel) => [channel.name, channel.enabled]), [
      ["slack", false],
      ["github", false],
      ["discord", false],
      ["linear", false],
      ["gchat", false],
    ]);
    const github = chatChannels(() => Promise.resolve(), { env: { BUB_GITHUB_TOKEN: "ghp_1" } });
    assert.deepEqual(github.filter((c) => c.enabled).map((c) => c.name), ["github"]);
    const linear = chatChannels(() => Promise.resolve(), {
      config: { channels: { linear: { access_token: "lin_oauth_1" } } },
    });
    assert.deepEqual(linear.filter((c) => c.enabled).map((c) => c.name), ["linear"]);
    const gchat = chatChannels(() => Promise.resolve(), {
      env: { BUB_GCHAT_CREDENTIALS: "/etc/bub/service-account.json" },
    });
    assert.deepEqual(gchat.filter((c) => c.enabled).map((c) => c.name), ["gchat"]);
  });
});
