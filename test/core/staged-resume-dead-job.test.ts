/**
 * Resuming a staged upload whose transfer job is gone: the job is cancelled through the scheduler
 * (the client's `cancelJob`, i.e. scancel) between the interruption and the resume, as a restarted
 * server or a NODE_FAIL would end it. The resume notices before sending any part, starts a fresh
 * staged upload of the same file, says so in the progress message, and ends with a verified,
 * byte-identical file. Also for a state that had already completed its multipart upload.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancelledError, InvalidInputError, type FirecrestClient, type Progress, type StagedUploadState } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { client, gateway, scratchDir, t } from './support';

const S = t.system;
const MiB = 1024 * 1024;
let c: FirecrestClient;
let dir = '';
let local = '';

function makeFile(path: string, size: number): string {
  const data = randomBytes(size);
  writeFileSync(path, data);
  return createHash('sha256').update(data).digest('hex');
}

const partPuts = async (): Promise<number> => (await gateway.stats()).byRoute['PUT /s3/{bucket}/*'] ?? 0;

/** Cancels the job through the scheduler and waits until the scheduler reports it ended. */
async function killJob(jobId: string): Promise<string> {
  await c.cancelJob(S, jobId).catch(() => undefined);
  return (await c.waitForJob(S, jobId, { overallTimeoutMs: 120_000 })).state;
}

/** Resumes `saved`; the remote file must be byte-identical to the local one and verified. */
async function resumeAndCheck(src: string, remote: string, hash: string, saved: StagedUploadState): Promise<{ events: Progress[]; states: StagedUploadState[] }> {
  const events: Progress[] = [];
  const states: StagedUploadState[] = [];
  await gateway.resetStats();
  const r = await c.transfers.upload(S, src, remote, { resume: JSON.parse(JSON.stringify(saved)) as StagedUploadState, onProgress: (p) => events.push(p), onState: (s) => states.push(s), signal: AbortSignal.timeout(180_000) });
  assert.equal(r.verified, true, r.note);
  assert.equal(r.sha256, hash);
  assert.match(r.restarted ?? '', new RegExp(`transfer job ${saved.transferJob.jobId} (ended|is gone)`));
  assert.equal((await c.checksum(S, remote)).checksum.toLowerCase(), hash, 'the server holds the same bytes');
  assert.equal(await partPuts(), 6, 'every part of the fresh upload is sent once; nothing is sent to the dead one');
  assert.ok(states.length > 0 && states.every((s) => s.transferJob.jobId !== saved.transferJob.jobId), 'the saved state is replaced by the fresh upload');
  assert.ok(events.some((e) => e.phase === 'staging' && /cannot be reused .*fresh staged upload/.test(e.message ?? '')), 'the progress message says the upload starts afresh');
  return { events, states };
}

before(async () => {
  c = await client();
  dir = await scratchDir(c, 'resume-dead');
  local = mkdtempSync(join(tmpdir(), 'f7t-resume-dead-'));
  if (t.gateway) await gateway.settings({ maxPartSize: MiB });
});
after(async () => {
  if (t.gateway) {
    await gateway.clearFaults();
    await gateway.settings({ maxPartSize: 2147483648 });
  }
  await c.remove(S, dir).catch(() => undefined);
  await c.dispose();
  rmSync(local, { recursive: true, force: true });
});

void describe('resuming a staged upload whose transfer job ended', { skip: gatewayOnly() }, () => {
  void it('parts interrupted, job cancelled by the scheduler: the resume starts afresh and the file arrives intact', async () => {
    const src = join(local, 'parts.bin');
    const hash = makeFile(src, 6 * MiB - 17);
    let saved: StagedUploadState | undefined;
    // A refused first part (400 is not retried) fails the upload; with no part accepted the client
    // cancels the job itself (as the scheduler might have); the saved state still names it.
    await gateway.faults({ error: { next: 1, statuses: [400], match: '^PUT /s3/' } });
    await assert.rejects(c.transfers.upload(S, src, `${dir}/parts.bin`, { parallelism: 1, attempts: 1, onState: (s) => { saved = s; } }), InvalidInputError);
    await gateway.clearFaults();
    assert.ok(saved && !saved.completed);
    assert.match(await killJob(saved.transferJob.jobId), /CANCELLED/);
    await resumeAndCheck(src, `${dir}/parts.bin`, hash, saved);
  });

  void it('a completed multipart upload whose job was cancelled restarts too', async (tc) => {
    const src = join(local, 'completed.bin');
    const hash = makeFile(src, 6 * MiB - 17);
    // The transfer job moves the object as soon as it appears: a cancel can come too late. Try again then.
    for (let attempt = 1; attempt <= 3; attempt++) {
      let saved: StagedUploadState | undefined;
      const ac = new AbortController();
      // Stopped while waiting for the transfer job: the client cancels that job itself.
      await assert.rejects(c.transfers.upload(S, src, `${dir}/completed.bin`, {
        signal: ac.signal,
        onState: (s) => { saved = s; },
        onProgress: (p) => { if (p.phase === 'waiting') ac.abort(); },
      }), CancelledError);
      assert.ok(saved?.completed, 'the state says the multipart upload was completed');
      const state = await killJob(saved.transferJob.jobId);
      await c.remove(S, `${dir}/completed.bin`).catch(() => undefined);
      if (!/CANCELLED/.test(state)) continue;
      await resumeAndCheck(src, `${dir}/completed.bin`, hash, saved);
      return;
    }
    tc.skip('the transfer job moved the file before each of three cancels reached it');
  });
});
