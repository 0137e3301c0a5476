/**
 * Search on the cluster (core): a generated tree of 10,000 files is searched by a job, and every
 * match list equals `grep -rn` run directly over the same bytes; hostile queries find exactly what
 * they say and run nothing; cancel, the result cap, a refused partition and unreadable folders give
 * clear typed answers, and no search leaves a file or a running job behind.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { CancelledError, FirecrestError, InvalidInputError, isFinalState, NotFoundError, PermissionDeniedError, type FirecrestClient } from '../../src/core/index';
import { searchOnCluster, type SearchMatch, type SearchQuery, type SearchRunOptions } from '../../src/core/search/clusterSearch';
import { grepReference, makeTree, treeArchive, type GrepOptions, type LocalTree } from '../support/searchTree';
import { client, enc, scratchDir, t } from './support';

const S = t.system;
const FILES = Number(process.env.SEARCH_TREE_FILES ?? 10_000);
/** rg is searched with where this machine has it (the local gateway runs jobs here). */
const localRg = !!t.gateway && spawnSync('/bin/sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).status === 0;

void describe('search on the cluster', () => {
  let c: FirecrestClient;
  let dir = '';
  let root = '';
  let tree: LocalTree;
  const wait = { overallTimeoutMs: 180_000 };

  const opts = (over: Partial<SearchRunOptions> = {}): SearchRunOptions => ({ scratchDir: `${dir}/.scratch`, workingDirectory: dir, ...over });
  async function run(q: Partial<SearchQuery> & { pattern: string }, over: Partial<SearchRunOptions> = {}) {
    const matches: SearchMatch[] = [];
    const summary = await searchOnCluster(c, S, { root, ...q }, opts({ onMatches: (m) => matches.push(...m), ...over }));
    return { summary, matches };
  }
  const asMap = (matches: SearchMatch[], base: string) => new Map(matches.map((m) => [`${m.path.slice(base.length + 1)}:${m.line}`, m.text]));
  async function leftovers(): Promise<string[]> {
    return (await c.list(S, `${dir}/.scratch`, { showHidden: true }).catch((e: unknown) => { if (e instanceof NotFoundError) return []; throw e; })).map((e) => e.name);
  }

  before(async () => {
    c = await client();
    dir = await scratchDir(c, 'search');
    root = `${dir}/tree`;
    tree = makeTree(FILES);
    await c.mkdir(S, root);
    const archive = await treeArchive(tree);
    await c.transfers.uploadBytes(S, archive, `${dir}/tree.tgz`);
    await c.extract(S, `${dir}/tree.tgz`, root, wait);
  });
  after(async () => {
    tree?.remove();
    await c.chmod(S, `${root}/locked`, '700').catch(() => undefined);
    await c.remove(S, dir, wait).catch(() => undefined);
    await c.dispose();
  });

  const cases: [string, string, GrepOptions & { exclude?: string[] }][] = [
    ['a literal, any case', 'needle', {}],
    ['a literal, matching case', 'Needle', { matchCase: true }],
    ['a literal with regex characters', 'a+b', { matchCase: true }],
    ['a literal with brackets and a dot', '[x]', {}],
    ['unicode text', 'grüße', { matchCase: true }],
    ['a regex', 'fo+_?bar[ -]', { regex: true }],
    ['a regex with anchors', '^(alpha|beta)', { regex: true, matchCase: true }],
    ['whole words', 'foo', { wholeWord: true, matchCase: true }],
    ['an include glob', 'needle', { include: ['*.py'] }],
    ['an exclude glob', 'needle', { excludeDirs: ['gen'], exclude: ['gen'] }],
  ];
  // rg gets the cases where its syntax or rules differ from grep's (regex dialect, word
  // boundaries, globs), and a literal.
  const rgCases = new Set(['a literal, any case', 'a regex', 'whole words', 'an include glob', 'an exclude glob']);
  const tools: ('grep' | 'rg')[] = localRg ? ['grep', 'rg'] : ['grep'];
  for (const tool of tools) {
    for (const [what, pattern, o] of cases.filter(([w]) => tool === 'grep' || rgCases.has(w))) {
      void it(`${tool}: ${what} (${JSON.stringify(pattern)}) finds what grep -rn finds`, async () => {
        const { summary, matches } = await run({ pattern, regex: o.regex, matchCase: o.matchCase, wholeWord: o.wholeWord, include: o.include, exclude: o.exclude }, { tool });
        const want = grepReference(tree, pattern, o);
        const got = asMap(matches, root);
        assert.ok(want.size > 0, 'the reference finds something');
        assert.equal(summary.tool, tool);
        assert.equal(summary.capped, false);
        assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort());
        for (const [k, text] of want) assert.equal(got.get(k), text, k);
        if (tool === 'grep' && !o.include && !o.exclude) assert.equal(summary.filesSearched, tree.files - 1, 'every file but the .git one was searched');
        if (!o.regex) for (const m of matches.slice(0, 50)) assert.ok(m.ranges.length > 0, `a highlight in ${m.text}`);
      });
    }
  }

  void it('filesOnly lists every file but those under .git (Go to File), big and binary files included', async () => {
    const { summary, matches } = await run({ pattern: '', filesOnly: true, maxResults: 100_000 });
    const want = spawnSync('/usr/bin/find', ['.', '-path', './.git', '-prune', '-o', '-type', 'f', '-print'], { cwd: tree.dir, encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map((p) => p.slice(2)).sort();
    assert.equal(summary.capped, false);
    assert.deepEqual(matches.map((m) => m.path.slice(root.length + 1)).sort(), want);
    assert.equal(want.length, tree.files - 1);
  });

  void it('hostile queries are only text: each finds exactly its lines, and nothing runs', async () => {
    const hostile = [`it's`, `say "hi"`, '$(touch PWNED)', '`touch PWNED`', 'a; touch PWNED', '-e', '--help', '-', '\\', '*', '$HOME', 'ü✓ – 中文', '%s%n', "'; rm -rf ~; '", '&& echo', '|', '>out'];
    const body = hostile.map((h, i) => `line ${i}: ${h} end`).join('\n') + '\nplain line\n';
    await c.mkdir(S, `${dir}/hostile`);
    await c.uploadSmall(S, `${dir}/hostile`, 'corpus.txt', enc(body));
    // Four searches at a time: each is a job of its own.
    for (let i = 0; i < hostile.length; i += 4) {
      await Promise.all(hostile.slice(i, i + 4).map(async (h) => {
        const { matches } = await run({ pattern: h, matchCase: true, root: `${dir}/hostile` }, { tool: 'grep' });
        const want = body.split('\n').map((l, n) => [l, n + 1] as const).filter(([l]) => l.includes(h)).map(([, n]) => n);
        assert.deepEqual(matches.map((m) => m.line), want, `query ${JSON.stringify(h)}`);
      }));
    }
    const names = (await c.list(S, `${dir}/hostile`, { showHidden: true })).map((e) => e.name);
    assert.deepEqual(names, ['corpus.txt'], 'no query ran a command');
    assert.deepEqual(await leftovers(), []);
  });

  void it('a NUL, a line break or an over-long query is refused before anything is submitted', async () => {
    let submitted = 0;
    for (const pattern of ['a\0b', 'two\nlines', 'x'.repeat(5000), '']) {
      await assert.rejects(run({ pattern }, { onSubmitted: () => submitted++ }), InvalidInputError, JSON.stringify(pattern.slice(0, 20)));
    }
    await assert.rejects(run({ pattern: 'x', root: 'relative/path' }), InvalidInputError);
    assert.equal(submitted, 0);
  });

  void it('the result cap stops the search, says so, and leaves no job and no file', async () => {
    let jobId = '';
    const { summary, matches } = await run({ pattern: 'foo', maxResults: 25 }, { tool: 'grep', onSubmitted: (id) => { jobId = id; } });
    assert.equal(matches.length, 25);
    assert.equal(summary.matches, 25);
    assert.equal(summary.capped, true);
    const job = await c.waitForJob(S, jobId, { overallTimeoutMs: 60_000 });
    assert.ok(isFinalState(job.state), job.state);
    assert.deepEqual(await leftovers(), []);
  });

  void it('cancel stops the job and removes its files', async () => {
    const ac = new AbortController();
    let jobId = '';
    await assert.rejects(run({ pattern: 'needle' }, { signal: ac.signal, onSubmitted: (id) => { jobId = id; ac.abort(); } }), CancelledError);
    assert.ok(jobId);
    const job = await c.waitForJob(S, jobId, { overallTimeoutMs: 60_000 });
    assert.ok(isFinalState(job.state), job.state);
    assert.deepEqual(await leftovers(), []);
  });

  void it('a partition that refuses the job is a typed error naming it', async () => {
    await assert.rejects(run({ pattern: 'needle' }, { partition: 'no-such-partition-f7t' }), (e: unknown) => e instanceof FirecrestError && !(e instanceof CancelledError) && /partition/i.test(e.message));
    assert.deepEqual(await leftovers(), []);
  });

  void it('a missing folder is NotFoundError; an unreadable one is PermissionDeniedError; an unreadable subfolder is a warning beside the results', async () => {
    await assert.rejects(run({ pattern: 'needle', root: `${dir}/no-such-folder` }), NotFoundError);
    await c.mkdir(S, `${root}/locked`);
    await c.uploadSmall(S, `${root}/locked`, 'secret.txt', enc('needle\n'));
    await c.chmod(S, `${root}/locked`, '000');
    await assert.rejects(run({ pattern: 'needle', root: `${root}/locked` }), PermissionDeniedError);
    const { summary, matches } = await run({ pattern: 'needle' }, { tool: 'grep' });
    assert.ok(matches.length > 0);
    assert.ok(!matches.some((m) => m.path.includes('/locked/')));
    assert.ok(summary.warnings.some((w) => /locked/.test(w) && /Permission denied/i.test(w)), summary.warnings.join('\n'));
    await c.chmod(S, `${root}/locked`, '700');
    assert.deepEqual(await leftovers(), []);
  });
});
