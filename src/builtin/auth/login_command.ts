/**
 * `bub login [provider]` and `bub logout [provider]`: sign in with a subscription (today
 * `openai`: a ChatGPT plan, through the Codex client's OAuth flows), show the logins, remove one.
 * The tokens are stored in `<BUB_HOME>/auth/openai.json` (mode 0600), where the `openai-codex`
 * provider reads and refreshes them.
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { BubError } from "../../kernel/errors.ts";
import type { KernelFramework } from "../../kernel/framework.ts";
import { OpenAIAuth, type OpenAITokens } from "../../agent/providers/openai_auth.ts";
import { subscriptionModel } from "../../agent/providers/openai_subscription.ts";
import { processDriver } from "../../environment/driver_select.ts";
import { CliExit, type CliOutput } from "../cli_io.ts";
import type { BuiltinRuntime } from "../runtime.ts";
import { callbackLogin } from "./pkce_login.ts";
import { deviceLogin } from "./device_login.ts";

/** The providers `bub login` knows. */
const PROVIDERS = ["openai"];
/** The model named in the hint after a login. */
const EXAMPLE_MODEL = "openai-codex:gpt-5.1-codex";

/** Options of `bub login` (commander's parsed flags). */
export interface LoginOptions {
  /** `--device`: the device-code flow. */
  device?: boolean;
  /** `--no-browser` sets false: print the URL, open nothing. */
  browser?: boolean;
  /** `--port <port>`: the callback port (default 1455, then 1457). */
  port?: string;
  /** `--timeout <seconds>`: the wait for the browser (default 300). */
  timeout?: string;
  /** `--status`: show the login instead. */
  status?: boolean;
  /** Stops the login (Ctrl-C). */
  signal?: AbortSignal;
}

function checkProvider(provider: string): void {
  if (!PROVIDERS.includes(provider)) {
    throw new CliExit(
      2,
      `bub: cannot log in to ${JSON.stringify(provider)}: expected one of ${PROVIDERS.join(", ")}`,
    );
  }
}

/** The login of this framework's home at the configured issuer. */
function authOf(framework: KernelFramework, runtime: BuiltinRuntime): OpenAIAuth {
  return new OpenAIAuth({
    file: join(framework.home, "auth", "openai.json"),
    issuer: runtime.settings.openai_auth_base,
  });
}

/** Whether a browser can be opened here: a terminal, and a display where one is needed. */
function browserAvailable(env: Record<string, string | undefined>): boolean {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return false;
  if (env.BROWSER) return true;
  if (env.SSH_CONNECTION || env.SSH_TTY) return false;
  if (process.platform === "linux") return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  return true;
}

/** Opens `url` in a browser (`$BROWSER`, `open`, `xdg-open`); failures are ignored. */
async function openBrowser(url: string, env: Record<string, string | undefined>): Promise<void> {
  const file = env.BROWSER ||
    (process.platform === "darwin"
      ? "open"
      : process.platform === "win32"
      ? "explorer"
      : "xdg-open");
  try {
    const child = await processDriver().spawn({ file, args: [url], cwd: null, env: null });
    child.closeStdin();
    void child.stdout.cancel().catch(() => {});
    void child.stderr.cancel().catch(() => {});
  } catch { /* the URL is printed anyway */ }
}

function positiveNumber(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) {
    throw new CliExit(2, `bub: ${flag} must be a number >= 0, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** `bub login [provider]`: signs in (or, with no provider or `--status`, shows the logins). */
export async function loginCommand(
  framework: KernelFramework,
  runtime: BuiltinRuntime,
  provider: string | undefined,
  options: LoginOptions,
  output: CliOutput,
): Promise<void> {
  if (provider === undefined || options.status) {
    await statusCommand(framework, runtime, provider ?? "openai", output);
    return;
  }
  checkProvider(provider);
  const auth = authOf(framework, runtime);
  const env = runtime.sources.env ?? process.env;
  const print = (text: string) => output.out(text);
  const browser = options.browser !== false && browserAvailable(env);
  const device = options.device === true || (options.browser !== false && !browser);
  let tokens: OpenAITokens;
  try {
    if (device) {
      if (!options.device) print("No browser here: signing in with a device code.\n");
      tokens = await deviceLogin({
        issuer: auth.issuer,
        signal: options.signal,
        showCode: ({ verificationUrl, userCode, expiresInMinutes }) =>
          print(
            `To sign in with ChatGPT, open this page on any device:\n  ${verificationUrl}\n` +
              `and enter the code (expires in ${expiresInMinutes} minutes; never share it):\n` +
              `  ${userCode}\nWaiting for the sign-in...\n`,
          ),
      });
    } else {
      const port = options.port === undefined ? null : positiveNumber(options.port, "--port", 0);
      tokens = await callbackLogin({
        issuer: auth.issuer,
        port,
        timeoutMs: positiveNumber(options.timeout, "--timeout", 300) * 1000,
        signal: options.signal,
        showUrl: (url) => {
          print(`Open this URL in a browser to sign in with ChatGPT:\n  ${url}\n`);
          if (browser) void openBrowser(url, env);
          print("Waiting for the sign-in...\n");
        },
      });
    }
    await auth.save(tokens);
  } catch (error) {
    if (error instanceof CliExit) throw error;
    const message = BubError.isInstance(error) || error instanceof Error
      ? error.message
      : String(error);
    throw new CliExit(1, `ChatGPT login failed: ${message}`);
  }
  print(
    [
      "login: ok",
      `account_id: ${tokens.account_id ?? "-"}`,
      `auth_file: ${auth.file}`,
      `usage: set BUB_MODEL=${EXAMPLE_MODEL} (or openai:<model> with no OpenAI API key configured)`,
      "",
    ].join("\n"),
  );
}

/** Whether `openai:` models use the login (no OpenAI key or base configured). */
function openaiUsesLogin(runtime: BuiltinRuntime, file: string): boolean {
  const settings = runtime.settings;
  const options = { apiKey: settings.api_key, apiBase: settings.api_base, openaiAuth: { file } };
  return subscriptionModel("openai:model", options) !== null;
}

/** `bub login --status`: the login, or exit 1 when there is none. */
async function statusCommand(
  framework: KernelFramework,
  runtime: BuiltinRuntime,
  provider: string,
  output: CliOutput,
): Promise<void> {
  checkProvider(provider);
  const auth = authOf(framework, runtime);
  const tokens = await auth.load();
  if (tokens === null) {
    throw new CliExit(1, `${provider}: not logged in (run 'bub login ${provider}')`);
  }
  const uses = openaiUsesLogin(runtime, auth.file)
    ? "openai-codex: and openai: models"
    : "openai-codex: models (openai: models use the configured API key)";
  output.out(
    [
      `${provider}: logged in`,
      `account_id: ${tokens.account_id ?? "-"}`,
      `access token expires: ${tokens.expires_at} (refreshed automatically)`,
      `auth_file: ${auth.file}`,
      `used by: ${uses}`,
      "",
    ].join("\n"),
  );
}

/** `bub logout [provider]`: removes the stored login. */
export async function logoutCommand(
  framework: KernelFramework,
  runtime: BuiltinRuntime,
  provider: string | undefined,
  output: CliOutput,
): Promise<void> {
  const name = provider ?? "openai";
  checkProvider(name);
  const auth = authOf(framework, runtime);
  if (await auth.remove()) output.out(`Logged out of ${name}: removed ${auth.file}\n`);
  else output.out(`Not logged in to ${name} (no ${auth.file})\n`);
}
