/**
 * Bad input through the client: hostile file names, over-long names and paths, odd job scripts and
 * broken settings. Each case ends in the right result or a typed error that says what is wrong, and
 * nothing a name contains is ever run as a command. (Self-signed TLS and HTML answers are covered
 * by test/core/tls.test.ts and test/core/malformed.test.ts.)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FirecrestError, FirecrestUri, InvalidInputError, UnauthorizedError, UnavailableError, type FirecrestClient } from '../../src/core/index';
import { client, dec, enc, scratchDir, t } from '../core/support';
import { gatewayOnly } from '../support/target';

// A name cannot hold '/', so the canaries create `pwned-<random>` in the home of whoever runs them.
const canary = `pwned-${randomBytes(6).toString('hex')}`;
const HOSTILE = [
  'with space', `quote'single`, 'dollar$HOME', 'back`tick`', 'semi;colon', 'tab\there',
  '-leading-dash', 'ünïcödé', 'emoji-🚀', `$(cd;touch ${canary})`, `\`cd;touch ${canary}\``, `x; cd; touch ${canary}`,
];

void describe('bad input through the client', () => {
  let c: FirecrestClient;
  let dir: string;
  before(async () => {
    c = await client();
    dir = await scratchDir(c, 'badinput');
  });
  after(async () => {
    await c.remove(t.system, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('hostile names survive upload, list, download, checksum, move and remove; nothing runs', async () => {
    for (const name of HOSTILE) {
      const body = enc(`content of ${name}`);
      try {
        await c.uploadSmall(t.system, dir, name, body);
      } catch (e) {
        // A server may refuse a name (v1 refuses control characters): then it must say so, typed.
        assert.ok(e instanceof InvalidInputError, `${JSON.stringify(name)}: ${String(e)}`);
        continue;
      }
      assert.ok((await c.list(t.system, dir, { showHidden: true })).some((e) => e.name === name), `${JSON.stringify(name)} not listed`);
      assert.equal(dec(await c.downloadSmall(t.system, `${dir}/${name}`)), `content of ${name}`);
      assert.match((await c.checksum(t.system, `${dir}/${name}`)).checksum, /^[0-9a-f]{64}$/i);
      await c.move(t.system, `${dir}/${name}`, `${dir}/${name}.moved`);
      await c.remove(t.system, `${dir}/${name}.moved`);
      await c.mkdir(t.system, `${dir}/${name}.d`);
      await c.remove(t.system, `${dir}/${name}.d`);
    }
    assert.deepEqual((await c.list(t.system, dir, { showHidden: true })).map((e) => e.name), []);
    const home = dir.slice(0, dir.lastIndexOf('/'));
    assert.ok(!(await c.list(t.system, home, { showHidden: true })).some((e) => e.name === canary), `a name ran a command: ${home}/${canary} exists`);
    // The gateway runs on this machine: neither its working directory nor root's home got one.
    if (!gatewayOnly()) for (const d of [process.cwd(), homedir(), tmpdir()]) assert.equal(existsSync(join(d, canary)), false, `${d}/${canary} exists`);
  });

  // The v2 upload names the file by the multipart filename (§3.4). undici's FormData writes `"` as
  // %22 and a line break as %0A (WHATWG form encoding), which servers store as they are; the client
  // writes the part itself (`"` and `\` escaped) and gives names no header line can carry (line
  // breaks, backslashes) a temporary name and a rename.
  void it('names with a double quote, a newline or a backslash upload under their own name', async () => {
    for (const name of ['quote"double', 'new\nline', 'back\\slash', 'all"\\of\nthem\r', '\\\\unc-like', 'c:\\drive-like']) {
      await c.uploadSmall(t.system, dir, name, enc(`content of ${name}`));
      const listed = (await c.list(t.system, dir, { showHidden: true })).map((e) => e.name);
      const body = listed.includes(name) ? dec(await c.downloadSmall(t.system, `${dir}/${name}`)) : undefined;
      for (const n of listed) await c.remove(t.system, `${dir}/${n}`);
      assert.deepEqual(listed, [name], `${JSON.stringify(name)} stored as ${JSON.stringify(listed)}`);
      assert.equal(body, `content of ${name}`);
    }
  });

  void it('a 255-byte name works; 256 bytes and a 4 KB path are typed errors naming the refusal', async () => {
    const n255 = 'n'.repeat(251) + '.txt';
    await c.uploadSmall(t.system, dir, n255, enc('x'));
    assert.equal(dec(await c.downloadSmall(t.system, `${dir}/${n255}`)), 'x');
    await assert.rejects(c.uploadSmall(t.system, dir, 'n'.repeat(256), enc('x')), (e: unknown) => e instanceof FirecrestError && /too long|name|invalid|256|255/i.test(e.message));
    const deep = `${dir}/${Array.from({ length: 45 }, () => 'd'.repeat(100)).join('/')}`;
    await assert.rejects(c.mkdir(t.system, deep, { parents: true }), (e: unknown) => e instanceof FirecrestError && e.message.length > 0);
    await assert.rejects(c.stat(t.system, deep), (e: unknown) => e instanceof FirecrestError);
  });

  void it('FirecrestUri normalises `..` segments and a trailing slash; nobody escapes the root', () => {
    assert.equal(FirecrestUri.from({ system: 's', path: '/home/a/../b/./c/' }).path, '/home/b/c');
    assert.equal(FirecrestUri.from({ system: 's', path: '/../../etc' }).path, '/etc');
    assert.equal(FirecrestUri.parse('firecrest://s/home/x/../y/').path, '/home/y');
    assert.equal(FirecrestUri.from({ system: 's', path: '/home/x' }).joinPath('../../..').path, '/');
  });

  void it('job scripts: no #SBATCH, CRLF endings, 1 MB; a script sbatch refuses is a typed error naming it', async () => {
    const run = async (script: string) => c.submitJob(t.system, { name: 'badinput', workingDirectory: dir, script });
    const plain = await run('#!/bin/bash\necho plain\n');
    assert.match(plain, /^\d+$/);
    const crlf = await run('#!/bin/bash\r\n#SBATCH --time=00:01:00\r\necho crlf\r\n').catch((e: unknown) => e);
    // Slurm refuses DOS line breaks; either it runs or the refusal says so.
    if (crlf instanceof Error) assert.ok(crlf instanceof FirecrestError && /DOS|\\r|line break|CRLF/i.test(crlf.message), String(crlf));
    const big = `#!/bin/bash\n${'# filler line to make a large script\n'.repeat(28_000)}echo big\n`;
    assert.ok(big.length > 1_000_000);
    const bigRes = await run(big).catch((e: unknown) => e);
    if (bigRes instanceof Error) assert.ok(bigRes instanceof FirecrestError, String(bigRes));
    await assert.rejects(run('#!/bin/bash\n#SBATCH --partition=no-such-partition-xyz\necho never\n'), (e: unknown) => e instanceof FirecrestError && /partition/i.test(e.message));
    for (const id of [plain, ...[crlf, bigRes].filter((x): x is string => typeof x === 'string')]) await c.cancelJob(t.system, id).catch(() => undefined);
  });
});

void describe('broken settings', () => {
  void it('a URL where nothing listens is UnavailableError naming the URL', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v2`;
    const c = await client({ requestTimeoutMs: 5000 }, { url });
    try {
      await assert.rejects(c.systems(), (e: unknown) => e instanceof UnavailableError && e.message.includes(`127.0.0.1:${port}`));
    } finally {
      await c.dispose();
    }
  });

  void it('a wrong token URL is a typed error naming the token endpoint', async () => {
    const port = await freePort();
    const c = await client({ requestTimeoutMs: 5000 }, { tokenUrl: `http://127.0.0.1:${port}/auth/token` });
    try {
      await assert.rejects(c.systems(), (e: unknown) => (e instanceof UnavailableError || e instanceof UnauthorizedError) && e.message.includes(`127.0.0.1:${port}`));
    } finally {
      await c.dispose();
    }
  });
});

/** A loopback port nothing listens on (bound, read, closed). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
