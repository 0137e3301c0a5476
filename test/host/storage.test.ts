/**
 * Storage in a real VS Code: the Systems view's Storage group asks nothing until asked (its row
 * says it runs a short job), then shows each file system's use against its limits, from the tool
 * that answered, with the figures' age; the scratch purge preview lists files not read for the
 * purge age, largest first, and Touch to Keep and Download act on the ones chosen. Against the local
 * gateway the test set-up's stubs answer (`quota` for /home, `lfs` for /scratch).
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import type { PurgeCandidate, StorageReport } from '../../src/core/facts/storage';
import type { SnapshotNode } from '../../src/views/treeSnapshot';
import { target } from '../support/target';
import { extensionApi } from './support/extension';

const PROFILE = 'storage-test';

interface PurgeAnswer { preview: { files: PurgeCandidate[]; total: number; folder: string }; action?: string; chosen: string[] }

async function storageGroup(system: string): Promise<SnapshotNode | undefined> {
  const snap = await vscode.commands.executeCommand<{ tree: SnapshotNode[] }>('firecrest.test.systemsTree');
  const conn = snap.tree.find((n) => n.label === PROFILE && n.contextValue?.includes(';connection;'));
  const sys = (conn ? (conn.children ?? []) : snap.tree).find((n) => n.label === system);
  return sys?.children?.find((c) => c.contextValue?.includes(';category;storage;'));
}

describe('Storage (Systems view) and the scratch purge preview', function () {
  this.timeout(240_000);
  const t = target();
  let client: FirecrestClient;
  let scratchFs: string | undefined;

  before(async () => {
    const api = await extensionApi();
    await vscode.commands.executeCommand('firecrest.addConnection', {
      name: PROFILE, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
    });
    client = await api.connections.client(PROFILE);
    scratchFs = (await client.systems()).find((s) => s.name === t.system)?.fileSystems.find((f) => f.dataType === 'scratch')?.path;
  });

  after(async () => {
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('asks nothing until asked; then shows use against the limits, the tool and the age', async () => {
    const before = await storageGroup(t.system);
    assert.ok(before, 'a Storage group under the system');
    assert.equal(before.description, undefined, 'no figures yet');
    assert.deepEqual(before.children?.map((c) => [c.label, c.description, c.command]), [['Ask the cluster for usage and limits', 'runs a short job', 'firecrest.storage.refresh']]);

    const report = await vscode.commands.executeCommand<StorageReport>('firecrest.storage.refresh', { profile: PROFILE, system: t.system });
    assert.ok(report && report.usages.length + report.missing.length > 0);
    const after = await storageGroup(t.system);
    assert.match(after?.description ?? '', /^as of /);
    for (const u of report.usages) {
      const row = after?.children?.find((c) => c.label === u.path);
      assert.ok(row, `a row for ${u.path}`);
      assert.match(row.contextValue ?? '', /;storage;/);
      assert.match(row.tooltip ?? '', new RegExp(`from \`${u.tool === 'lfs' ? 'lfs quota' : u.tool}\``));
    }
    if (t.gateway) {
      const home = after?.children?.find((c) => c.label === '/home');
      assert.match(home?.description ?? '', /^[\d.]+ [KMG]?i?B of 10\.0 GiB \(\d+%\) · [\d,]+ of 100,000 files$/);
      assert.match(home?.tooltip ?? '', /quota 10\.0 GiB, hard limit 12\.0 GiB/);
      if (scratchFs) {
        const scratch = after?.children?.find((c) => c.label === scratchFs);
        assert.match(scratch?.contextValue ?? '', /;storage;scratch;/, 'the purge preview is offered on scratch');
        assert.match(scratch?.tooltip ?? '', /from `lfs quota`/);
      }
    }
  });

  it('lists what the purge would delete, largest first; Touch to Keep takes a file off, Download brings one here', async function () {
    if (!scratchFs) return this.skip(); // needs a file system the system marks as scratch
    const user = (await client.userInfo(t.system)).user.name;
    const folder = `${scratchFs.replace(/\/+$/, '')}/${user}/f7t-host-purge-${Date.now().toString(36)}`;
    await client.mkdir(t.system, folder, { parents: true });
    try {
      await client.uploadSmall(t.system, folder, 'big.dat', new Uint8Array(200 * 1024).fill(1));
      await client.uploadSmall(t.system, folder, 'small.dat', new Uint8Array(2 * 1024).fill(2));
      const id = await client.submitJob(t.system, { script: '#!/bin/bash\n#SBATCH --time=00:02:00\ntouch -a -d "90 days ago" big.dat small.dat\n', workingDirectory: folder, name: 'f7t-host-age' });
      await client.waitForJob(t.system, id, { overallTimeoutMs: 120_000 });
      const ours = (files: PurgeCandidate[]) => files.filter((f) => f.rel.includes(folder.split('/').pop()!));
      const row = { profile: PROFILE, system: t.system, usage: { path: scratchFs } };

      let listed: PurgeCandidate[] = [];
      const kept = await vscode.commands.executeCommand<PurgeAnswer>('firecrest.storage.showPurge', row, {
        pick: async (files: PurgeCandidate[]) => { listed = files; return ours(files).filter((f) => f.rel.endsWith('/big.dat')); },
        action: async () => 'touch',
      });
      assert.deepEqual(ours(listed).map((f) => [f.rel.split('/').pop(), f.bytes]), [['big.dat', 200 * 1024], ['small.dat', 2 * 1024]], 'largest first');
      assert.equal(kept.action, 'touch');

      const into = mkdtempSync(join(tmpdir(), 'fc-purge-'));
      const fetched = await vscode.commands.executeCommand<PurgeAnswer>('firecrest.storage.showPurge', row, {
        pick: async (files: PurgeCandidate[]) => { listed = files; return ours(files); },
        action: async () => 'download',
        downloadTo: async () => into,
      });
      assert.deepEqual(ours(listed).map((f) => f.rel.split('/').pop()), ['small.dat'], 'the touched file is off the list');
      assert.equal(fetched.action, 'download');
      const local = join(into, fetched.chosen[0]);
      assert.ok(existsSync(local) && statSync(local).size === 2 * 1024, 'downloaded under its path in the scratch folder');
    } finally {
      await client.remove(t.system, folder).catch(() => undefined);
    }
  });
});
