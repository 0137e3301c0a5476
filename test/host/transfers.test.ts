/**
 * The Transfer Centre in a real VS Code against the local gateway: the panel opens from its
 * command with a nonce-only CSP and the bundle as its only resource root; a staged (multipart)
 * upload shows in the real webview with per-part progress, reaching 100 % with a verified SHA-256,
 * and the status bar entry shows while it runs; a download opens at its destination; Cancel stops
 * a slowed upload, Retry runs it again, Resume continues an upload broken by dropped part PUTs;
 * moves, copies and deletions are listed; Clear empties the list; a hidden-then-shown panel and a restored one draw the list again.
 */
import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { TransferEvents, TransferRecord } from '../../src/common/transferEvents';
import { FirecrestUri } from '../../src/core/uri';
import { connectWithScratchFolder } from './support/scratch';
import type { TransfersToHost, TransfersToWebview } from '../../src/webviews/protocol';
import type { TransfersStatusBar } from '../../src/webviews/transfers/statusBar';
import type { TransfersPanel } from '../../src/webviews/transfers/transfersPanel';
import { gatewayOnly, target, type GatewayInfo } from '../support/target';
import { nextEvent, waitFor } from './support/extension';
import { skipBecause } from './support/apiVersion';

const PROFILE = 'transfers-test';
const MiB = 1024 * 1024;
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
type Rendered = Extract<TransfersToHost, { type: 'rendered' }>;
type Done = Extract<TransfersToWebview, { type: 'done' }>;

async function adminCall(gw: GatewayInfo | undefined, method: string, path: string, body?: unknown): Promise<void> {
  if (!gw?.admin || !gw.adminToken) throw new Error('needs the local gateway');
  const res = await fetch(`${gw.admin.replace(/\/+$/, '')}${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
}

/** Requests the local gateway counted on routes matching `route` since the last reset. */
async function countRequests(gw: GatewayInfo | undefined, route: RegExp): Promise<number> {
  const res = await fetch(`${gw!.admin!.replace(/\/+$/, '')}/stats`, { headers: { authorization: `Bearer ${gw!.adminToken}` } });
  const s = (await res.json()) as { byRoute: Record<string, number> };
  return Object.entries(s.byRoute).filter(([k]) => route.test(k)).reduce((n, [, v]) => n + v, 0);
}

function nextReceived<T extends TransfersToHost>(panel: TransfersPanel, match: (m: TransfersToHost) => m is T, timeoutMs = 120_000): Promise<T> {
  return nextEvent(panel.onDidReceive, match, 'a message from the webview', timeoutMs);
}

/** Sends an action as the webview would and returns the host's answer. */
async function act(panel: TransfersPanel, requestId: number, m: TransfersToHost, timeoutMs = 60_000): Promise<Done> {
  const answer = nextEvent(panel.onDidPost, (p): p is Done => p.type === 'done' && p.requestId === requestId, `an answer to ${JSON.stringify(m)}`, timeoutMs);
  assert.equal(await panel.receive(m), true);
  return answer;
}

/** The CSP of the panel's HTML: directive → sources. */
function csp(html: string): Map<string, string[]> {
  const m = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html);
  assert.ok(m, 'a CSP meta element');
  const value = m[1].replace(/&#39;/g, "'");
  return new Map(value.split(';').map((d) => d.trim()).filter(Boolean).map((d) => { const [k, ...v] = d.split(/\s+/); return [k, v]; }));
}

describe('Transfer Centre', function () {
  this.timeout(240_000);
  const t = target();
  let base: FirecrestUri;
  let local: string;
  let events: TransferEvents;
  let panel: TransfersPanel;
  let requestId = 50_000;
  const uri = (f: FirecrestUri) => vscode.Uri.from({ scheme: 'firecrest', authority: f.authority, path: f.path });
  /** The record of the newest transfer of `kind` whose destination ends with `name`. */
  const recordOf = (kind: TransferRecord['kind'], name: string): TransferRecord | undefined =>
    events.list().find((r) => r.kind === kind && (r.destination ?? '').endsWith(`/${name}`));

  before(async () => {
    const scratch = await connectWithScratchFolder(PROFILE, 'transfers');
    ({ base } = scratch);
    local = mkdtempSync(join(tmpdir(), 'f7t-transfers-'));
    events = (await vscode.commands.executeCommand<TransferEvents>('firecrest.test.transferEvents'))!;
    await events.clear();
    // Several parts for a few MiB (gateway only; a real deployment keeps its own part size).
    if (!gatewayOnly()) await adminCall(t.gateway, 'PUT', '/settings', { maxPartSize: MiB });
  });

  after(async () => {
    if (!gatewayOnly()) {
      await adminCall(t.gateway, 'DELETE', '/faults').catch(() => undefined);
      await adminCall(t.gateway, 'PUT', '/settings', { maxPartSize: 2147483648 }).catch(() => undefined);
    }
    panel?.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (base) await vscode.workspace.fs.delete(uri(base), { recursive: true }).then(undefined, () => undefined);
    if (local) rmSync(local, { recursive: true, force: true });
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('opens with a nonce-only CSP and the bundle as its only resources; the real webview says ready and draws', async () => {
    // The command answers with the panel it just made: the page cannot have loaded yet (its load
    // takes messages with the workbench), so both waits are in place before its ready and its first
    // draw. (Found by polling for the panel instead, which on a loaded machine slept past them: CI.)
    panel = await vscode.commands.executeCommand<TransfersPanel>('firecrest.showTransfers');
    assert.ok(panel && !panel.isReady, 'a new panel, not yet ready');
    const ready = nextReceived(panel, (m): m is Extract<TransfersToHost, { type: 'ready' }> => m.type === 'ready');
    const drawn = nextReceived(panel, (m): m is Rendered => m.type === 'rendered');
    await ready;
    await drawn;
    assert.ok(panel.isReady, 'ready handshake done');
    assert.equal(panel.panel.viewType, 'firecrest.transfers');
    const ext = vscode.extensions.getExtension('firecrest-community.firecrest-vscode')!.extensionUri.path;
    assert.deepEqual(panel.panel.webview.options.localResourceRoots?.map((u) => u.path).sort(), [`${ext}/dist`, `${ext}/media/webviews`]);
    const policy = csp(panel.panel.webview.html);
    assert.deepEqual(policy.get('default-src'), ["'none'"]);
    assert.equal(policy.get('script-src')?.length, 1);
    assert.match(policy.get('script-src')![0], /^'nonce-[A-Za-z0-9+/=]{20,}'$/, 'scripts only with the nonce');
    assert.doesNotMatch(panel.panel.webview.html, /<script(?![^>]*\bnonce=)/, 'no script element without the nonce');
  });

  it('shows a staged upload with per-part progress, the status bar entry while it runs, then 100 % and a verified SHA-256', async () => {
    const data = randomBytes(6 * MiB + 5);
    const file = join(local, 'centre-up.bin');
    writeFileSync(file, data);
    const statusBar = (await vscode.commands.executeCommand<TransfersStatusBar>('firecrest.test.transfersStatusBar'));
    const seen = { running: 0, parts: 0, statusBar: '' };
    const sub = panel.onDidPost((m) => {
      if (m.type !== 'update') return;
      for (const v of m.transfers.filter((x) => x.destination?.endsWith('/centre-up.bin') && x.state === 'running')) {
        seen.running++;
        if (v.partsTotal && v.partsTotal > 1 && v.partsFinished?.length) seen.parts++;
        if (statusBar.visible) seen.statusBar = statusBar.text;
      }
    });
    const finalRow = nextReceived(panel, (m): m is Rendered => m.type === 'rendered' && m.rows.some((r) => r.id === recordOf('upload', 'centre-up.bin')?.id && r.state === 'done'));
    // Parts that take 0.3 to 1.5 s each (seeded): they finish one by one, not all in one progress interval.
    if (!gatewayOnly()) await adminCall(t.gateway, 'PUT', '/faults', { seed: 3, latency: { rate: 1, ms: 1500, minMs: 300, match: '^PUT /s3/' } });
    try {
      await vscode.commands.executeCommand('firecrest.files.upload', uri(base), { localPaths: [file], replace: true });
    } finally {
      if (!gatewayOnly()) await adminCall(t.gateway, 'DELETE', '/faults');
    }
    const rendered = await finalRow;
    sub.dispose();
    const record = recordOf('upload', 'centre-up.bin')!;
    assert.equal(record.state, 'done', record.error);
    assert.equal(record.source, file);
    assert.equal(record.verified, true, 'SHA-256 compared with the server');
    assert.equal(record.sha256, sha(data));
    const row = rendered.rows.find((r) => r.id === record.id)!;
    assert.deepEqual(row, { id: record.id, state: 'done', percent: 100, verified: true }, 'the webview drew 100 % and verified');
    assert.ok(seen.running > 0, 'progress reached the webview while it ran');
    if (!gatewayOnly()) assert.ok(seen.parts > 0, 'per-part progress of the multipart upload reached the webview');
    assert.match(seen.statusBar, /1 transfer/, 'the status bar entry showed while it ran');
    assert.equal(statusBar.visible, false, 'and went once nothing runs');
  });

  it('opens the destination of a finished download', async () => {
    await vscode.workspace.fs.writeFile(uri(base.joinPath('centre-notes.txt')), new TextEncoder().encode('downloaded through the Transfer Centre\n'));
    const into = join(local, 'centre-down.txt');
    await vscode.commands.executeCommand('firecrest.files.download', uri(base.joinPath('centre-notes.txt')), { localPath: into });
    const record = await waitFor('the download record', () => {
      const r = recordOf('download', 'centre-down.txt');
      return r?.state === 'done' ? r : undefined;
    });
    assert.equal(record.verified, true);
    assert.equal(events.actions(record).retry, true, 'a download can be retried');
    // The file opens in the panel's column: the panel is hidden then, and gets the answer once shown again.
    assert.equal(await panel.receive({ type: 'action', requestId: ++requestId, action: 'open', id: record.id }), true);
    await waitFor('the downloaded file in the active tab', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { uri?: vscode.Uri } | undefined;
      return input?.uri?.fsPath === into;
    });
    assert.equal(vscode.window.activeTextEditor?.document.getText(), 'downloaded through the Transfer Centre\n');
  });

  it('says ready again after being hidden and shown, and draws the list from its state', async () => {
    // The download opened in the panel's column: the panel is hidden now.
    await waitFor('the panel hidden', () => !panel.panel.visible);
    assert.equal(panel.isReady, false);
    const before = panel.rendered;
    const redrawn = nextReceived(panel, (m): m is Rendered => m.type === 'rendered');
    panel.panel.reveal();
    const again = await redrawn;
    assert.ok(again.rows.length >= 2);
    assert.deepEqual(again.rows.map((r) => r.id).sort(), before.map((r) => r.id).sort());
  });

  it('cancels a running upload, then Retry runs it again to a verified end', async function () {
    skipBecause(this, gatewayOnly() || undefined);
    const data = randomBytes(4 * MiB + 3);
    const file = join(local, 'centre-cancel.bin');
    writeFileSync(file, data);
    // Slow part PUTs so that there is time to cancel.
    await adminCall(t.gateway, 'PUT', '/faults', { latency: { rate: 1, ms: 2000, minMs: 2000, match: '^PUT /s3/' } });
    const running = vscode.commands.executeCommand('firecrest.files.upload', uri(base), { localPaths: [file], replace: true });
    const record = await waitFor('the upload running', () => {
      const r = recordOf('upload', 'centre-cancel.bin');
      return r?.state === 'running' && r.progress?.phase === 'uploading' ? r : undefined;
    }, 60_000);
    assert.equal(events.actions(record).cancel, true);
    const answer = await act(panel, ++requestId, { type: 'action', requestId, action: 'cancel', id: record.id });
    assert.equal(answer.error, undefined);
    await running;
    await adminCall(t.gateway, 'DELETE', '/faults');
    const cancelled = events.get(record.id)!;
    assert.equal(cancelled.state, 'cancelled');
    assert.deepEqual(events.actions(cancelled), { cancel: false, retry: true, resume: false }, 'a cancelled upload keeps no parts');

    const retried = await act(panel, ++requestId, { type: 'action', requestId, action: 'retry', id: record.id });
    assert.equal(retried.error, undefined);
    const again = await waitFor('the retried upload done', () => {
      const r = recordOf('upload', 'centre-cancel.bin');
      return r && r.id !== record.id && r.state !== 'running' ? r : undefined;
    }, 120_000);
    assert.equal(again.state, 'done', again.error);
    assert.equal(again.verified, true);
    assert.equal(events.get(record.id), undefined, 'the new run replaced the cancelled one');
    assert.equal(sha(await vscode.workspace.fs.readFile(uri(base.joinPath('centre-cancel.bin')))), sha(data));
  });

  it('resumes an upload broken by dropped part PUTs from the parts already sent', async function () {
    skipBecause(this, gatewayOnly() || undefined);
    const data = randomBytes(12 * MiB + 5);
    const file = join(local, 'centre-resume.bin');
    writeFileSync(file, data);
    // Slow parts: the first ten (the parallelism) arrive, then every later PUT is dropped.
    const latency = { rate: 1, ms: 3000, minMs: 3000, match: '^PUT /s3/' };
    await adminCall(t.gateway, 'PUT', '/faults', { latency });
    await adminCall(t.gateway, 'POST', '/stats/reset');
    const running = vscode.commands.executeCommand('firecrest.files.upload', uri(base), { localPaths: [file], replace: true });
    await waitFor('ten part PUTs', async () => (await countRequests(t.gateway, /^PUT \/s3\//)) >= 10, 60_000);
    await adminCall(t.gateway, 'PUT', '/faults', { latency, dropBefore: { next: 1000, match: '^PUT /s3/' } });
    await running;
    await adminCall(t.gateway, 'DELETE', '/faults');
    const broken = recordOf('upload', 'centre-resume.bin')!;
    assert.equal(broken.state, 'failed');
    const kept = broken.progress?.partsFinished?.length ?? 0;
    assert.ok(kept >= 1 && kept < 13, `${kept} parts kept`);
    await waitFor('Resume offered', () => events.actions(broken).resume);

    const answer = await act(panel, ++requestId, { type: 'action', requestId, action: 'resume', id: broken.id });
    assert.equal(answer.error, undefined);
    // Done, or the diagnosis: every record of this file (a resume that cannot continue starts afresh: two runs).
    const resumed = await waitFor('the resumed upload done', () => {
      const r = recordOf('upload', 'centre-resume.bin');
      return r && r.id !== broken.id && r.state === 'done' ? r : undefined;
    }, 120_000).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}: ${JSON.stringify(events.list().filter((r) => r.destination?.endsWith('centre-resume.bin')))}`);
    });
    assert.equal(resumed.verified, true);
    assert.equal(sha(await vscode.workspace.fs.readFile(uri(base.joinPath('centre-resume.bin')))), sha(data));
  });

  it('lists moves, copies and deletions on the cluster, drawn done in the webview', async () => {
    const a = base.joinPath('centre-op-a.txt');
    await vscode.workspace.fs.writeFile(uri(a), new TextEncoder().encode('moved and copied\n'));
    await vscode.workspace.fs.copy(uri(a), uri(base.joinPath('centre-op-b.txt')));
    await vscode.workspace.fs.rename(uri(base.joinPath('centre-op-b.txt')), uri(base.joinPath('centre-op-c.txt')));
    await vscode.workspace.fs.delete(uri(a));
    const copy = recordOf('copy', 'centre-op-b.txt');
    const move = recordOf('move', 'centre-op-c.txt');
    const removed = events.list().find((r) => r.kind === 'delete' && r.source.endsWith('/centre-op-a.txt'));
    for (const [what, r] of [['copy', copy], ['move', move], ['delete', removed]] as const) {
      assert.equal(r?.state, 'done', `${what}: ${JSON.stringify(r)}`);
    }
    assert.equal(events.actions(move!).cancel, false);
    if (!panel.panel.visible) panel.panel.reveal();
    await waitFor('the operations drawn', () => [copy!, move!, removed!].every((r) => panel.rendered.some((x) => x.id === r.id && x.state === 'done')), 30_000);
  });

  it('rejects a message of the wrong shape, and Clear empties the list in the webview', async () => {
    for (const bad of [{ type: 'action', requestId: 1, action: 'delete', id: 1 }, { type: 'clear' }, { type: 'action', requestId: 'x', action: 'open', id: 1 }, null]) {
      assert.equal(await panel.receive(bad), false, JSON.stringify(bad));
    }
    if (!panel.panel.visible) panel.panel.reveal();
    await waitFor('the panel ready', () => panel.isReady);
    const emptied = nextReceived(panel, (m): m is Rendered => m.type === 'rendered' && m.rows.length === 0);
    const answer = await act(panel, ++requestId, { type: 'clear', requestId });
    assert.equal(answer.error, undefined);
    await emptied;
    assert.deepEqual(events.list().filter((r) => r.state !== 'running'), []);
  });

  it('restores after a reload through the serializer, with its own (narrow) resource roots', async () => {
    const ext = vscode.extensions.getExtension('firecrest-community.firecrest-vscode')!.extensionUri;
    const old = panel;
    const restored = (await vscode.commands.executeCommand<TransfersPanel>('firecrest.test.transfersRestore', { enableScripts: true, localResourceRoots: [ext] }));
    assert.notEqual(restored, old);
    assert.deepEqual(restored.panel.webview.options.localResourceRoots?.map((u) => u.path).sort(), [`${ext.path}/dist`, `${ext.path}/media/webviews`]);
    await nextReceived(restored, (m): m is Rendered => m.type === 'rendered');
    assert.ok(restored.isReady);
    panel = restored;
  });
});
