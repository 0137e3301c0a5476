import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ingressScript } from '../../gateway/src/fs/staged-scripts';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

void describe('staged transfer job scripts', () => {
  void it('an ingress job whose staging area cannot be reached at all gives up, rather than probing a dead gateway for a day', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'f7t-ingress-'));
    try {
      const url = `http://127.0.0.1:${await closedPort()}/s3/bucket/key`;
      const script = ingressScript({ directives: [], target: join(dir, 'target.bin'), objectUrl: url, deleteUrl: url, maxProbes: 60, probeSeconds: 1, unreachableSeconds: 2 });
      const r = spawnSync('/bin/bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 4, r.stderr);
      assert.match(r.stderr, /The staging area could not be reached for 2 s/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
