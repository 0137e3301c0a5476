/**
 * The MCP server's side of the token broker (src/agents/tokenBroker.ts): when the VS Code extension
 * starts the server, it hands no secret, only a socket and a one-time key. The server's token
 * command (`firecrest-mcp token`) asks there for an access token of the connection the key stands
 * for, and prints it; the client core re-runs it when the token nears its expiry.
 */
import { createConnection } from 'node:net';

export const TOKEN_SOCKET_ENV = 'FIRECREST_TOKEN_SOCKET';
export const TOKEN_KEY_ENV = 'FIRECREST_TOKEN_KEY';
const TIMEOUT_MS = 30_000;

/** The token command that runs this program's `token` helper with the same runtime (shell syntax of the platform). */
export function brokerTokenCommand(execPath: string, script: string, platform = process.platform): string {
  const q = platform === 'win32' ? (s: string) => `"${s.replace(/"/g, '""')}"` : (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  return `${q(execPath)} ${q(script)} token`;
}

/** Asks the broker for a token; prints it. Exit code 0, or 1/2 with the reason on stderr. */
export function printBrokerToken(env: NodeJS.ProcessEnv): Promise<number> {
  const path = env[TOKEN_SOCKET_ENV];
  const key = env[TOKEN_KEY_ENV];
  if (!path || !key) {
    process.stderr.write('firecrest-mcp token: not started by the FirecREST extension (no broker to ask)\n');
    return Promise.resolve(2);
  }
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let answer = '';
    const fail = (why: string): void => {
      process.stderr.write(`firecrest-mcp token: ${why}\n`);
      socket.destroy();
      resolve(1);
    };
    socket.setTimeout(TIMEOUT_MS, () => fail('the extension did not answer'));
    socket.on('error', (e) => fail(`cannot reach the extension (${e.message})`));
    socket.on('connect', () => socket.write(`${JSON.stringify({ key })}\n`));
    socket.on('data', (d) => { answer += d.toString('utf8'); });
    socket.on('end', () => {
      let parsed: { token?: unknown; error?: unknown };
      try {
        parsed = JSON.parse(answer) as { token?: unknown; error?: unknown };
      } catch {
        fail('the extension sent no answer');
        return;
      }
      if (typeof parsed.token !== 'string') {
        fail(typeof parsed.error === 'string' ? parsed.error : 'no token');
        return;
      }
      process.stdout.write(`${parsed.token}\n`);
      resolve(0);
    });
  });
}
