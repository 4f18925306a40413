// A stdio MCP server written with the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in .ci/sdk/node/package.json) whose
// tools change while a client is connected, for tests/mcp/live_lists.rs.
//
// It starts with the tools `old_y` (one integer argument) and `keep_me`
// (none). The test drives it through the file named by LIST_COMMANDS,
// read every 50 ms: each new line `add NAME` registers a tool NAME, `remove
// NAME` removes one; the SDK then sends `notifications/tools/list_changed`
// itself. After each line is done, the line is appended to the file named
// by LIST_DONE, so the test knows the notification was written. Each call
// is appended to LIST_DONE as `called NAME`.
import { appendFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const sdkDir = new URL("../../.ci/sdk/node/package.json", import.meta.url);
const resolve = createRequire(sdkDir).resolve;
const load = (name) => import(pathToFileURL(resolve(name)).href);
const { McpServer } = await load("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = await load("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = await load("zod");

const commands = process.env.LIST_COMMANDS;
const done = process.env.LIST_DONE;
const server = new McpServer({ name: "ts-list-changed", version: "1.0.0" });
const tools = new Map();

function add(name, schema) {
  if (tools.has(name)) return;
  const config = { description: `The tool ${name}` };
  if (schema) config.inputSchema = schema;
  tools.set(
    name,
    server.registerTool(name, config, async () => {
      appendFileSync(done, `called ${name}\n`);
      return { content: [{ type: "text", text: `${name} ran` }] };
    }),
  );
}

add("old_y", { n: z.number().int() });
add("keep_me");

let seen = 0;
setInterval(() => {
  let lines;
  try {
    lines = readFileSync(commands, "utf8").split("\n").filter((l) => l.trim());
  } catch {
    return;
  }
  for (const line of lines.slice(seen)) {
    const [verb, name] = line.trim().split(/\s+/);
    if (verb === "add") add(name);
    if (verb === "remove" && tools.has(name)) {
      tools.get(name).remove();
      tools.delete(name);
    }
    appendFileSync(done, `${line.trim()}\n`);
  }
  seen = lines.length;
}, 50);

await server.connect(new StdioServerTransport());
