/**
 * Search on the cluster over API v1: the same job and byte-offset reading through v1's submit
 * (a script upload) and `utilities/view`. The full matrix runs on v2 (search.test.ts); here a tree
 * of 500 files, a literal and a regex search equal to `grep -rn`, hostile text, and cancel.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CancelledError, isFinalState, type FirecrestClient } from '../../src/core/index';
import { searchOnCluster, type SearchMatch, type SearchQuery, type SearchRunOptions } from '../../src/core/search/clusterSearch';
import { grepReference, makeTree, treeArchive, type LocalTree } from '../support/searchTree';
import { client, enc, scratchDir, t } from './support';

const S = t.system;

void describe('search on the cluster (API v1)', () => {
  let c: FirecrestClient;
  let dir = '';
  let tree: LocalTree;
  const wait = { overallTimeoutMs: 180_000 };
  const opts = (over: Partial<SearchRunOptions> = {}): SearchRunOptions => ({ scratchDir: `${dir}/.scratch`, workingDirectory: dir, ...over });
  async function run(q: Partial<SearchQuery> & { pattern: string }, over: Partial<SearchRunOptions> = {}) {
    const matches: SearchMatch[] = [];
    const summary = await searchOnCluster(c, S, { root: `${dir}/tree`, ...q }, opts({ onMatches: (m) => matches.push(...m), ...over }));
    return { summary, matches };
  }

  before(async () => {
    c = await client({}, { apiVersion: 'v1' });
    dir = await scratchDir(c, 'v1search');
    tree = makeTree(500);
    await c.mkdir(S, `${dir}/tree`);
    await c.transfers.uploadBytes(S, await treeArchive(tree), `${dir}/tree.tgz`);
    await c.extract(S, `${dir}/tree.tgz`, `${dir}/tree`, wait);
  });
  after(async () => {
    tree?.remove();
    await c.remove(S, dir, wait).catch(() => undefined);
    await c.dispose();
  });

  for (const [pattern, regex] of [['needle', false], ['^(alpha|gamma)', true]] as const) {
    void it(`${JSON.stringify(pattern)} finds what grep -rn finds`, async () => {
      const { summary, matches } = await run({ pattern, regex, matchCase: regex }, { tool: 'grep' });
      const want = grepReference(tree, pattern, { regex, matchCase: regex });
      assert.ok(want.size > 0);
      assert.deepEqual(matches.map((m) => `${m.path.slice(dir.length + 6)}:${m.line}`).sort(), [...want.keys()].sort());
      assert.equal(summary.filesSearched, tree.files - 1);
    });
  }

  void it('hostile text is only text', async () => {
    const hostile = ['$(touch PWNED)', `it's`, '-e'];
    await c.mkdir(S, `${dir}/hostile`);
    await c.uploadSmall(S, `${dir}/hostile`, 'corpus.txt', enc(hostile.map((h) => `x ${h} y`).join('\n') + '\n'));
    for (const [i, h] of hostile.entries()) {
      const { matches } = await run({ pattern: h, matchCase: true, root: `${dir}/hostile` });
      assert.deepEqual(matches.map((m) => m.line), [i + 1], h);
    }
    assert.deepEqual((await c.list(S, `${dir}/hostile`, { showHidden: true })).map((e) => e.name), ['corpus.txt']);
  });

  void it('cancel stops the job and removes its files', async () => {
    const ac = new AbortController();
    let jobId = '';
    await assert.rejects(run({ pattern: 'needle' }, { signal: ac.signal, onSubmitted: (id) => { jobId = id; ac.abort(); } }), CancelledError);
    assert.ok(isFinalState((await c.waitForJob(S, jobId, { overallTimeoutMs: 60_000 })).state));
    const left = await c.list(S, `${dir}/.scratch`, { showHidden: true }).catch(() => []);
    assert.deepEqual(left.map((e) => e.name), []);
  });
});
