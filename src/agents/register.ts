/**
 * Agents: the FirecREST tools for VS Code's language models (contributed in package.json as
 * `languageModelTools`, registered here) and the MCP server definitions. Both load their code on
 * first use (a bundle of its own): activation registers names and a provider, nothing more.
 */
import * as vscode from 'vscode';
import type { ExtensionServices } from '../common/services';
import { registerCommand } from '../common/commandWrapper';
import { FirecrestMcpServers } from './mcpServers';
import { runAgentTool } from './runToolCommand';
import { TokenBroker } from './tokenBroker';

const tools = () => import('./lmTools.js');

interface ContributedTool {
  name: string;
}

export function registerAgents(services: ExtensionServices): vscode.Disposable {
  const log = services.log.withTag('agents');
  const { connections } = services;
  const contributed = ((services.context.extension.packageJSON as { contributes?: { languageModelTools?: ContributedTool[] } }).contributes?.languageModelTools ?? []).map((t) => t.name);
  const disposables: vscode.Disposable[] = contributed.map((name) => vscode.lm.registerTool<unknown>(name, {
    prepareInvocation: async (o, token) => (await tools()).prepare(connections, log, name, o.input, token),
    invoke: async (o, token) => (await tools()).invoke(connections, log, name, o.input, token),
  }));
  disposables.push(registerCommand('firecrest.runAgentTool', log, (arg?: unknown) => runAgentTool(contributed, arg)));
  let broker: TokenBroker | undefined;
  disposables.push({ dispose: () => broker?.dispose() });
  const servers = new FirecrestMcpServers(connections, async () => (broker ??= new TokenBroker(connections, log)), services.context.extension, log);
  disposables.push(servers, vscode.lm.registerMcpServerDefinitionProvider('firecrest.mcpServers', servers));
  services.testSeam.expose('agentTools', () => contributed);
  // The definitions, and the one of `connection` as VS Code resolves it right before starting it.
  services.testSeam.expose('mcpServers', async (connection?: string) => {
    const defs = servers.provideMcpServerDefinitions();
    const chosen = defs.find((d) => d.env.FIRECREST_CONNECTION_NAME === connection) ?? defs[0];
    const resolved = chosen ? await servers.resolveMcpServerDefinition(chosen) : undefined;
    return { definitions: defs.map((d) => ({ label: d.label, command: d.command, args: d.args, env: d.env })), resolved: resolved && { command: resolved.command, args: resolved.args, env: resolved.env } };
  });
  return vscode.Disposable.from(...disposables);
}
