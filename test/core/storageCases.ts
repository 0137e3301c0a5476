/**
 * Storage facts from side-car jobs: the user's usage and limits on each file system the system
 * lists (the first of `lfs quota`, `quota` and `df` that answers, said with the figures), and what
 * an age-based scratch purge would delete, largest first, with Touch to Keep. Against the local
 * gateway the test set-up's stubs answer (`quota` for /home, `lfs` for /scratch, their usage the
 * folders' real size); against another deployment whichever tool the cluster has.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiVersion } from '../../src/core/index';
import type { FirecrestClient } from '../../src/core/index';
import { purgePreview, storageUsage, touchToKeep, type QuotaTool } from '../../src/core/facts/storage';
import { client, scratchDir, t } from './support';

const S = t.system;
const MiB = 2 ** 20;

/** The storage suite against API `api` (storage.test.ts: v2, v1-storage.test.ts: v1). */
export function storageSuite(api: ApiVersion): void {
void describe(`facts: storage (API ${api})`, () => {
  let c: FirecrestClient;
  let dir: string;
  let paths: string[];
  before(async () => {
    c = await client({}, { apiVersion: api });
    dir = await scratchDir(c, 'storage');
    paths = (await c.systems()).find((s) => s.name === S)?.fileSystems.map((f) => f.path) ?? [];
  });
  after(async () => {
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
  });

  void it('each listed file system: used and limits from the tool that answers, the tool said; a second run asks that tool alone', async () => {
    assert.ok(paths.length > 0, 'the system lists file systems');
    let jobs = 0;
    const first = await storageUsage(c, S, paths, { scratchDir: dir, workingDirectory: dir, onSubmitted: () => jobs++ });
    assert.equal(jobs, 1, 'one job for every file system');
    assert.ok(first.stats!.requests - first.stats!.waitRequests <= 3, `three requests beyond the wait (${first.stats!.requests - first.stats!.waitRequests})`);
    assert.equal(first.usages.length + first.missing.length, paths.length);
    for (const u of first.usages) {
      assert.ok(u.usedBytes >= 0 && (u.hardLimitBytes === undefined || u.hardLimitBytes > 0), JSON.stringify(u));
      assert.equal(u.shared, u.tool === 'df');
    }
    for (const m of first.missing) assert.ok(m.why.length > 0);
    if (t.gateway) {
      // The test set-up's stubs: quota answers for the home, lfs for the scratch.
      const home = first.usages.find((u) => u.path === '/home');
      assert.equal(home?.tool, 'quota');
      assert.equal(home.softLimitBytes, 10 * 2 ** 30);
      assert.equal(home.hardLimitBytes, 12 * 2 ** 30);
      assert.equal(home.hardLimitFiles, 120_000);
      const scratch = first.usages.find((u) => u.path === '/scratch');
      if (scratch) {
        assert.equal(scratch.tool, 'lfs');
        assert.equal(scratch.softLimitBytes, 50 * 2 ** 30);
      }
    }
    // Two more MiB in the home folder: the next answer (asking only the tool that answered) counts them.
    const tools = new Map<string, QuotaTool>(first.usages.map((u) => [u.path, u.tool]));
    const homeFs = first.usages.filter((u) => !u.shared && dir.startsWith(`${u.path.replace(/\/+$/, '')}/`)).sort((a, b) => b.path.length - a.path.length)[0];
    await c.uploadSmall(S, dir, 'two-mib.bin', new Uint8Array(2 * MiB).fill(7));
    const second = await storageUsage(c, S, paths, { scratchDir: dir, workingDirectory: dir, tools });
    assert.deepEqual(second.usages.map((u) => [u.path, u.tool]), first.usages.map((u) => [u.path, u.tool]), 'the same tools');
    if (homeFs && !homeFs.shared) {
      // The home is shared with the other suites (they add and remove files meanwhile): what holds
      // whatever they do is that the figure counts the file just written.
      const again = second.usages.find((u) => u.path === homeFs.path)!;
      assert.ok(again.usedBytes >= 2 * MiB, `the home's use counts the 2 MiB file: ${again.usedBytes} bytes`);
    }
  });

  void it('the purge preview: files not read for the age, largest first, odd names whole; Touch to Keep takes a file off', async () => {
    const folder = `${dir}/purge`;
    await c.mkdir(S, folder, { parents: true });
    await c.uploadSmall(S, folder, 'big.dat', new Uint8Array(300 * 1024).fill(1));
    await c.uploadSmall(S, folder, 'small.dat', new Uint8Array(10 * 1024).fill(2));
    await c.uploadSmall(S, folder, 'fresh.dat', new Uint8Array(500 * 1024).fill(3));
    // Last read 40 days ago: big, small and a name with a newline and a backslash in it (made by the job).
    const script = `#!/bin/bash\n#SBATCH --time=00:02:00\ncd ${folder} || exit 1\nprintf 'odd' > $'odd\\nname\\\\x'\nmkdir -p sub && printf 'deep' > sub/deep.dat\ntouch -a -d '40 days ago' big.dat small.dat $'odd\\nname\\\\x' sub/deep.dat\n`;
    const id = await c.submitJob(S, { script, workingDirectory: folder, name: 'f7t-storage-age' });
    const done = await c.waitForJob(S, id, { overallTimeoutMs: 120_000 });
    assert.equal(done.exitCode ?? 0, 0);
    let jobs = 0;
    const p = await purgePreview(c, S, folder, 30, { scratchDir: dir, workingDirectory: dir, onSubmitted: () => jobs++ });
    assert.equal(jobs, 1);
    assert.deepEqual(p.files.map((f) => f.rel), ['big.dat', 'small.dat', 'sub/deep.dat', 'odd\nname\\x']);
    assert.equal(p.total, 4);
    assert.equal(p.totalBytes, 300 * 1024 + 10 * 1024 + 4 + 3);
    const big = p.files[0];
    assert.equal(big.bytes, 300 * 1024);
    assert.ok(Date.now() / 1000 - big.accessedAt > 39 * 86400, 'read 40 days ago');
    const keep = await touchToKeep(c, S, [`${folder}/big.dat`, `${folder}/odd\nname\\x`, `${folder}/no-such-file`], { scratchDir: dir, workingDirectory: dir });
    assert.equal(keep.touched, 3, 'touch -c counts a missing file as done and creates nothing');
    await assert.rejects(c.stat(S, `${folder}/no-such-file`));
    const after = await purgePreview(c, S, folder, 30, { scratchDir: dir, workingDirectory: dir, limit: 1 });
    assert.deepEqual(after.files.map((f) => f.rel), ['small.dat'], 'the largest one only (limit 1)');
    assert.equal(after.total, 2);
  });
});
}
