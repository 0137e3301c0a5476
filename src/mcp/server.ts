/**
 * The MCP server: the agent tools of src/core/tools over the Model Context Protocol (the official
 * SDK), for agents outside VS Code. Read tools answer; a write tool answers only when the server
 * was started with writes allowed, and otherwise says how to allow them. Tool annotations tell
 * clients which tools only read, so that they can ask the user before the others.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { runTool, toolNamed, TOOLS, type ToolContext, type ToolDefinition } from '../core/tools/index';

export const SERVER_NAME = 'firecrest';

function describeTool(def: ToolDefinition, allowWrites: boolean): Tool {
  const schema = z.toJSONSchema(def.input, { io: 'input' }) as Tool['inputSchema'];
  const off = def.kind === 'write' && !allowWrites ? ' (Writes are off on this server: it answers with a refusal until started with --allow-writes.)' : '';
  return {
    name: def.name,
    title: def.title,
    description: def.description + off,
    inputSchema: { ...schema, type: 'object' },
    annotations: { title: def.title, readOnlyHint: def.kind === 'read', destructiveHint: def.kind === 'write', openWorldHint: false },
  };
}

export function createMcpServer(ctx: () => ToolContext, o: { allowWrites: boolean; version: string }): Server {
  const server = new Server({ name: SERVER_NAME, version: o.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map((t) => describeTool(t, o.allowWrites)) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const def = toolNamed(req.params.name);
    if (!def) return { content: [{ type: 'text', text: `There is no tool ${req.params.name}: see tools/list.` }], isError: true };
    if (def.kind === 'write' && !o.allowWrites) {
      return { content: [{ type: 'text', text: `${def.name} changes the cluster, and this server is read-only: the user starts it with --allow-writes (or FIRECREST_MCP_ALLOW_WRITES=1) to allow writes.` }], isError: true };
    }
    const r = await runTool(def, req.params.arguments ?? {}, { ...ctx(), signal: extra.signal });
    return { content: [{ type: 'text', text: r.text }], isError: r.isError };
  });
  return server;
}
