/**
 * Upload from Local… and Download to Local… in the real VS Code: a folder of mixed small and large
 * (above the direct limit: staged) files both ways, byte-identical; and an upload interrupted by
 * dropped part PUTs (the gateway's dropBefore switch) resumed with Resume Interrupted Upload…,
 * which sends only the parts the staging area does not have (PUTs counted by /_admin/stats).
 */
import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import { FirecrestUri } from '../../src/core/uri';
import { connectWithScratchFolder } from './support/scratch';
import { gatewayOnly, target } from '../support/target';
import { breakUpload, clearFaults, setSettings, statsOf } from './fs-gateway';
import { skipBecause } from './support/apiVersion';

const PROFILE = 'fs-transfer-test';
const MiB = 1024 * 1024;
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Every file below `root` with its SHA-256, by relative path. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out[relative(root, join(e.parentPath, e.name))] = sha(readFileSync(join(e.parentPath, e.name)));
  }
  return out;
}

interface Summary { files: number; bytes: number; interrupted?: { local: string; remote: string; partsDone: number; partsTotal: number } }

describe('Upload from Local… / Download to Local… (folders, resume)', function () {
  this.timeout(240_000);
  const t = target();
  let client: FirecrestClient;
  let base: FirecrestUri;
  let local: string;
  let limit = MiB;
  const uri = (f: FirecrestUri) => vscode.Uri.from({ scheme: 'firecrest', authority: f.authority, path: f.path });

  before(async () => {
    const scratch = await connectWithScratchFolder(PROFILE, 'fs-transfer');
    ({ client, base } = scratch);
    limit = (await client.systems()).find((s) => s.name === t.system)?.maxDirectTransferSize ?? MiB;
    local = mkdtempSync(join(tmpdir(), 'f7t-fs-transfer-'));
    // Several parts for a few MiB (gateway only; a real deployment keeps its own part size).
    if (!gatewayOnly()) await setSettings(t.gateway, { maxPartSize: MiB });
  });

  after(async () => {
    await clearFaults(t.gateway).catch(() => undefined);
    if (!gatewayOnly()) await setSettings(t.gateway, { maxPartSize: 2147483648 });
    if (base) await vscode.workspace.fs.delete(uri(base), { recursive: true }).then(undefined, () => undefined);
    if (local) rmSync(local, { recursive: true, force: true });
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('uploads a folder of small and large files and downloads it back byte-identical', async () => {
    const src = join(local, 'mixed');
    mkdirSync(join(src, 'sub', 'deeper'), { recursive: true });
    writeFileSync(join(src, 'small.txt'), 'hello\n');
    writeFileSync(join(src, 'empty'), '');
    writeFileSync(join(src, 'sub', 'at-limit.bin'), randomBytes(limit));
    writeFileSync(join(src, 'sub', 'big.bin'), randomBytes(limit + 3 * MiB + 11));
    writeFileSync(join(src, 'sub', 'deeper', 'big2.bin'), randomBytes(limit + 1));
    writeFileSync(join(src, 'sub', 'deeper', 'note.md'), '# note\n');
    const want = tree(src);

    const up = await vscode.commands.executeCommand<Summary>('firecrest.files.upload', uri(base), { localPaths: [src], replace: true });
    assert.equal(up?.files, Object.keys(want).length);
    assert.equal(up.interrupted, undefined);
    const remoteBig = await vscode.workspace.fs.readFile(uri(base.joinPath('mixed', 'sub', 'big.bin')));
    assert.equal(sha(remoteBig), want[join('sub', 'big.bin')]);

    const into = join(local, 'down');
    mkdirSync(into);
    const down = await vscode.commands.executeCommand<Summary>('firecrest.files.download', uri(base.joinPath('mixed')), { localPath: into });
    assert.equal(down?.files, Object.keys(want).length);
    assert.deepEqual(tree(join(into, 'mixed')), want);
    assert.deepEqual(readdirSync(join(into, 'mixed', 'sub')).filter((n) => n.endsWith('.f7t-part')), [], 'no temporary file is left');
  });

  it('refuses a large upload into a folder the user cannot write before sending any of it, and offers no Resume', async function () {
    const stats = statsOf(t.gateway);
    if (!stats || gatewayOnly()) return skipBecause(this, gatewayOnly() || 'needs the local gateway\'s request counts');
    const file = join(local, 'denied.bin');
    writeFileSync(file, randomBytes(limit + 2 * MiB));
    const rootOwned = FirecrestUri.from({ system: base.system, path: '/usr', profile: base.profile });
    await stats.reset();
    const r = await vscode.commands.executeCommand<Summary | undefined>('firecrest.files.upload', uri(rootOwned), { localPaths: [file], replace: true });
    assert.equal(r, undefined, 'the upload failed');
    assert.equal(await stats.count(/^PUT \/s3\//), 0, 'no part of the file was sent');
    assert.equal(await stats.count(/transfer\/upload|xfer-external\/upload/), 0, 'no staged upload was even opened');
  });

  it('resumes an upload broken by dropped part PUTs, sending only the missing parts', async function () {
    const stats = statsOf(t.gateway);
    if (!stats || gatewayOnly()) return skipBecause(this, gatewayOnly() || 'needs the local gateway\'s request counts');
    const file = join(local, 'resume.bin');
    const data = randomBytes(12 * MiB + 5);
    writeFileSync(file, data);
    const partsTotal = 13;
    const broken = await breakUpload(t.gateway, uri(base), file);
    assert.ok(broken?.interrupted, 'the upload stopped with parts kept');
    assert.equal(broken.files, 0);
    assert.equal(broken.interrupted.partsTotal, partsTotal);
    const kept = broken.interrupted.partsDone;
    assert.ok(kept >= 1 && kept < partsTotal, `${kept} parts kept`);

    await stats.reset();
    const resumed = await vscode.commands.executeCommand<{ bytes: number; resumedParts: number; verified: boolean }>('firecrest.files.resumeUpload', { local: file, remote: broken.interrupted.remote });
    assert.ok(resumed, 'the resume command ran');
    assert.equal(resumed.resumedParts, kept);
    assert.equal(resumed.bytes, data.length);
    assert.equal(resumed.verified, true);
    assert.equal(await stats.count(/^PUT \/s3\//), partsTotal - kept, 'only the missing parts were sent');
    assert.equal(sha(await vscode.workspace.fs.readFile(uri(base.joinPath('resume.bin')))), sha(data));
    // Done: nothing is left to resume.
    assert.equal(await vscode.commands.executeCommand('firecrest.files.resumeUpload', { local: file, remote: broken.interrupted.remote }), undefined);
  });
});
