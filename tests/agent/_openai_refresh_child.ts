/**
 * A process that needs the ChatGPT login's access token now: `<file> <issuer>`; prints the
 * credentials it got as JSON. Two of these run at once in the refresh test.
 *
 * @module
 */
import process from "node:process";
import { OpenAIAuth } from "../../src/agent/providers/openai_auth.ts";

const [file, issuer] = process.argv.slice(2);
const auth = new OpenAIAuth({ file: file!, issuer: issuer! });
try {
  const credentials = await auth.credentials();
  process.stdout.write(JSON.stringify(credentials) + "\n");
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
