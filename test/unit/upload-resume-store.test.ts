/**
 * UploadResumeStore without VS Code: the presigned URLs of an interrupted upload go to secret
 * storage only (global state holds no URL), once per upload; find() puts the state back together;
 * forget() and expiry remove both halves; the listing needs no secret.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UploadResumeStore } from '../../src/common/uploadResumeStore';
import type { StagedUploadState } from '../../src/core/transfer/stagedTransfers';

function memento() {
  const data = new Map<string, unknown>();
  return {
    data,
    get<T>(key: string, fallback?: T): T {
      return (data.has(key) ? structuredClone(data.get(key)) : fallback) as T;
    },
    update(key: string, value: unknown): Thenable<void> {
      if (value === undefined) data.delete(key);
      else data.set(key, structuredClone(value));
      return Promise.resolve();
    },
  };
}

function secrets() {
  const data = new Map<string, string>();
  let writes = 0;
  return {
    data,
    writes: () => writes,
    get: (k: string): Thenable<string | undefined> => Promise.resolve(data.get(k)),
    store: (k: string, v: string): Thenable<void> => { writes++; data.set(k, v); return Promise.resolve(); },
    delete: (k: string): Thenable<void> => { data.delete(k); return Promise.resolve(); },
  };
}

const SIG = 'X-Amz-Signature=deadbeef';
function state(over: Partial<StagedUploadState> = {}): StagedUploadState {
  return {
    version: 1, system: 'daint', remotePath: '/home/alice/big.bin', source: { path: '/tmp/big.bin', size: 3 << 20, mtimeMs: 1 },
    partSize: 1 << 20, partsUploadUrls: [1, 2, 3].map((n) => `https://s3.example/b/k?partNumber=${n}&uploadId=u&${SIG}`),
    completeUploadUrl: `https://s3.example/b/k?uploadId=u&${SIG}`, done: [], transferJob: { jobId: '42', system: 'daint' },
    expiresAt: Date.now() + 3_600_000, ...over,
  };
}

void describe('UploadResumeStore', () => {
  void it('keeps the URLs in secret storage only, written once, and puts the state back together', async () => {
    const m = memento();
    const s = secrets();
    const store = new UploadResumeStore(m, s);
    const st = state();
    await store.save('p', '/tmp/big.bin', st);
    await store.save('p', '/tmp/big.bin', { ...st, done: [{ partNumber: 2, etag: '"e2"' }] });
    await store.save('p', '/tmp/big.bin', { ...st, done: [{ partNumber: 2, etag: '"e2"' }, { partNumber: 1, etag: '"e1"' }] });
    assert.equal(s.writes(), 1, 'the URLs are stored once per upload');
    assert.doesNotMatch(JSON.stringify([...m.data]), /X-Amz-Signature|https:/, 'global state holds no URL');
    assert.deepEqual(store.list(), [{ profile: 'p', localPath: '/tmp/big.bin', system: 'daint', remotePath: '/home/alice/big.bin', partsDone: 2, partsTotal: 3, bytes: 3 << 20, expiresAt: st.expiresAt }]);
    const back = await store.find('p', '/tmp/big.bin', 'daint', '/home/alice/big.bin');
    assert.deepEqual(back, { ...st, done: [{ partNumber: 2, etag: '"e2"' }, { partNumber: 1, etag: '"e1"' }] });
    assert.equal(await store.find(undefined, '/tmp/big.bin', 'daint', '/home/alice/big.bin'), undefined, 'another profile has no such upload');
    await store.forget('p', '/tmp/big.bin', 'daint', '/home/alice/big.bin');
    assert.equal(await store.find('p', '/tmp/big.bin', 'daint', '/home/alice/big.bin'), undefined);
    assert.deepEqual(store.list(), []);
    assert.equal(s.data.size, 0, 'the secret went too');
  });

  void it('drops expired uploads (state and secret) and finds nothing without its secret', async () => {
    const m = memento();
    const s = secrets();
    const store = new UploadResumeStore(m, s);
    await store.save(undefined, '/tmp/old.bin', state({ remotePath: '/home/alice/old.bin', expiresAt: Date.now() + 50 }));
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(await store.find(undefined, '/tmp/old.bin', 'daint', '/home/alice/old.bin'), undefined);
    await store.save(undefined, '/tmp/big.bin', state());
    assert.equal(store.list().length, 1);
    assert.equal(s.data.size, 1, 'the expired upload\'s secret was deleted on the next write');
    // A reload on another machine (settings sync) without the keychain entry: nothing to resume.
    s.data.clear();
    assert.equal(await new UploadResumeStore(m, s).find(undefined, '/tmp/big.bin', 'daint', '/home/alice/big.bin'), undefined);
  });
});
