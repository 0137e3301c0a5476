/**
 * Search on Cluster in a real VS Code: a remote folder is searched through the command (its
 * scripting form, the same code as after the search box), the Cluster Search view lists the files
 * with their counts and the lines with the match highlighted, and a click on a line opens the
 * remote file with the match selected. A new search cancels the running one.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import type { FirecrestUri } from '../../src/core/uri';
import type { SearchViewSnapshot } from '../../src/search/resultsView';
import { connectWithScratchFolder, vscodeUri } from './support/scratch';
import { gatewayOnly, target } from '../support/target';
import { clearFaults, setFault } from './fs-gateway';
import { skipBecause } from './support/apiVersion';

const PROFILE = 'search-test';
const enc = (s: string) => new TextEncoder().encode(s);
const snapshot = async () => (await vscode.commands.executeCommand<SearchViewSnapshot>('firecrest.test.searchView'));

describe('Search on Cluster', function () {
  // Each search is a Slurm job: on a loaded machine (two CI runs on 2 cores) a test's waits for
  // them add up past the runner's default. The waits are guards against a hang, not budgets.
  this.timeout(240_000);
  const t = target();
  let client: FirecrestClient;
  let base: FirecrestUri;

  before(async () => {
    ({ client, base } = await connectWithScratchFolder(PROFILE, 'search'));
    await vscode.workspace.fs.writeFile(vscodeUri(base.joinPath('a.txt')), enc('first line\n    the Needle is here\nno match\nneedle again, needle\n'));
    await vscode.workspace.fs.createDirectory(vscodeUri(base.joinPath('sub dir ü')));
    await vscode.workspace.fs.writeFile(vscodeUri(base.joinPath('sub dir ü', 'b é.py')), enc('import os\nx = "needle"\n'));
    await vscode.workspace.fs.writeFile(vscodeUri(base.joinPath('c.txt')), enc('nothing to see\n'));
  });

  after(async () => {
    await clearFaults(t.gateway);
    await vscode.commands.executeCommand('firecrest.search.clear');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (base) await vscode.workspace.fs.delete(vscodeUri(base), { recursive: true }).then(undefined, () => undefined);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('lists the matching files and lines, then a click opens the file at the match', async () => {
    const summary = await vscode.commands.executeCommand<{ matches: number; jobId: string } | undefined>('firecrest.searchOnCluster', { folder: vscodeUri(base).toString(), query: { pattern: 'needle' } });
    assert.ok(summary, 'the search ran to its end');
    assert.equal(summary.matches, 3);
    const snap = await snapshot();
    assert.equal(snap.matchCount, 3);
    assert.equal(snap.fileCount, 2);
    assert.match(snap.message ?? '', /3 results in 2 files/);
    assert.equal(snap.description, 'needle');
    const a = snap.files.find((f) => f.label === 'a.txt');
    const b = snap.files.find((f) => f.label === 'b é.py');
    assert.ok(a && b, JSON.stringify(snap.files.map((f) => f.label)));
    assert.match(a.description, /2$/);
    assert.equal(b.description, 'sub dir ü · 1');
    assert.deepEqual(a.lines.map((l) => l.description), ['2', '4']);
    // Leading blanks are dropped from the preview; the highlight moves with the text.
    assert.equal(a.lines[0].label, 'the Needle is here');
    assert.deepEqual(a.lines[0].highlights, [[4, 10]]);
    assert.deepEqual(a.lines[1].highlights, [[0, 6], [14, 20]]);

    // The click: the command the tree item carries, with its arguments.
    const line = a.lines[0];
    assert.equal(line.command, 'firecrest.search.openResult');
    const [uri, ...rest] = line.arguments as [string, number, number, number];
    await vscode.commands.executeCommand(line.command, vscode.Uri.parse(uri), ...rest);
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor);
    assert.equal(editor.document.uri.toString(), vscodeUri(base.joinPath('a.txt')).toString());
    assert.equal(editor.selection.start.line, 1);
    assert.equal(editor.selection.start.character, 8);
    assert.equal(editor.document.getText(editor.selection), 'Needle');
  });

  it('a new search cancels the running one; its job is cancelled and leaves no file', async function () {
    skipBecause(this, gatewayOnly() || undefined);
    // The first search's first read of its output (v2 view, v1 download) is held at the gateway
    // until the second search cancels it (2 minutes at most), so that it is still running,
    // whatever the scheduler's pace, when the second starts (CI40: finding the first job took
    // longer than a 20 s hold on a machine running two CIs).
    await setFault(t.gateway, { latency: { next: 1, ms: 120_000, minMs: 120_000, match: '^GET .*/(ops/view|utilities/download)' } });
    let firstJob = '';
    let firstScript = '';
    let firstLogs: (string | undefined)[] = [];
    const before = new Set((await client.jobs(t.system)).map((j) => j.id));
    const first = vscode.commands.executeCommand<{ jobId: string } | undefined>('firecrest.searchOnCluster', { folder: vscodeUri(base).toString(), query: { pattern: 'first' } });
    // Wait until the first search's job exists, then start the second. Another run on the same
    // machine may search as the same user: the job is ours when its script names this folder.
    const notOurs = new Set<string>();
    for (let i = 0; i < 300 && !firstJob; i++) {
      for (const j of (await client.jobs(t.system)).filter((x) => !before.has(x.id) && !notOurs.has(x.id) && x.name === 'f7t-search')) {
        const script = client.capabilities.jobScript ? (await client.jobMetadata(t.system, j.id).catch(() => undefined))?.script : undefined;
        if (script === undefined && client.capabilities.jobScript) continue;
        if (script !== undefined && !script.includes(base.path)) {
          notOurs.add(j.id);
          continue;
        }
        firstJob = j.id;
        firstScript = script ?? '';
        firstLogs = [j.stdoutPath, j.stderrPath];
        break;
      }
      if (!firstJob) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(firstJob, 'the first search submitted its job');
    const second = await vscode.commands.executeCommand<{ jobId: string; matches: number } | undefined>('firecrest.searchOnCluster', { folder: vscodeUri(base).toString(), query: { pattern: 'import', matchCase: true } });
    assert.equal(await first, undefined, 'the first search reports no result: it was cancelled');
    // When the second search has no result, the view's last line says why (a failure, a cancel).
    assert.ok(second, `the second search has a result; the view says: ${(await snapshot()).message ?? '(nothing)'}`);
    assert.equal(second.matches, 1);
    const snap = await snapshot();
    assert.equal(snap.description, 'import');
    assert.equal(snap.matchCount, 1);
    const job = await client.waitForJob(t.system, firstJob, { overallTimeoutMs: 60_000 });
    assert.ok(job.isFinal, job.state);
    const user = (await client.userInfo(t.system)).user.name;
    const scratch = await client.list(t.system, `/home/${user}/.firecrest-vscode/search`, { showHidden: true }).catch(() => []);
    // The first search's folder (a side-car run's own, holding its two files): named in its script
    // where the API returns it, else by the job's output paths (other runs on this machine may be
    // searching as the same user right now).
    const folderOf = (p: string): string | undefined => /(\.f7t-search-[0-9a-f]+)\//.exec(p)?.[1];
    const own = [...new Set(firstScript
      ? [...firstScript.matchAll(/\.f7t-search-[0-9a-f]+(?=\/(out|err))/g)].map((m) => m[0])
      : firstLogs.map((p) => (p ? folderOf(p) : undefined)).filter((n): n is string => !!n))];
    assert.ok(own.length > 0, `the first search's folder is known (${firstScript ? 'from its script' : firstLogs.join(', ')})`);
    const left = scratch.map((e) => e.name).filter((n) => own.includes(n));
    assert.deepEqual(left, [], 'nothing of the cancelled search left in the scratch folder');
  });

  it('Go to File: one job lists the folder; files written and deleted through VS Code change the index without another', async () => {
    type Index = { files?: string[]; builtAt?: number; builds: number };
    const folder = vscodeUri(base).toString();
    const built = await vscode.commands.executeCommand<Index>('firecrest.test.fileIndex', folder, true);
    assert.deepEqual(built.files, ['a.txt', 'c.txt', 'sub dir ü/b é.py']);
    const jobs = built.builds;
    const until = async (check: (files: string[]) => boolean, what: string) => {
      for (let i = 0; i < 100; i++) {
        const now = await vscode.commands.executeCommand<Index>('firecrest.test.fileIndex', folder);
        if (check(now.files ?? [])) return now;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.fail(what);
    };
    await vscode.workspace.fs.createDirectory(vscodeUri(base.joinPath('new')));
    await vscode.workspace.fs.writeFile(vscodeUri(base.joinPath('new', 'made.txt')), enc('x\n'));
    await until((f) => f.includes('new/made.txt'), 'the new file is in the index');
    await vscode.workspace.fs.delete(vscodeUri(base.joinPath('c.txt')));
    const after = await until((f) => !f.includes('c.txt'), 'the deleted file left the index');
    assert.ok(!after.files?.includes('new'), 'folders are not listed');
    assert.equal(after.builds, jobs, 'no index job for these changes');
  });
});
