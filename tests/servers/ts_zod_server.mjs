// A stdio MCP server written with the official TypeScript SDK
// (@modelcontextprotocol/sdk) and zod, pinned in .ci/sdk/node/package.json,
// for tests/mcp/typescript_sdk.rs.
//
// Its form is zod's JSON Schema (z.toJSONSchema): `$schema`,
// `additionalProperties: false`, formats `email` and `uuid` each with zod's
// own `pattern`, `exclusiveMinimum`, a string enum, a multi select of a
// string enum, a pattern, a nullable field as `type: ["string", "null"]`.
// The SDK itself checks an accepted answer against the requested schema
// (ajv) before the tool sees it.
//
// The tool `signup` answers with one text: JSON
// `{"action": ..., "received": <content as the server received it>}`.
// The tool `visit` asks a URL-mode elicitation (2025-11-25: pushed
// `elicitation/create` with an `elicitationId`) and answers
// `{"action": ..., "received": null}`.
//
// The packages live in .ci/sdk/node/node_modules (installed by
// .ci/sdk-setup.sh), not beside this file: they are resolved from there.
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const sdkDir = new URL("../../.ci/sdk/node/package.json", import.meta.url);
const resolve = createRequire(sdkDir).resolve;
const load = (name) => import(pathToFileURL(resolve(name)).href);
const { McpServer } = await load("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = await load("@modelcontextprotocol/sdk/server/stdio.js");
const { z } = await load("zod");

const Signup = z.object({
  name: z.string().min(2).describe("Your name"),
  email: z.email(),
  id: z.uuid().optional(),
  age: z.number().int().gt(0).max(130).default(30),
  plan: z.enum(["free", "pro"]).default("free"),
  tags: z.array(z.enum(["news", "beta", "events"])).max(2).optional(),
  zip: z.string().regex(/^[0-9]{5}$/).optional(),
  ok: z.boolean().default(true),
  note: z.string().nullable().optional(),
});

const server = new McpServer({ name: "ts-zod-forms", version: "1.0.0" });

server.registerTool(
  "signup",
  { description: "Ask for a sign-up with a zod-generated form" },
  async () => {
    const result = await server.server.elicitInput({
      message: "Sign up",
      requestedSchema: z.toJSONSchema(Signup),
    });
    const out = { action: result.action, received: result.content ?? null };
    return { content: [{ type: "text", text: JSON.stringify(out) }] };
  },
);

server.registerTool(
  "visit",
  { description: "Ask to open a page (URL mode)" },
  async () => {
    const result = await server.server.elicitInput({
      mode: "url",
      message: "Please confirm on the web page",
      url: "https://example.com/ahp-consent",
      elicitationId: randomUUID(),
    });
    const out = { action: result.action, received: result.content ?? null };
    return { content: [{ type: "text", text: JSON.stringify(out) }] };
  },
);

await server.connect(new StdioServerTransport());
