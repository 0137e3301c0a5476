/**
 * Resume Interrupted Upload… in the real VS Code when the interrupted upload's transfer job has
 * ended meanwhile (cancelled through the scheduler, as a restarted server or a node failure would
 * end it): the command uploads the file afresh, says so in its result, and the remote file is
 * byte-identical and verified.
 */
import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import type { FirecrestUri } from '../../src/core/uri';
import { gatewayOnly, target } from '../support/target';
import { breakUpload, clearFaults, setSettings } from './fs-gateway';
import { connectWithScratchFolder, vscodeUri } from './support/scratch';
import { skipBecause } from './support/apiVersion';

const PROFILE = 'resume-dead-job-test';
const MiB = 1024 * 1024;
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The unfinished transfer job whose script writes `path` (only that one: the scheduler is shared). */
async function transferJobOf(client: FirecrestClient, system: string, path: string): Promise<string> {
  for (const job of await client.jobs(system)) {
    if (job.isFinal) continue;
    const meta = await client.jobMetadata(system, job.id).catch(() => undefined);
    if (meta?.script?.includes(path)) return job.id;
  }
  throw new Error(`no running transfer job writes ${path}`);
}

describe('Resume Interrupted Upload… after its transfer job ended', function () {
  this.timeout(240_000);
  const t = target();
  let client: FirecrestClient;
  let base: FirecrestUri;
  let local: string;

  before(async function () {
    skipBecause(this, gatewayOnly() || undefined);
    ({ client, base } = await connectWithScratchFolder(PROFILE, 'resume-dead'));
    local = mkdtempSync(join(tmpdir(), 'f7t-resume-dead-'));
    await setSettings(t.gateway, { maxPartSize: MiB });
  });

  after(async () => {
    await clearFaults(t.gateway).catch(() => undefined);
    await setSettings(t.gateway, { maxPartSize: 2147483648 }).catch(() => undefined);
    if (base) await vscode.workspace.fs.delete(vscodeUri(base), { recursive: true }).then(undefined, () => undefined);
    if (local) rmSync(local, { recursive: true, force: true });
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('uploads afresh, says so, and the file arrives verified and byte-identical', async () => {
    const file = join(local, 'dead.bin');
    const data = randomBytes(12 * MiB + 5);
    writeFileSync(file, data);
    const broken = await breakUpload(t.gateway, vscodeUri(base), file);
    assert.ok(broken?.interrupted, 'the upload stopped with parts kept');

    const remotePath = base.joinPath('dead.bin').path;
    const jobId = await transferJobOf(client, t.system, remotePath);
    await client.cancelJob(t.system, jobId);
    assert.match((await client.waitForJob(t.system, jobId, { overallTimeoutMs: 120_000 })).state, /CANCELLED/);

    const resumed = await vscode.commands.executeCommand<{ bytes: number; resumedParts: number; verified: boolean; restarted?: string }>('firecrest.files.resumeUpload', { local: file, remote: broken.interrupted.remote });
    assert.ok(resumed, 'the resume command ran');
    assert.match(resumed.restarted ?? '', new RegExp(`transfer job ${jobId} ended CANCELLED`));
    assert.equal(resumed.resumedParts, 0, 'no part of the dead upload counts as kept');
    assert.equal(resumed.verified, true);
    assert.equal(sha(await vscode.workspace.fs.readFile(vscodeUri(base.joinPath('dead.bin')))), sha(data));
    // Done: nothing is left to resume.
    assert.equal(await vscode.commands.executeCommand('firecrest.files.resumeUpload', { local: file, remote: broken.interrupted.remote }), undefined);
  });
});
