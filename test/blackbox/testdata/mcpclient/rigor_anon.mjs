// Drives the workflow MCP server (POST /api/mcp/rigor) without a key with
// the official MCP TypeScript SDK's client: tools/list, rigor_plan (in
// the demo organization), and rigor_status, which needs a key.
// Environment: MCP_URL, MCP_SDK, MCP_IP (sent as X-Forwarded-For).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const sdk = process.env.MCP_SDK;
const { Client } = await import(pathToFileURL(join(sdk, "dist/esm/client/index.js")).href);
const { StreamableHTTPClientTransport } = await import(pathToFileURL(join(sdk, "dist/esm/client/streamableHttp.js")).href);

const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { "x-forwarded-for": process.env.MCP_IP } },
});
const client = new Client({ name: "svc-blackbox-anonymous", version: "1.0.0" });
await client.connect(transport);
const out = {};
out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
const plan = await client.callTool({ name: "rigor_plan", arguments: { task_description: "draft a launch plan for our mobile app in Germany" } });
out.plan = { isError: plan.isError ?? false, workflow_id: plan.structuredContent?.plan?.workflow_id ?? null };
const status = await client.callTool({ name: "rigor_status", arguments: { workflow_id: out.plan.workflow_id } });
out.status = { isError: status.isError ?? false, code: status.structuredContent?.error?.code ?? null };
await client.close();
process.stdout.write(JSON.stringify(out));
