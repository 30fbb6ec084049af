// Drives the workflow MCP server (POST /api/mcp/rigor) with the official
// MCP TypeScript SDK's client: tools/list, rigor_plan, rigor_execute
// followed to its end through progress notifications, and rigor_status
// with the deliverable. Environment: MCP_URL, MCP_KEY, MCP_SDK.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const sdk = process.env.MCP_SDK;
const { Client } = await import(pathToFileURL(join(sdk, "dist/esm/client/index.js")).href);
const { StreamableHTTPClientTransport } = await import(pathToFileURL(join(sdk, "dist/esm/client/streamableHttp.js")).href);
const { CallToolResultSchema } = await import(pathToFileURL(join(sdk, "dist/esm/types.js")).href);

const transport = new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { "x-api-key": process.env.MCP_KEY } },
});
const client = new Client({ name: "svc-blackbox", version: "1.0.0" });
await client.connect(transport);
const out = {};
out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
const plan = await client.callTool({ name: "rigor_plan", arguments: { task_description: "draft a launch plan for our mobile app in Germany" } });
out.plan = { isError: plan.isError ?? false, workflow_id: plan.structuredContent?.plan?.workflow_id ?? null };
out.progress = [];
const run = await client.callTool(
  { name: "rigor_execute", arguments: { workflow_id: out.plan.workflow_id } },
  CallToolResultSchema,
  { onprogress: (p) => out.progress.push({ progress: p.progress, total: p.total ?? null, message: p.message ?? null }), timeout: 300000 },
);
out.run = { isError: run.isError ?? false, status: run.structuredContent?.workflow?.status ?? null };
const status = await client.callTool({ name: "rigor_status", arguments: { workflow_id: out.plan.workflow_id } });
const wf = status.structuredContent?.workflow ?? {};
out.status = { status: wf.status ?? null, deliverable: wf.deliverable != null, quality_score: wf.quality_score ?? null };
await client.close();
process.stdout.write(JSON.stringify(out));
