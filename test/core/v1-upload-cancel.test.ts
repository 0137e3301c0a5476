/**
 * API v1: cancelling a staged upload (xfer-external, one presigned form) invalidates its task, so
 * the server never moves an object of it into place: the task is marked 302 (no longer valid),
 * its presigned form is refused afterwards, and no target file appears, whether the cancel comes
 * before the form is sent or while it streams.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CancelledError, NotFoundError, type FirecrestClient, type Progress, type V1Extras, type V1TaskInfo } from '../../src/core/index';
import { gatewayOnly } from '../support/target';
import { client, gateway, scratchDir, t } from './support';

const S = t.system;
const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

void describe('v1 staged upload cancelled', { skip: t.apiVersion !== 'v1' ? 'runs with --api v1' : gatewayOnly() }, () => {
  let c: FirecrestClient;
  let x: FirecrestClient & V1Extras;
  let dir: string;
  let local: string;
  before(async () => {
    c = await client({}, { apiVersion: 'v1' });
    x = c as FirecrestClient & V1Extras;
    dir = await scratchDir(c, 'v1cancel');
    local = await mkdtemp(join(tmpdir(), 'f7t-v1-cancel-'));
    await writeFile(join(local, 'big.bin'), randomBytes(4 * 1024 * 1024 + 5));
  });
  after(async () => {
    await gateway.clearFaults().catch(() => undefined);
    await c.remove(S, dir).catch(() => undefined);
    await rm(local, { recursive: true, force: true });
    await c.dispose();
  });

  /** The upload task of `remote`: the newest task whose data names it as target. */
  async function taskOf(remote: string): Promise<V1TaskInfo> {
    const mine = (await x.tasks()).filter((k) => rec(k.data).target === remote);
    assert.ok(mine.length > 0, `a task for ${remote}`);
    return mine.sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '')).at(-1) as V1TaskInfo;
  }

  /** POSTs the task's own presigned form (as a late or half-sent upload would arrive). */
  async function postForm(task: V1TaskInfo): Promise<Response> {
    const p = rec(rec(rec(task.data).msg).parameters);
    const form = new FormData();
    for (const [k, v] of Object.entries(rec(p.data))) form.append(k, String(v));
    form.append('file', new Blob(['late bytes']), 'big.bin');
    return fetch(String(p.url), { method: 'POST', body: form });
  }

  async function assertInvalidated(remote: string, e: unknown): Promise<void> {
    assert.ok(e instanceof CancelledError, String(e));
    assert.match(e.message, /accepted the invalidation of staged upload task [0-9a-f]{32}/);
    const task = await taskOf(remote);
    assert.equal(task.status, 302, `task ${task.id}: ${task.description}`);
    const late = await postForm(task);
    assert.equal(late.status, 403, 'the invalidated task\'s form is refused');
    assert.match(await late.text(), /AccessDenied/);
    // The server had its chance to move anything (its poller runs on every put): nothing arrives.
    await new Promise((r) => setTimeout(r, 1000));
    await assert.rejects(c.stat(S, remote), NotFoundError);
  }

  void it('cancelled once the form is there, before it is sent', async () => {
    const remote = `${dir}/before.bin`;
    const ac = new AbortController();
    const e = await c.transfers.upload(S, join(local, 'big.bin'), remote, { signal: ac.signal, onProgress: (p: Progress) => { if (p.phase === '111') ac.abort(); } }).then(() => undefined, (err: unknown) => err);
    await assertInvalidated(remote, e);
  });

  void it('cancelled while the form streams', async () => {
    const remote = `${dir}/during.bin`;
    const ac = new AbortController();
    // The staging area answers slowly, so the cancel lands while the body is still being sent.
    await gateway.faults({ latency: { rate: 1, ms: 3000, minMs: 3000, match: '^POST /s3/' } });
    const e = await c.transfers.upload(S, join(local, 'big.bin'), remote, {
      signal: ac.signal,
      onProgress: (p: Progress) => { if (p.phase === 'uploading') setTimeout(() => ac.abort(), 200); },
    }).then(() => undefined, (err: unknown) => err);
    await gateway.clearFaults();
    await assertInvalidated(remote, e);
  });
});
