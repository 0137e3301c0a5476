/** A shell command that prints a bearer token (stdout, trimmed), re-run when the token nears expiry. */
import { exec } from 'node:child_process';
import { UnauthorizedError } from '../errors';
import { redact } from '../http/redact';
import type { FetchedToken } from './tokenSource';
import { expiryOf } from './tokenSource';

/** A fetch function for CachedTokenSource that runs `command` through the shell. */
export function tokenCommandFetcher(command: string, timeoutMs: number, onToken?: (e: { expiresInSeconds?: number }) => void): () => Promise<FetchedToken> {
  return () =>
    new Promise<FetchedToken>((resolve, reject) => {
      exec(command, { timeout: timeoutMs, maxBuffer: 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
        if (err) {
          const why = redact(String(stderr).trim().slice(0, 300) || err.message, [String(stdout).trim()]);
          reject(new UnauthorizedError(`The token command failed (${err.killed ? 'timed out' : `exit ${String(err.code ?? '?')}`}): ${why}`));
          return;
        }
        const token = String(stdout).trim();
        if (!token) {
          reject(new UnauthorizedError('The token command printed no token'));
          return;
        }
        const expiresAt = expiryOf(token, undefined, Date.now());
        onToken?.({ expiresInSeconds: expiresAt === undefined ? undefined : Math.round((expiresAt - Date.now()) / 1000) });
        resolve({ token, expiresAt });
      });
    });
}
