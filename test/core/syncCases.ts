/**
 * Sync to Cluster (issue #21) against the target deployment, shared by the v2 and v1 suites:
 * a cold sync of a generated project (1,000 files in nested folders, names with spaces and
 * unicode, an executable script, a 20 MiB data file) compared with the remote tree by mode and
 * SHA-256; a warm sync; a conflict; .gitignore rules; a sync cut off by a dropped connection.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { x as extractTar } from 'tar';
import type { FirecrestClient } from '../../src/core/index';
import type { Manifest } from '../../src/core/sync/plan';
import { previewFetch, runFetch } from '../../src/core/sync/fetchFromCluster';
import { ARCHIVE_NAME, previewSync, runSync, type ManifestStore, type SyncOptions, type SyncTarget } from '../../src/core/sync/syncToCluster';
import { makeProject } from '../support/syncProject';
import { client, gateway, scratchDir, t } from './support';

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

function memoryStore(): ManifestStore & { current?: Manifest } {
  const s: ManifestStore & { current?: Manifest } = {
    load: async () => (s.current ? (JSON.parse(JSON.stringify(s.current)) as Manifest) : undefined),
    save: async (m) => { s.current = JSON.parse(JSON.stringify(m)) as Manifest; },
  };
  return s;
}

function localTree(root: string, skip: (rel: string) => boolean = () => false): Map<string, { sha: string; exec: boolean }> {
  const out = new Map<string, { sha: string; exec: boolean }>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      const rel = relative(root, p).split('\\').join('/');
      if (skip(rel)) continue;
      if (e.isDirectory()) walk(p);
      else out.set(rel, { sha: sha(readFileSync(p)), exec: (statSync(p).mode & 0o100) !== 0 });
    }
  };
  walk(root);
  return out;
}

/** The remote folder as it is: compressed on the cluster, brought back, unpacked here. */
async function remoteTree(c: FirecrestClient, remoteRoot: string, work: string): Promise<Map<string, { sha: string; exec: boolean }>> {
  const archive = `${remoteRoot}.check.tar.gz`;
  await c.compress(t.system, remoteRoot, archive, { compression: 'gzip' });
  const local = join(work, `check-${Date.now()}.tar.gz`);
  await c.transfers.downloadFile(t.system, archive, local);
  await c.remove(t.system, archive);
  const out = join(work, `check-${Date.now()}`);
  mkdirSync(out);
  await extractTar({ file: local, cwd: out });
  const base = remoteRoot.split('/').pop() ?? '';
  return localTree(join(out, base), (rel) => rel === ARCHIVE_NAME);
}

export function syncSuite(api: 'v1' | 'v2'): void {
  void describe(`Sync to Cluster (${api})`, () => {
    let c: FirecrestClient;
    let work: string;
    let project: string;
    let remoteRoot: string;
    const store = memoryStore();
    let directLimit = 0;
    const opts = (): SyncOptions => ({ store, directLimit });
    let target: SyncTarget;

    before(async () => {
      c = await client({}, { apiVersion: api });
      work = mkdtempSync(join(tmpdir(), 'f7t-sync-'));
      project = join(work, 'project');
      mkdirSync(project);
      makeProject(project, 20);
      writeFileSync(join(project, '.gitignore'), 'build/\n*.log\n');
      mkdirSync(join(project, 'build'));
      writeFileSync(join(project, 'build', 'out.o'), 'object');
      writeFileSync(join(project, 'debug.log'), 'log');
      mkdirSync(join(project, 'mod1', 'cache'), { recursive: true });
      writeFileSync(join(project, 'mod1', '.gitignore'), 'cache/\n');
      writeFileSync(join(project, 'mod1', 'cache', 'big.tmp'), 'temp');
      const base = await scratchDir(c, `sync-${api}`);
      remoteRoot = `${base}/project`;
      target = { system: t.system, remoteRoot, localRoot: project };
      directLimit = (await c.systems()).find((s) => s.name === t.system)?.maxDirectTransferSize ?? 0;
    });
    after(async () => {
      await gateway.clearFaults().catch(() => undefined);
      await c.remove(t.system, remoteRoot.replace(/\/project$/, '')).catch(() => undefined);
      await c.dispose();
      rmSync(work, { recursive: true, force: true });
    });

    void it('a cold sync of 1,000 files makes the remote tree equal the local one, modes and SHA-256 included; .gitignore rules hold', async () => {
      const preview = await previewSync(c, target, opts());
      assert.equal(preview.remoteExists, false);
      const ignored = ['build/out.o', 'debug.log', 'mod1/cache/big.tmp'];
      for (const rel of ignored) assert.ok(!preview.local.files.has(rel), `${rel} is ignored`);
      assert.equal(preview.plan.upload.length, 1003, 'every file but the ignored ones (the .gitignore files too)');
      const result = await runSync(c, preview, opts());
      assert.deepEqual(result.notLanded, []);
      assert.equal(result.sent.length, 1003);
      const want = localTree(project, (rel) => rel.startsWith('build') || rel === 'debug.log' || rel.startsWith('mod1/cache'));
      const got = await remoteTree(c, remoteRoot, work);
      assert.equal(got.size, want.size);
      for (const [rel, w] of want) assert.deepEqual(got.get(rel), w, rel);
      assert.equal(got.get('run.sh')?.exec, true, 'the script is executable on the cluster');
      assert.equal(store.current?.pending, undefined);
      // Nothing changed: one listing, nothing to send.
      const again = await previewSync(c, target, opts());
      assert.equal(again.plan.upload.length + again.plan.replace.length + again.plan.conflicts.length, 0, JSON.stringify(again.plan).slice(0, 400));
    });

    void it('a warm sync sends the 3 edited files and the new one; the deleted one goes only with deleteRemote', async () => {
      const edited = ['mod2/sub2/file2.py', 'data set 3/sub4/file1.py', 'run.sh'];
      for (const rel of edited) writeFileSync(join(project, rel), `edited ${rel}\n`, { flag: 'a' });
      writeFileSync(join(project, 'mod9', 'new file.py'), 'print("new")\n');
      rmSync(join(project, 'mod4', 'sub4', 'file4.py'));
      const preview = await previewSync(c, target, opts());
      assert.deepEqual(preview.plan.upload.map((i) => i.rel), ['mod9/new file.py']);
      assert.deepEqual(preview.plan.replace.map((i) => i.rel).sort(), [...edited].sort());
      assert.deepEqual(preview.plan.delete, ['mod4/sub4/file4.py']);
      const result = await runSync(c, preview, opts());
      assert.equal(result.sent.length, 4);
      assert.deepEqual(result.deleted, [], 'no delete without deleteRemote');
      const withDelete = await runSync(c, await previewSync(c, target, opts()), { ...opts(), deleteRemote: true });
      assert.deepEqual(withDelete.deleted, ['mod4/sub4/file4.py']);
      const got = await remoteTree(c, remoteRoot, work);
      assert.equal(got.has('mod4/sub4/file4.py'), false);
      for (const rel of [...edited, 'mod9/new file.py']) assert.equal(got.get(rel)?.sha, sha(readFileSync(join(project, rel))), rel);
      assert.equal(got.get('run.sh')?.exec, true);
    });

    void it('sends the files as the preview found them: an edit made after the preview goes with the next sync', async () => {
      const rel = 'mod8/sub1/file2.py';
      writeFileSync(join(project, rel), 'as previewed\n');
      const preview = await previewSync(c, target, opts());
      assert.deepEqual(preview.plan.replace.map((i) => i.rel), [rel]);
      writeFileSync(join(project, rel), 'edited after the preview\n');
      const later = new Date(Date.now() + 5000);
      utimesSync(join(project, rel), later, later);
      assert.deepEqual((await runSync(c, preview, opts())).sent, [rel]);
      assert.equal(new TextDecoder().decode(await c.downloadSmall(t.system, `${remoteRoot}/${rel}`)), 'as previewed\n');
      const next = await previewSync(c, target, opts());
      assert.deepEqual(next.plan.replace.map((i) => i.rel), [rel], 'the later edit is a local change, not a conflict');
      assert.deepEqual(next.plan.conflicts, []);
      await runSync(c, next, opts());
      assert.equal(new TextDecoder().decode(await c.downloadSmall(t.system, `${remoteRoot}/${rel}`)), 'edited after the preview\n');
    });

    void it('a file deleted on the cluster goes again with the edits (the plan is not what the scan packed ahead)', async () => {
      const gone = 'mod9/sub9/file9.py';
      const edited = 'mod2/sub6/file3.py';
      await c.remove(t.system, `${remoteRoot}/${gone}`);
      writeFileSync(join(project, edited), 'edited with the other one gone\n');
      const preview = await previewSync(c, target, opts());
      assert.deepEqual(preview.plan.upload.map((i) => i.rel), [gone]);
      assert.deepEqual(preview.plan.replace.map((i) => i.rel), [edited]);
      assert.deepEqual(preview.packed?.files, [edited], 'only the local change was known before the listing');
      assert.deepEqual((await runSync(c, preview, opts())).sent.sort(), [edited, gone].sort());
      const got = await remoteTree(c, remoteRoot, work);
      for (const rel of [gone, edited]) assert.equal(got.get(rel)?.sha, sha(readFileSync(join(project, rel))), rel);
    });

    void it('a file changed on both sides is a conflict: left alone, then replaced only when the local side is kept', async () => {
      const rel = 'mod5/sub5/file6.py';
      const remotePath = `${remoteRoot}/${rel}`;
      await c.uploadSmall(t.system, remotePath.slice(0, remotePath.lastIndexOf('/')), 'file6.py', new TextEncoder().encode('changed on the cluster\n'));
      writeFileSync(join(project, rel), 'changed here\n');
      const preview = await previewSync(c, target, opts());
      assert.deepEqual(preview.plan.conflicts.map((x) => [x.rel, x.reason]), [[rel, 'both changed']]);
      await runSync(c, preview, opts());
      assert.equal(new TextDecoder().decode(await c.downloadSmall(t.system, remotePath)), 'changed on the cluster\n', 'not overwritten silently');
      const kept = await runSync(c, await previewSync(c, target, opts()), { ...opts(), keepLocal: [rel] });
      assert.deepEqual(kept.sent, [rel]);
      assert.equal(new TextDecoder().decode(await c.downloadSmall(t.system, remotePath)), 'changed here\n');
    });

    void it('a sync cut off by a dropped connection leaves the manifest behind; the next one finishes without a conflict', { skip: t.gateway ? false : 'needs the gateway\'s fault switches' }, async () => {
      const rels = ['mod6/sub1/file1.py', 'mod6/sub2/file2.py', 'mod7/sub3/file3.py', 'mod8/sub8/file8.py'];
      for (const rel of rels) {
        writeFileSync(join(project, rel), `round two ${rel}\n`);
        const future = new Date(Date.now() + 5000);
        utimesSync(join(project, rel), future, future);
      }
      // The extract happens on the cluster, but its answer never comes back.
      const route = api === 'v2' ? '^POST /v2/filesystem/[^/]+/ops/extract$' : '^POST /v1/utilities/extract$';
      await gateway.faults({ dropAfter: { next: 1, match: route } });
      await assert.rejects(runSync(c, await previewSync(c, target, opts()), opts()));
      await gateway.clearFaults();
      assert.deepEqual([...(store.current?.pending ?? [])].sort(), [...rels].sort(), 'the files being sent are marked');
      const preview = await previewSync(c, target, opts());
      assert.deepEqual(preview.plan.conflicts, [], 'its own half-done work is not a conflict');
      assert.deepEqual(preview.plan.replace.map((i) => i.rel).sort(), [...rels].sort());
      const result = await runSync(c, preview, opts());
      assert.deepEqual(result.notLanded, []);
      assert.equal(store.current?.pending, undefined);
      for (const rel of rels) assert.equal(new TextDecoder().decode(await c.downloadSmall(t.system, `${remoteRoot}/${rel}`)), `round two ${rel}\n`);
    });

    void it('fetches the results a job wrote (one archive for many small files), and never overwrites a local change', async () => {
      const script = [
        '#!/bin/bash',
        '#SBATCH --time=00:02:00',
        '#SBATCH --output=job-output.txt',
        'mkdir -p results',
        'for i in 1 2 3 4 5 6; do echo "result $i of $(hostname)" > "results/part $i.txt"; done',
        'head -c 3000000 /dev/zero | tr "\\0" r > results/large.dat',
        'echo done > summary.out',
      ].join('\n');
      const jobId = await c.submitJob(t.system, { script: `${script}\n`, workingDirectory: remoteRoot, name: 'f7t-sync-results' });
      const job = await c.waitForJob(t.system, jobId, { overallTimeoutMs: 120_000 });
      assert.match(job.state, /COMPLETED/);
      writeFileSync(join(project, 'summary.out'), 'my own notes\n');
      const preview = await previewFetch(c, target, { ...opts(), include: ['results/', '*.out'] });
      assert.deepEqual(preview.plan.download.map((i) => i.rel).sort(), ['results/large.dat', ...[1, 2, 3, 4, 5, 6].map((i) => `results/part ${i}.txt`)].sort());
      assert.deepEqual(preview.plan.conflicts.map((i) => i.rel), ['summary.out'], 'a local file the last sync did not bring is not overwritten');
      const result = await runFetch(c, preview, { ...opts(), include: ['results/', '*.out'], smallFileLimit: 64 * 1024 });
      assert.equal(result.fetched.length, 7);
      for (let i = 1; i <= 6; i++) assert.match(readFileSync(join(project, 'results', `part ${i}.txt`), 'utf8'), new RegExp(`^result ${i} of `));
      assert.equal(statSync(join(project, 'results', 'large.dat')).size, 3_000_000);
      assert.equal(readFileSync(join(project, 'summary.out'), 'utf8'), 'my own notes\n');
      // Fetched files are known to the manifest: nothing to send back, nothing to fetch again.
      const again = await previewFetch(c, target, { ...opts(), include: ['results/'] });
      assert.equal(again.plan.download.length, 0);
      const back = await previewSync(c, target, opts());
      assert.equal(back.plan.conflicts.filter((x) => x.rel.startsWith('results/')).length, 0);
      assert.equal(back.plan.upload.filter((x) => x.rel.startsWith('results/')).length, 0);
    });

    void it('a cluster edit made while the sync preview stands open is not overwritten: not sent, a conflict next time', async () => {
      const rel = 'mod4/sub3/file3.py';
      // An mtime of now: upstream v1's extract fails on a member stamped in the future (tar warns).
      writeFileSync(join(project, rel), 'edited here\n');
      const preview = await previewSync(c, target, opts());
      assert.deepEqual(preview.plan.replace.map((i) => i.rel), [rel]);
      // While the preview is open, someone edits the file on the cluster.
      await c.uploadSmall(t.system, `${remoteRoot}/mod4/sub3`, 'file3.py', new TextEncoder().encode('edited on the cluster meanwhile\n'));
      const result = await runSync(c, preview, opts());
      assert.deepEqual(result.changedOnCluster, [rel]);
      assert.deepEqual(result.sent, []);
      assert.equal(new TextDecoder().decode(await c.downloadSmall(t.system, `${remoteRoot}/${rel}`)), 'edited on the cluster meanwhile\n', 'the cluster edit is kept');
      const next = await previewSync(c, target, opts());
      assert.deepEqual(next.plan.conflicts.filter((x) => x.rel === rel).map((x) => x.reason), ['both changed']);
      assert.deepEqual((await runSync(c, next, { ...opts(), keepLocal: [rel] })).sent, [rel]);
    });

    void it('a local edit made while the fetch preview stands open is kept; nothing is written through a symlinked folder leading outside', async () => {
      await c.mkdir(t.system, `${remoteRoot}/later`, { parents: true });
      await c.uploadSmall(t.system, `${remoteRoot}/later`, 'new.txt', new TextEncoder().encode('from the cluster\n'));
      await c.mkdir(t.system, `${remoteRoot}/linked`, { parents: true });
      await c.uploadSmall(t.system, `${remoteRoot}/linked`, 'out.txt', new TextEncoder().encode('must not leave the folder\n'));
      const outside = mkdtempSync(join(work, 'outside-'));
      symlinkSync(outside, join(project, 'linked'));
      try {
        const include = ['later/', 'linked/'];
        const preview = await previewFetch(c, target, { ...opts(), include });
        assert.deepEqual(preview.plan.download.map((i) => i.rel).sort(), ['later/new.txt', 'linked/out.txt']);
        // While the preview is open, the user writes the same file here.
        mkdirSync(join(project, 'later'), { recursive: true });
        writeFileSync(join(project, 'later', 'new.txt'), 'mine\n');
        const result = await runFetch(c, preview, { ...opts(), include });
        assert.deepEqual(result.fetched, []);
        const why = new Map(result.skipped.map((x) => [x.rel, x.why]));
        assert.match(why.get('later/new.txt') ?? '', /changed here since the preview/);
        assert.match(why.get('linked/out.txt') ?? '', /symlink leading outside the folder/);
        assert.equal(readFileSync(join(project, 'later', 'new.txt'), 'utf8'), 'mine\n', 'the local edit is kept');
        assert.deepEqual(readdirSync(outside), [], 'nothing written outside the folder');
        const again = await previewFetch(c, target, { ...opts(), include });
        assert.deepEqual(again.plan.conflicts.map((x) => x.rel), ['later/new.txt'], 'a conflict for the next fetch');
      } finally {
        rmSync(join(project, 'linked'));
        rmSync(join(project, 'later'), { recursive: true, force: true });
        await c.remove(t.system, `${remoteRoot}/later`);
        await c.remove(t.system, `${remoteRoot}/linked`);
      }
    });
  });
}
