/**
 * Helpers every host test may use: the activated extension's test surface, waiting for a
 * condition, and the files of the running session (user settings, the FirecREST log).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestExtensionApi } from '../../../src/common/api';
import type { FirecrestClient } from '../../../src/core/client';
import { target } from '../../support/target';

export const EXTENSION_ID = 'firecrest-community.firecrest-vscode';

/** Activates the extension (if it is not yet) and returns what `activate()` returned. */
export async function extensionApi(): Promise<FirecrestExtensionApi> {
  const ext = vscode.extensions.getExtension<FirecrestExtensionApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not loaded in this extension host`);
  const api = ext.isActive ? ext.exports : await ext.activate();
  await api.ready;
  return api;
}

/** Polls `check` until it returns a truthy value; rejects with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The user settings.json of this session, as text ('' when it does not exist). */
export function userSettingsText(api: FirecrestExtensionApi): string {
  const candidates = [
    process.env.FIRECREST_TEST_USER_DATA && join(process.env.FIRECREST_TEST_USER_DATA, 'User', 'settings.json'),
    // <user data>/User/globalStorage/<extension id> -> <user data>/User/settings.json
    join(dirname(dirname(api.globalStorageUri.fsPath)), 'settings.json'),
  ].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  return found ? readFileSync(found, 'utf8') : '';
}

/** Everything the FirecREST LogOutputChannel wrote to its log file(s) in this session. */
export function firecrestLogText(api: FirecrestExtensionApi): string {
  // The extension host keeps output channel logs next to the extensions' own log folders.
  const root = dirname(api.logUri.fsPath);
  return findFiles(root, (name) => name.endsWith('FirecREST.log'))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

function findFiles(dir: string, match: (name: string) => boolean, depth = 4): string[] {
  if (depth < 0 || !existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(p, match, depth - 1));
    else if (match(e.name)) out.push(p);
  }
  return out;
}

/**
 * The extension host's own performance marks for this extension, in ms: loading its code
 * (require of dist/extension.js) and running `activate()` until its promise settled.
 */
export function activationMarks(): { loadMs?: number; activateMs?: number } {
  const perf = (globalThis as { MonacoPerformanceMarks?: { getMarks(): { name: string; startTime: number }[] } }).MonacoPerformanceMarks;
  const marks = perf?.getMarks() ?? [];
  const at = (name: string) => marks.find((m) => m.name === `code/extHost/${name}/${EXTENSION_ID}`)?.startTime;
  const span = (a?: number, b?: number) => (a !== undefined && b !== undefined ? b - a : undefined);
  return {
    loadMs: span(at('willLoadExtensionCode'), at('didLoadExtensionCode')),
    activateMs: span(at('willActivateExtension'), at('didActivateExtension')),
  };
}

/** The first event of `event` that `match` accepts; rejects naming `what` after `timeoutMs`. */
export function nextEvent<E, T extends E>(event: vscode.Event<E>, match: (e: E) => e is T, what: string, timeoutMs = 60_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => (sub.dispose(), reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
    const sub = event((e) => {
      if (!match(e)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(e);
    });
  });
}

/**
 * Adds a connection named `name` to the deployment under test (the local gateway or FIRECREST_URL)
 * through the command a user runs, and returns its shared client and the user's home folder.
 */
export async function addTestConnection(name: string): Promise<{ client: FirecrestClient; home: string }> {
  const t = target();
  const api = await extensionApi();
  await vscode.commands.executeCommand('firecrest.addConnection', {
    name, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
  });
  const client = await api.connections.client(name);
  return { client, home: `/home/${(await client.userInfo(t.system)).user.name}` };
}
