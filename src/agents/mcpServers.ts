/**
 * The FirecREST MCP server in VS Code's list of MCP servers, one per connection, without another
 * sign-in: VS Code starts `dist/mcp.js` with the runtime of its extension host, and the server gets
 * its tokens from this window (tokenBroker.ts), never a secret. Read-only, as outside VS Code,
 * unless the user sets `firecrest.agents.mcpAllowWrites` (VS Code then still asks before each call
 * of a tool not marked read-only, unless the user approved it for good); the extension's own tools
 * write with a confirmation of their own.
 */
import * as vscode from 'vscode';
import type { ConnectionService, Log } from '../common/services';
import type { TokenBroker } from './tokenBroker';

/** What the server process reads (src/mcp/config.ts, src/mcp/tokenClient.ts). */
const SOCKET_ENV = 'FIRECREST_TOKEN_SOCKET';
const KEY_ENV = 'FIRECREST_TOKEN_KEY';

export class FirecrestMcpServers implements vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** The connections changed, or whether the servers may write. */
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly connections: ConnectionService,
    private readonly broker: () => Promise<TokenBroker>,
    private readonly extension: vscode.Extension<unknown>,
    private readonly log: Log,
  ) {
    this.subscriptions = [
      this.changed,
      connections.onDidChange(() => this.changed.fire()),
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('firecrest.agents.mcpAllowWrites')) this.changed.fire(); }),
    ];
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }

  provideMcpServerDefinitions(): vscode.McpStdioServerDefinition[] {
    const script = vscode.Uri.joinPath(this.extension.extensionUri, 'dist', 'mcp.js').fsPath;
    const declared = (this.extension.packageJSON as { version?: unknown }).version;
    const version = typeof declared === 'string' ? declared : undefined;
    return this.connections.connections().map((c) => new vscode.McpStdioServerDefinition(
      vscode.l10n.t('FirecREST: {0}', c.profile.name),
      process.execPath,
      [script, ...(vscode.workspace.getConfiguration('firecrest.agents').get<boolean>('mcpAllowWrites', false) ? ['--allow-writes'] : [])],
      {
        // The extension host's runtime is Electron in desktop VS Code: run it as Node.
        ELECTRON_RUN_AS_NODE: '1',
        FIRECREST_URL: c.profile.url,
        FIRECREST_API_VERSION: c.profile.apiVersion,
        FIRECREST_CONNECTION_NAME: c.profile.name,
        ...(c.profile.defaultSystem ? { FIRECREST_SYSTEM: c.profile.defaultSystem } : {}),
        ...(c.profile.caFile ? { FIRECREST_CA_FILE: c.profile.caFile } : {}),
      },
      version,
    ));
  }

  /** Right before VS Code starts a server: the connection must be signed in; the server gets a fresh key. */
  async resolveMcpServerDefinition(server: vscode.McpStdioServerDefinition): Promise<vscode.McpStdioServerDefinition> {
    const name = String(server.env.FIRECREST_CONNECTION_NAME ?? '');
    await this.connections.client(name);
    const { socket, key } = await (await this.broker()).mint(name);
    server.env = { ...server.env, [SOCKET_ENV]: socket, [KEY_ENV]: key };
    this.log.info(`MCP server for "${name}" starting; it gets its tokens from this window`);
    return server;
  }
}
