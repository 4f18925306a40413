// An MCP server written with the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0, the 2026-07-28 line; HTTP through
// @modelcontextprotocol/node), pinned in .ci/sdk/node/package.json, for
// tests/mcp/sdk_both_eras.rs.
//
// Its tools ask for input the way the SDK's documentation shows for
// 2026-07-28: the handler returns `inputRequired({...})` and reads the
// retried request's answers with `inputResponse(ctx.mcpReq.inputResponses,
// key)`. On a 2025-11-25 connection the SDK's legacy shim turns the same
// return into pushed `elicitation/create` requests (stdio, stateful).
//
// Tools (each answers with one text: JSON, see `report`):
//   book   a form: `name` (required string), `guests` (integer 1..12,
//          default 2), `seating` (enum inside|terrace). It also sends
//          `requestState` "book-state:v1" and reports what came back as
//          `state`.
//   visit  a URL-mode request (https://example.com/ahp-consent).
//   pair   two different forms in one round: `contact` (required string
//          `email`) and `prefs` (enum `color` red|green|blue, boolean
//          `news` default false).
// A prompt `greeting` and a resource `ahp://note` ask the `contact` form
// the same way (`prompts/get` and `resources/read` answer `input_required`
// too); the prompt's one message and the resource's text are the same
// JSON report.
//
// Usage: node ts_v2_server.mjs [--http] [--legacy-reject]
//   stdio by default (serveStdio); --http serves createMcpHandler at
//   http://127.0.0.1:<ephemeral>/mcp and prints one line
//   "listening http://127.0.0.1:<port>/mcp" on stdout when ready.
//   --legacy-reject: the strict 2026-07-28-only posture (`legacy: 'reject'`).
//
// The packages live in .ci/sdk/node/node_modules (installed by
// .ci/sdk-setup.sh), not beside this file: they are resolved from there.
import { createRequire } from "node:module";
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";

const sdkDir = new URL("../../.ci/sdk/node/package.json", import.meta.url);
const resolve = createRequire(sdkDir).resolve;
const load = (name) => import(pathToFileURL(resolve(name)).href);
const { McpServer, createMcpHandler, inputRequired, inputResponse } = await load(
  "@modelcontextprotocol/server",
);

const args = process.argv.slice(2);
const http = args.includes("--http");
const strict = args.includes("--legacy-reject");

const BOOKING = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", description: "Your name", minLength: 2 },
    guests: { type: "integer", title: "Guests", minimum: 1, maximum: 12, default: 2 },
    seating: { type: "string", title: "Seating", enum: ["inside", "terrace"] },
  },
  required: ["name", "seating"],
};
const CONTACT = {
  type: "object",
  properties: { email: { type: "string", title: "Email" } },
  required: ["email"],
};
const PREFS = {
  type: "object",
  properties: {
    color: { type: "string", title: "Colour", enum: ["red", "green", "blue"] },
    news: { type: "boolean", title: "News", default: false },
  },
  required: ["color"],
};
const STATE = "book-state:v1";

/** What the server received for one key: `{action, received}` or null. */
function seen(ctx, key) {
  const v = inputResponse(ctx.mcpReq.inputResponses, key);
  if (v.kind === "missing") return null;
  if (v.kind !== "elicit") return { action: `not an elicitation: ${v.kind}`, received: null };
  return { action: v.action, received: v.content ?? null };
}

function report(obj) {
  return { content: [{ type: "text", text: JSON.stringify(obj) }] };
}

function factory() {
  const server = new McpServer({ name: "ts-v2-forms", version: "1.0.0" });

  server.registerTool("book", { description: "Ask for a booking (one form)" }, async (ctx) => {
    const got = seen(ctx, "booking");
    if (!got) {
      return inputRequired({
        inputRequests: {
          booking: inputRequired.elicit({ message: "Book a table", requestedSchema: BOOKING }),
        },
        requestState: STATE,
      });
    }
    return report({ ...got, state: ctx.mcpReq.requestState() ?? null });
  });

  server.registerTool("visit", { description: "Ask to open a page (URL mode)" }, async (ctx) => {
    const got = seen(ctx, "consent");
    if (!got) {
      return inputRequired({
        inputRequests: {
          consent: inputRequired.elicitUrl({
            message: "Please confirm on the web page",
            url: "https://example.com/ahp-consent",
          }),
        },
      });
    }
    return report(got);
  });

  server.registerTool("pair", { description: "Ask two forms in one round" }, async (ctx) => {
    const contact = seen(ctx, "contact");
    const prefs = seen(ctx, "prefs");
    if (!contact || !prefs) {
      return inputRequired({
        inputRequests: {
          contact: inputRequired.elicit({ message: "Your contact", requestedSchema: CONTACT }),
          prefs: inputRequired.elicit({ message: "Your preferences", requestedSchema: PREFS }),
        },
      });
    }
    return report({ contact, prefs });
  });

  server.registerPrompt("greeting", { description: "A greeting that asks who you are" }, async (ctx) => {
    const contact = seen(ctx, "contact");
    if (!contact) {
      return inputRequired({
        inputRequests: {
          contact: inputRequired.elicit({ message: "Your contact", requestedSchema: CONTACT }),
        },
      });
    }
    return {
      messages: [{ role: "user", content: { type: "text", text: JSON.stringify(contact) } }],
    };
  });

  server.registerResource(
    "note",
    "ahp://note",
    { description: "A note that asks who you are", mimeType: "application/json" },
    async (uri, ctx) => {
      const contact = seen(ctx, "contact");
      if (!contact) {
        return inputRequired({
          inputRequests: {
            contact: inputRequired.elicit({ message: "Your contact", requestedSchema: CONTACT }),
          },
        });
      }
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(contact) }] };
    },
  );

  return server;
}

if (http) {
  const { toNodeHandler } = await load("@modelcontextprotocol/node");
  const handler = createMcpHandler(factory, strict ? { legacy: "reject" } : {});
  const node = toNodeHandler(handler);
  const srv = createServer((req, res) => {
    const path = new URL(req.url, "http://127.0.0.1").pathname;
    if (path !== "/mcp") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    node(req, res);
  });
  srv.listen(0, "127.0.0.1", () => {
    console.log(`listening http://127.0.0.1:${srv.address().port}/mcp`);
  });
} else {
  const { serveStdio } = await load("@modelcontextprotocol/server/stdio");
  serveStdio(factory, strict ? { legacy: "reject" } : {});
}
