/**
 * The client against the upstream v2 server's behaviour (issue 16), reproduced by the local
 * gateway in its upstream compat mode (`PUT /_admin/compat`): attach without a shell, 500 for an
 * unknown job's cancel, 0-byte uploads that time out, `view` sliced by characters, unescaped
 * quotes, C-escaped names, partitions without default or limit, and an ingress job that looks for
 * the upload only now and then. Each case shows the upstream behaviour, then that the extension
 * copes with it.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FirecrestUri, InvalidInputError, NotFoundError, ServerError, type FirecrestClient, type Progress } from '../../src/core/index';
import { OffsetReader } from '../../src/core/offsetReader';
import { bashCommand } from '../../src/core/shellQuote';
import { RemoteFileSystem } from '../../src/fs/remoteFileSystem';
import { parseSbatchScript } from '../../src/core/sbatch/parser';
import { liveChecks } from '../../src/core/sbatch/liveChecks';
import { gatewayOnly } from '../support/target';
import { client, dec, enc, gateway, scratchDir, t } from './support';

const compat = gateway.compat;

const S = t.system;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

void describe('upstream v2 behaviour (gateway compat mode)', { skip: gatewayOnly() || (t.apiVersion !== 'v2' ? 'runs with API v2' : false) }, () => {
  let c: FirecrestClient;
  let dir = '';
  before(async () => {
    c = await client();
    dir = await scratchDir(c, 'compat');
    await compat('upstream', 4);
  });
  after(async () => {
    await compat('none');
    await gateway.settings({ commandTimeoutSeconds: 15 });
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('attach: a command that needs a shell fails upstream; the extension\'s bash -c wrapping works', async () => {
    const id = await c.submitJob(S, { name: 'compat-attach', workingDirectory: dir, script: '#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 120\n' });
    try {
      for (let i = 0; (await c.job(S, id)).stateClass !== 'running'; i++) {
        assert.ok(i < 240, 'the job started');
        await new Promise((r) => setTimeout(r, 500));
      }
      const out = `${dir}/attach.out`;
      const script = `{ echo "in job $SLURM_JOB_ID"\n} > '${out}' 2>&1; echo "[exit $?]" >> '${out}'`;
      await assert.rejects(c.attachToJob(S, id, script), (e: unknown) => e instanceof ServerError && /execve\(\): \{: No such file or directory/.test(e.message));
      await c.attachToJob(S, id, bashCommand(script));
      assert.equal(dec(await c.downloadSmall(S, out)), `in job ${id}\n[exit 0]\n`);
    } finally {
      await c.cancelJob(S, id).catch(() => undefined);
    }
  });

  void it('cancel of an unknown job: upstream answers 500, the client says NotFound', async () => {
    await assert.rejects(c.cancelJob(S, '987654321'), NotFoundError);
  });

  void it('empty files: upstream times a 0-byte upload out; creating and emptying files still works', async () => {
    await gateway.settings({ commandTimeoutSeconds: 2 });
    try {
      const raw = await fetch(`${t.url}/filesystem/${S}/ops/upload?path=${encodeURIComponent(dir)}`, { method: 'POST', headers: { authorization: `Bearer ${await tokenOf()}` }, body: formWith('raw-empty.txt', new Uint8Array(0)) });
      assert.equal(raw.status, 408, 'upstream: a direct upload of 0 bytes times out');
    } finally {
      await gateway.settings({ commandTimeoutSeconds: 15 });
    }
    await c.uploadSmall(S, dir, 'empty.txt', new Uint8Array(0));
    const listed = (await c.list(S, dir)).find((e) => e.name === 'empty.txt');
    assert.equal(listed?.size, 0);
    const rfs = new RemoteFileSystem({ clientFor: async () => c, directLimit: async () => 1 << 20, ttlMs: 0 });
    const file = FirecrestUri.from({ system: S, path: `${dir}/was-full.txt` });
    await rfs.writeFile(file, enc('something'), { create: true, overwrite: true });
    await rfs.writeFile(file, new Uint8Array(0), { create: false, overwrite: true });
    assert.equal((await c.downloadSmall(S, file.path)).byteLength, 0, 'a save of empty content empties the file');
    assert.ok(!(await c.list(S, dir, { showHidden: true })).some((e) => e.name.includes('f7t-empty')), 'no archive is left');
  });

  void it('view by offset: upstream slices characters; the offset reader stays byte-exact', async () => {
    const text = 'ab ü cd ✓ efgh\n'.repeat(300) + 'end ✓\n';
    await c.uploadSmall(S, dir, 'utf8.txt', enc(text));
    const naive = await c.view(S, `${dir}/utf8.txt`, { offset: 8, size: 8 });
    assert.notEqual(naive, Buffer.from(text).subarray(8, 16).toString('utf8'), 'upstream answers other characters than bytes 8..16');
    const reader = new OffsetReader(c, S, `${dir}/utf8.txt`, 1000);
    let got = '';
    for (;;) {
      const r = await reader.read({ final: true });
      got += r.text;
      if (!r.full) break;
    }
    assert.equal(got, text);
  });

  void it("a name with ' fails upstream: a clear refusal, nothing half-done", async () => {
    await assert.rejects(c.uploadSmall(S, dir, "it's.txt", enc('x')), (e: unknown) => e instanceof InvalidInputError && /cannot handle ' in file names/.test(e.message));
    assert.ok(!(await c.list(S, dir, { showHidden: true })).some((e) => e.name.includes('it')), 'nothing was left behind');
  });

  void it('paths with whitespace: upstream cannot checksum or stage them; saves, checksums and staged downloads still verify, and leave nothing behind', async () => {
    const folder = `${dir}/My Project`;
    await c.mkdir(S, folder, { parents: true });
    const small = enc('saved in a folder with a space\n');
    await c.uploadSmall(S, folder, 'run notes.txt', small);
    const raw = await fetch(`${t.url}/filesystem/${S}/ops/checksum?path=${encodeURIComponent(`${folder}/run notes.txt`)}`, { headers: { authorization: `Bearer ${await tokenOf()}` } });
    assert.equal(raw.status, 500, 'upstream: the checksum of such a path is "Invalid output"');
    assert.match(await raw.text(), /Invalid output/);
    assert.equal((await c.checksum(S, `${folder}/run notes.txt`)).checksum, sha256(small));
    // A save there is verified, not reported as failed.
    const rfs = new RemoteFileSystem({ clientFor: async () => c, directLimit: async () => 1 << 20, ttlMs: 0 });
    const saved = enc('edited\n');
    await rfs.writeFile(FirecrestUri.from({ system: S, path: `${folder}/run notes.txt` }), saved, { create: false, overwrite: true });
    assert.equal(dec(await c.downloadSmall(S, `${folder}/run notes.txt`)), 'edited\n');
    // A backslash in the name: sha256sum marks the line, upstream leaves the mark on the sum.
    await c.uploadSmall(S, dir, 'back\\slash.txt', small);
    assert.equal((await c.checksum(S, `${dir}/back\\slash.txt`)).checksum, sha256(small));
    // A staged download of such a path (upstream's staging job takes the path unquoted).
    const big = randomBytes(6 * 1024 * 1024);
    await c.transfers.uploadBytes(S, big, `${folder}/big data.bin`);
    const local = join(await mkdtemp(join(tmpdir(), 'f7t-compat-')), 'big data.bin');
    try {
      const r = await c.transfers.downloadFile(S, `${folder}/big data.bin`, local);
      assert.equal(r.route, 'staged');
      assert.equal(r.verified, true, r.note);
      assert.equal(sha256(await readFile(local)), sha256(big));
    } finally {
      await rm(dirname(local), { recursive: true, force: true });
    }
    const leftovers = [...await c.list(S, dir, { showHidden: true }), ...await c.list(S, folder, { showHidden: true })].filter((e) => e.name.startsWith('.f7t-alias-'));
    assert.deepEqual(leftovers.map((e) => e.name), [], 'the temporary symlinks are gone');
  });

  void it('connections closed while idle (uvicorn: after 5 s, unannounced): the client lets go first, and a request caught by the close is sent again', async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    try {
      // 5.5 s of silence, past uvicorn's 5 s: the client dropped its connection at 4 s.
      await c.list(S, dir);
      await gateway.resetStats();
      await sleep(5500);
      await c.mkdir(S, `${dir}/after-silence`);
      assert.equal((await gateway.stats()).idleDrops, 0, 'no request went out on a connection the server had closed');
      // A server that closes sooner than the client expects. A submission the close catches is
      // looked for, not found, and sent again once; an upload (the same bytes twice leave the same
      // file) is sent again at once.
      await compat('upstream', 4, 1);
      await c.list(S, dir);
      await sleep(1500);
      const name = `compat-idle-${randomBytes(3).toString('hex')}`;
      const id = await c.submitJob(S, { name, workingDirectory: dir, script: '#!/bin/bash\n#SBATCH --time=00:01:00\ntrue\n' });
      // (The lookup's own looks, a second apart, are caught too: GETs, sent again.)
      const afterSubmit = (await gateway.stats()).idleDrops;
      assert.ok(afterSubmit >= 1, 'the submission was caught by the close');
      assert.deepEqual((await c.jobs(S)).filter((j) => j.name === name).map((j) => j.id), [id], 'one job');
      await sleep(1500);
      await c.uploadSmall(S, dir, 'caught.txt', enc('caught by the close'));
      assert.ok((await gateway.stats()).idleDrops > afterSubmit, 'the upload was caught by the close');
      assert.equal(dec(await c.downloadSmall(S, `${dir}/caught.txt`)), 'caught by the close');
    } finally {
      await compat('upstream', 4);
    }
  });

  void it('names without a UTF-8 locale come C-escaped: listed decoded, and a direct stat finds what a listing misses', async () => {
    await c.uploadSmall(S, dir, 'données.txt', enc('d'));
    assert.ok((await c.list(S, dir)).some((e) => e.name === 'données.txt'), 'decoded from donn\\303\\251es.txt');
    const rfs = new RemoteFileSystem({ clientFor: async () => c, directLimit: async () => 1 << 20 });
    assert.equal((await rfs.stat(FirecrestUri.from({ system: S, path: `${dir}/données.txt` }))).size, 1);
  });

  void it('partitions carry no default and no time limit: batch-script checks neither guess nor fail', async () => {
    const parts = await c.partitions(S);
    assert.ok(parts.length > 0);
    assert.ok(parts.every((p) => p.isDefault === undefined && p.maxTimeSeconds === undefined), JSON.stringify(parts));
    const script = parseSbatchScript(`#!/bin/bash\n#SBATCH --partition=${parts[0].name}\n#SBATCH --time=999:00:00\nhostname\n`);
    const problems = liveChecks(script, { partitions: parts, reservations: [], fetchedAt: Date.now() }, S, new Date());
    assert.deepEqual(problems.map((p) => p.code), [], 'no time-limit verdict without a known limit');
    const none = liveChecks(parseSbatchScript('#!/bin/bash\n#SBATCH --time=10\nhostname\n'), { partitions: parts, reservations: [], fetchedAt: Date.now() }, S, new Date());
    assert.deepEqual(none, []);
  });

  void it('a staged upload says it waits for the cluster while the ingress job looks only now and then', async () => {
    const data = randomBytes(6 * 1024 * 1024);
    const seen: Progress[] = [];
    await c.transfers.uploadBytes(S, data, `${dir}/staged.bin`, { onProgress: (p) => seen.push(p) });
    const waiting = seen.filter((p) => p.phase === 'waiting');
    assert.ok(waiting.length > 0, 'a waiting phase');
    assert.ok(waiting.every((p) => /waiting for the cluster to pick up the upload/.test(p.message ?? '')), JSON.stringify(waiting.slice(0, 3)));
    assert.equal((await c.stat(S, `${dir}/staged.bin`)).size, data.length);
  });
});

async function tokenOf(): Promise<string> {
  const res = await fetch(t.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret }).toString() });
  return ((await res.json()) as { access_token: string }).access_token;
}

function formWith(name: string, data: Uint8Array): FormData {
  const f = new FormData();
  f.append('file', new Blob([data]), name);
  return f;
}

