// Drives the suite's tool server (POST /api/mcp) with the official MCP
// TypeScript SDK's client over streamable HTTP, as an agent would, and
// prints what it saw as one JSON object. Environment: MCP_URL (the tool
// server), MCP_KEY (an API key), MCP_SDK (the SDK's package directory).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const sdk = process.env.MCP_SDK;
const { Client } = await import(pathToFileURL(join(sdk, "dist/esm/client/index.js")).href);
const { StreamableHTTPClientTransport } = await import(pathToFileURL(join(sdk, "dist/esm/client/streamableHttp.js")).href);

const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { "x-api-key": process.env.MCP_KEY } },
});
const client = new Client({ name: "svc-blackbox", version: "1.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion(), protocol: transport.protocolVersion ?? null };
await client.ping();
const tools = await client.listTools();
out.tools = tools.tools.map((t) => ({ name: t.name, readOnly: t.annotations?.readOnlyHint ?? null }));
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError ?? false, structured: r.structuredContent ?? null, text: r.content?.[0]?.text ?? null };
};
out.stats = await call("svc", { action: "dedupq.stats" });
out.check = await call("dedupq_check", { content: "summarize the quarterly board deck for the audit committee" });
out.estimate = await call("burnrate_estimate", {
  plan: [{ step: 1, action: "draft", provider: "openai", model: "gpt-4o", estimated_input_tokens: 1200, estimated_output_tokens: 800 }],
});
out.refused = await call("svc", { action: "nope.nothing" });
await client.close();
process.stdout.write(JSON.stringify(out));
