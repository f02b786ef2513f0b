/**
 * An ACP prompt (a list of content blocks) as the text of one Bub inbound message: text as it
 * is, a resource link as a Markdown link the model can open with its tools, an embedded text
 * resource inline in a fenced block named by its URI. Images and audio are refused (the agent
 * does not advertise them), with an error that says so.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? value as Record<string, unknown> : {};
}

/**
 * The text of `blocks`.
 */
export function promptBlocksText(blocks: readonly unknown[]): string {
  const parts: string[] = [];
  for (const item of blocks) {
    const block = record(item);
    switch (block.type) {
      case "text":
        parts.push(String(block.text ?? ""));
        break;
      case "resource_link":
        parts.push(`[${String(block.name ?? block.uri ?? "")}](${String(block.uri ?? "")})`);
        break;
      case "resource": {
        const resource = record(block.resource);
        if (typeof resource.text === "string") {
          const uri = String(resource.uri ?? "");
          parts.push(`Context from ${uri}:\n\`\`\`\n${resource.text}\n\`\`\``);
        } else {
          parts.push(`[embedded binary resource ${String(resource.uri ?? "")} omitted]`);
        }
        break;
      }
      case "image":
      case "audio":
        throw new BubError(
          "invalid_input",
          `This agent takes text prompts: ${block.type} content is not supported ` +
            "(promptCapabilities says so)",
        );
      default:
        throw new BubError(
          "invalid_input",
          `Unknown prompt content block type ${JSON.stringify(block.type)}`,
        );
    }
  }
  return parts.filter((part) => part !== "").join("\n\n");
}
