/**
 * The gateway's trust boundaries (SECURITY.md), probed over real HTTP on both schedulers: what it
 * runs as root, what a user's request can make it write, how much it takes in, and what it accepts
 * as a token. Each test here failed on the code before the fix it guards (issue 15).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { gatewayOnly } from '../support/target';
import { admin, api, gw, requestToken, sleep, t, token, type Json } from '../gateway/support';
import { download, ops, scratchDir, transfer, upload, viewText, waitForJob } from '../gateway/support-fs';

// jose is ESM-only and this project compiles to CommonJS: loaded with a dynamic import.
type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
const loadJose = (): Promise<Jose> => import('jose');

const skip = gatewayOnly();
const enc = (s: string): Buffer => Buffer.from(s, 'utf8');
const jobs = `/compute/${t.system}/jobs`;

/** Programs a user could plant to be run in place of the real ones; each records who ran it. */
const PLANTED = ['setpriv', 'env', 'timeout', 'bash', 'sbatch', 'srun', 'cat', 'dd', 'mv', 'find'];

void describe('gateway: nothing runs as root on a user\'s behalf', { skip }, () => {
  const mark = randomBytes(5).toString('hex');
  const markers = `/tmp/f7t-planted-${mark}`;
  let dir = '';
  let bin = '';
  let cleanup: () => Promise<void> = async () => undefined;

  before(async () => {
    ({ path: dir, remove: cleanup } = await scratchDir('root-path'));
    mkdirSync(markers, { mode: 0o1777 });
    chmodSync(markers, 0o1777);
    bin = `${dir}/evilbin`;
    assert.equal((await ops('mkdir', { method: 'POST', json: { path: bin, parent: true } })).status, 201);
    for (const name of PLANTED) {
      const real = existsSync(`/usr/bin/${name}`) ? `/usr/bin/${name}` : `/bin/${name}`;
      const script = `#!/bin/sh\nid -u > ${markers}/${name}-$$ 2>/dev/null\nexec ${real} "$@"\n`;
      assert.equal((await upload(bin, name, enc(script))).status, 204);
      assert.equal((await ops('chmod', { method: 'PUT', json: { path: `${bin}/${name}`, mode: '755' } })).status, 200);
    }
  });
  after(async () => {
    rmSync(markers, { recursive: true, force: true });
    await cleanup();
  });

  /** Who ran each planted program (uid per marker file); none may be root. */
  function plantedRunsAsRoot(): string[] {
    return readdirSync(markers).filter((f) => readFileSync(join(markers, f), 'utf8').trim() === '0');
  }

  void it('a job whose PATH puts the user\'s folder first runs no planted program as root, and runs as the user', async () => {
    const out = `${dir}/whoami-${mark}.txt`;
    const r = await api(jobs, { method: 'POST', json: { job: {
      name: `f7t-path-${mark}`, workingDirectory: dir, env: { PATH: `${bin}:/usr/bin:/bin` },
      script: `#!/bin/bash\n#SBATCH --time=00:02:00\nid -u > ${out}\n`,
    } } });
    assert.equal(r.status, 201, r.text);
    assert.match(await waitForJob(r.body.jobId as string, 90_000), /^COMPLETED/);
    const uid = (await viewText(out)).trim();
    assert.notEqual(uid, '0', 'the job ran as the user');
    assert.match(uid, /^\d+$/);
    assert.deepEqual(plantedRunsAsRoot(), [], 'no planted program ran as root');
  });

  void it('attach into a job with such a PATH runs no planted program as root', async () => {
    const r = await api(jobs, { method: 'POST', json: { job: {
      name: `f7t-path-attach-${mark}`, workingDirectory: dir, env: { PATH: `${bin}:/usr/bin:/bin` },
      script: '#!/bin/bash\n#SBATCH --time=00:05:00\nsleep 120\n',
    } } });
    assert.equal(r.status, 201, r.text);
    const id = r.body.jobId as string;
    try {
      for (let i = 0; ; i++) {
        const j = await api(`${jobs}/${id}`);
        if (j.status === 200 && String(j.body.jobs[0].status.state).startsWith('RUNNING')) break;
        if (i > 180) assert.fail('the job did not start');
        await sleep(500);
      }
      const out = `${dir}/attached-${mark}.txt`;
      const a = await api(`${jobs}/${id}/attach`, { method: 'PUT', json: { command: `id -u > ${out}` } });
      assert.equal(a.status, 204, a.text);
      assert.notEqual((await viewText(out)).trim(), '0');
    } finally {
      await api(`${jobs}/${id}`, { method: 'DELETE' });
    }
    assert.deepEqual(plantedRunsAsRoot(), [], 'no planted program ran as root');
  });

  void it('environment names no shell can export are refused with 400, on either scheduler', async () => {
    for (const bad of ['A=B', 'BASH_FUNC_x%%', 'X Y', '', '1ABC']) {
      const r = await api(jobs, { method: 'POST', json: { job: { workingDirectory: dir, env: { [bad]: 'x' }, script: '#!/bin/bash\ntrue\n' } } });
      assert.equal(r.status, 400, `${JSON.stringify(bad)}: ${r.text}`);
      assert.match(String(r.body.message), /Invalid environment variable name/);
    }
  });
});

void describe('gateway: what it writes for a user', { skip }, () => {
  let dir = '';
  let cleanup: () => Promise<void> = async () => undefined;
  before(async () => { ({ path: dir, remove: cleanup } = await scratchDir('writes')); });
  after(async () => {
    await admin('PUT', '/settings', { maxExtractBytes: 1073741824, maxStagingBytesPerUser: 68719476736, maxPartSize: 2147483648 });
    await cleanup();
  });

  void it('a direct upload replaces the file whole: the old content stays until the new one is complete, the mode is kept', async () => {
    assert.equal((await upload(dir, 'keep.txt', enc('old content'))).status, 204);
    assert.equal((await ops('chmod', { method: 'PUT', json: { path: `${dir}/keep.txt`, mode: '640' } })).status, 200);
    assert.equal((await upload(dir, 'keep.txt', enc('new content, longer'))).status, 204);
    assert.equal((await download(`${dir}/keep.txt`)).bytes.toString(), 'new content, longer');
    const ls = await ops('ls', { query: { path: dir, showHidden: 'true' } });
    const names = (ls.body.output as Json[]).map((f) => f.name as string);
    assert.deepEqual(names.filter((n) => n.includes('f7t-')), [], 'no temporary file is left');
    assert.equal((ls.body.output as Json[]).find((f) => f.name === 'keep.txt').permissions, 'rw-r-----');
  });

  void it('a staged upload whose transfer to the cluster is cut mid-way leaves the old file as it was', async () => {
    assert.equal((await upload(dir, 'staged.bin', enc('the old content'))).status, 204);
    const data = randomBytes(512 * 1024);
    const r = await transfer('upload', { method: 'POST', json: { path: `${dir}/staged.bin`, transferDirectives: { transferMethod: 's3', fileSize: data.length } } });
    assert.equal(r.status, 201, r.text);
    const d = r.body.transferDirectives as { partsUploadUrls: string[]; completeUploadUrl: string };
    // The ingress job's download of the object breaks after 64 KiB (its HEAD probes are not touched).
    assert.equal((await admin('PUT', '/faults', { cutBody: { next: 1, match: '^GET /s3/', afterBytes: 65536 } })).status, 200);
    try {
      const part = await fetch(d.partsUploadUrls[0], { method: 'PUT', body: data });
      assert.equal(part.status, 200);
      const xml = `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${part.headers.get('etag') ?? ''}</ETag></Part></CompleteMultipartUpload>`;
      assert.equal((await fetch(d.completeUploadUrl, { method: 'POST', body: xml })).status, 200);
      assert.match(await waitForJob(r.body.transferJob.jobId as string, 120_000), /^FAILED/);
    } finally {
      await admin('DELETE', '/faults');
    }
    assert.equal((await download(`${dir}/staged.bin`)).bytes.toString(), 'the old content');
  });

  void it('a file named like an option (-x) is compressed, not taken for a tar option', async () => {
    assert.equal((await upload(dir, '-v', enc('dash'))).status, 204);
    const r = await transfer('compress', { method: 'POST', json: { sourcePath: `${dir}/-v`, targetPath: `${dir}/dash.tar.gz` } });
    assert.equal(r.status, 201, r.text);
    assert.match(await waitForJob(r.body.transferJob.jobId as string, 90_000), /^COMPLETED/);
    const ls = await ops('ls', { query: { path: `${dir}/dash.tar.gz` } });
    assert.equal(ls.status, 200, 'the archive exists');
    assert.ok(Number(ls.body.output[0].size) > 20);
  });

  void it('an archive that expands past the extraction limit is refused, with nothing written', async () => {
    assert.equal((await admin('PUT', '/settings', { maxExtractBytes: 4 * 1024 * 1024 })).status, 200);
    // A tar of one 32 MiB file of zeros gzips to about 32 KiB.
    const header = Buffer.alloc(512);
    header.write('zeros.bin', 0);
    header.write('0000644\0', 100); header.write('0000000\0', 108); header.write('0000000\0', 116);
    header.write(`${(32 * 1024 * 1024).toString(8).padStart(11, '0')}\0`, 124);
    header.write(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, '0')}\0`, 136);
    header.write('        ', 148); header.write('0', 156); header.write('ustar\0', 257); header.write('00', 263);
    let sum = 0; for (const b of header) sum += b;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    const bomb = gzipSync(Buffer.concat([header, Buffer.alloc(32 * 1024 * 1024), Buffer.alloc(1024)]));
    assert.ok(bomb.length < 200_000);
    assert.equal((await upload(dir, 'bomb.tar.gz', bomb)).status, 204);
    assert.equal((await ops('mkdir', { method: 'POST', json: { path: `${dir}/out`, parent: true } })).status, 201);
    const r = await ops('extract', { method: 'POST', json: { sourcePath: `${dir}/bomb.tar.gz`, targetPath: `${dir}/out`, compression: 'gzip' } });
    assert.notEqual(r.status, 204, 'refused');
    assert.match(String(r.body.message), /expands to more than 4194304 bytes/);
    const ls = await ops('ls', { query: { path: `${dir}/out`, showHidden: 'true' } });
    assert.deepEqual(ls.body.output, [], 'nothing was extracted');
  });

  void it('a staged part larger than its share of the declared size is refused before it is stored (S3 EntityTooLarge)', async () => {
    const r = await transfer('upload', { method: 'POST', json: { path: `${dir}/ten.bin`, transferDirectives: { transferMethod: 's3', fileSize: 10 } } });
    assert.equal(r.status, 201, r.text);
    try {
      const url = r.body.transferDirectives.partsUploadUrls[0] as string;
      const big = await fetch(url, { method: 'PUT', body: Buffer.alloc(8 * 1024 * 1024), headers: { 'content-type': 'application/octet-stream' } });
      assert.equal(big.status, 400);
      assert.match(await big.text(), /<Code>EntityTooLarge<\/Code>/);
      const ok = await fetch(url, { method: 'PUT', body: Buffer.alloc(10, 1) });
      assert.equal(ok.status, 200, 'the declared size itself is accepted');
    } finally {
      await api(`${jobs}/${r.body.transferJob.jobId as string}`, { method: 'DELETE' });
    }
  });

  void it('a user past the staging quota is refused with S3\'s error shape', async () => {
    assert.equal((await admin('PUT', '/settings', { maxStagingBytesPerUser: 1024 * 1024 })).status, 200);
    const r = await transfer('upload', { method: 'POST', json: { path: `${dir}/quota.bin`, transferDirectives: { transferMethod: 's3', fileSize: 2 * 1024 * 1024 } } });
    assert.equal(r.status, 201, r.text);
    try {
      const res = await fetch(r.body.transferDirectives.partsUploadUrls[0] as string, { method: 'PUT', body: Buffer.alloc(2 * 1024 * 1024) });
      assert.equal(res.status, 403);
      const text = await res.text();
      assert.match(text, /<Code>QuotaExceeded<\/Code>/);
      assert.match(text, /<Message>[^<]*quota[^<]*<\/Message>/);
    } finally {
      await api(`${jobs}/${r.body.transferJob.jobId as string}`, { method: 'DELETE' });
    }
  });
});

void describe('gateway: tokens and connections', { skip }, () => {
  async function signWithGatewayKey(claims: Record<string, unknown>, withExp: boolean, issuer?: string): Promise<string> {
    const jose = await loadJose();
    const stored = JSON.parse(readFileSync(join(gw().stateDir ?? '', 'jwt-keys.json'), 'utf8')) as { kid: string; privateJwk: Record<string, unknown> };
    const key = await jose.importJWK(stored.privateJwk, 'RS256');
    const now = Math.floor(Date.now() / 1000);
    let b = new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: stored.kid }).setIssuedAt(now);
    if (withExp) b = b.setExpirationTime(now + 300);
    if (issuer) b = b.setIssuer(issuer);
    return b.sign(key);
  }

  void it('refuses a token of the gateway\'s own key with another issuer, without an issuer, or without exp', async () => {
    const jose = await loadJose();
    const ours = String(jose.decodeJwt(await token()).iss);
    const user = String(jose.decodeJwt(await token()).preferred_username);
    const control = await api('/status/systems', { auth: `Bearer ${await signWithGatewayKey({ preferred_username: user }, true, ours)}` });
    assert.equal(control.status, 200, 'the same claims with our issuer and an exp are accepted');
    for (const [what, jwt] of [
      ['a foreign issuer', await signWithGatewayKey({ preferred_username: user }, true, 'https://idp.example.org/realms/other')],
      ['no issuer', await signWithGatewayKey({ preferred_username: user }, true)],
      ['no exp', await signWithGatewayKey({ preferred_username: user }, false, ours)],
    ] as const) {
      const r = await api('/status/systems', { auth: `Bearer ${jwt}` });
      assert.equal(r.status, 401, `${what}: ${r.text}`);
      assert.equal(r.body.message, 'Access token is invalid.', what);
    }
  });

  void it('limits failed token requests per client id with 429 and Retry-After', async () => {
    const id = `guess-${randomBytes(4).toString('hex')}`;
    const codes: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 12; i++) {
      const r = await requestToken(id, `wrong-${i}`);
      codes.push(r.status);
      if (r.status === 429) retryAfter = r.headers.get('retry-after');
    }
    assert.deepEqual(codes.slice(0, 10), Array<number>(10).fill(401));
    assert.deepEqual(codes.slice(10), [429, 429]);
    assert.ok(retryAfter !== null && Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After ${retryAfter}`);
    const fine = await requestToken();
    assert.equal(fine.status, 200, 'other clients are not affected');
  });

  void it('closes a connection whose headers never finish', async () => {
    const url = new URL(t.url);
    const started = Date.now();
    const closed = await new Promise<boolean>((resolve) => {
      const s = connect(Number(url.port), url.hostname, () => s.write('GET /v2/status/systems HTTP/1.1\r\nHost: x\r\n'));
      s.on('data', () => undefined);
      s.on('close', () => resolve(true));
      s.on('error', () => undefined);
      // Keep trickling a header line now and then, as a slow-loris client does.
      const drip = setInterval(() => s.write('X-Slow: 1\r\n'), 2000);
      s.on('close', () => clearInterval(drip));
      setTimeout(() => { clearInterval(drip); s.destroy(); resolve(false); }, 40_000).unref();
    });
    assert.ok(closed && Date.now() - started < 35_000, `closed after ${Date.now() - started} ms`);
  });
});
