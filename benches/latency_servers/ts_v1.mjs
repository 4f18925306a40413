// An MCP server written with the official TypeScript SDK v1
// (@modelcontextprotocol/sdk, pinned in .ci/sdk/node/package.json), for
// benches/elicit_latency.py: one tool `probe` that asks one form (message
// "Latency probe", one string field with a default) through
// `server.server.elicitInput`, as the SDK's examples do. The SDK sends that
// request, which names no request it belongs to, on the standalone GET
// stream over Streamable HTTP.
//
// Before the request is sent and after its answer came back, the tool
// writes the time (CLOCK_MONOTONIC, seconds) to the file named by the
// environment variable LATENCY_STAMP, one line each (the file is written
// anew at each call). Variants, from the environment: LATENCY_NOISE=1 logs
// a message first (notifications/message); LATENCY_RELATED=1 sends the
// request on the call's own stream (`relatedRequestId`); LATENCY_EVENTS=1
// gives the HTTP transport the SDK's in-memory event store (every SSE
// event with an `id:` line, a priming event first).
//
// Usage: node ts_v1.mjs [--http]
//   stdio by default; --http serves the SDK's StreamableHTTPServerTransport
//   (stateful: a session id, a transport a session) with node:http at
//   http://127.0.0.1:<ephemeral>/mcp and prints one line
//   "listening http://127.0.0.1:<port>/mcp" on stdout when ready.
//
// The packages live in .ci/sdk/node/node_modules (installed by
// .ci/sdk-setup.sh), not beside this file: they are resolved from there.
import { randomUUID } from "node:crypto";
import { appendFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const sdkDir = new URL("../../.ci/sdk/node/package.json", import.meta.url);
const resolve = createRequire(sdkDir).resolve;
const load = (name) => import(pathToFileURL(resolve(name)).href);
const { McpServer } = await load("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = await load("@modelcontextprotocol/sdk/server/stdio.js");
const { StreamableHTTPServerTransport } = await load(
  "@modelcontextprotocol/sdk/server/streamableHttp.js",
);

const { InMemoryEventStore } = await load(
  "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js",
);

const stampFile = process.env.LATENCY_STAMP;
// Seconds of CLOCK_MONOTONIC (libuv's hrtime), as Python's time.monotonic.
const now = () => Number(process.hrtime.bigint()) / 1e9;

function makeServer() {
  const server = new McpServer({ name: "latency-ts-v1", version: "1.0.0" });
  server.registerTool("probe", { description: "Ask one form" }, async (extra) => {
    if (process.env.LATENCY_NOISE) {
      await server.server.sendLoggingMessage({ level: "info", data: "about to ask" });
    }
    if (stampFile) writeFileSync(stampFile, `${now()}\n`);
    const related = process.env.LATENCY_RELATED ? { relatedRequestId: extra.requestId } : undefined;
    const result = await server.server.elicitInput({
      message: "Latency probe",
      requestedSchema: {
        type: "object",
        properties: { name: { type: "string", title: "Name", default: "Ada" } },
      },
    }, related);
    if (stampFile) appendFileSync(stampFile, `${now()}\n`);
    return { content: [{ type: "text", text: result.action }] };
  });
  return server;
}

if (process.argv.includes("--http")) {
  const sessions = {};
  const http = createServer(async (req, res) => {
    let body;
    if (req.method === "POST") {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      body = JSON.parse(Buffer.concat(chunks).toString());
    }
    const id = req.headers["mcp-session-id"];
    let transport = id && sessions[id];
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: process.env.LATENCY_EVENTS ? new InMemoryEventStore() : undefined,
        onsessioninitialized: (sid) => {
          sessions[sid] = transport;
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) delete sessions[transport.sessionId];
      };
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.listen(0, "127.0.0.1", () => {
    console.log(`listening http://127.0.0.1:${http.address().port}/mcp`);
  });
} else {
  await makeServer().connect(new StdioServerTransport());
}
