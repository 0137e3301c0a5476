/**
 * Batch-script editing in a real VS Code against the local gateway (Slurm or built-in: partitions
 * debug/long/xfer, reservation maint): the exact diagnostics (codes, ranges, messages), quick
 * fixes applied to the document, completion of partitions, hovers with live facts, the Submit
 * CodeLens, and what typing costs in requests.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import type { Partition, Reservation } from '../../src/core/model';
import { target } from '../support/target';
import { skipBecause } from './support/apiVersion';
import { extensionApi, waitFor } from './support/extension';
import { jobsFolder } from '../support/jobsFolder';

const PROFILE = 'sbatch-test';
const LIVE_ROUTES = ['/partitions', '/reservations', '/userinfo'];

type Diag = [code: string, line: number, start: number, end: number, message: string];
const diags = (uri: vscode.Uri): Diag[] =>
  vscode.languages
    .getDiagnostics(uri)
    .filter((d) => d.source === 'FirecREST')
    .map((d): Diag => [typeof d.code === 'object' ? String(d.code.value) : String(d.code), d.range.start.line, d.range.start.character, d.range.end.character, d.message])
    .sort((a, b) => a[1] - b[1] || a[2] - b[2] || a[0].localeCompare(b[0]));

/** The extension's batch-script counters: refreshes started, and whether a check or refresh is under way. */
const sbatchStats = async () => (await vscode.commands.executeCommand<{ refreshes: number; idle: boolean }>('firecrest.test.sbatchStats'));
/** Until no check waits for its debounce or runs, and no refresh is under way. */
const settled = () => waitFor('batch-script checks to settle', async () => (await sbatchStats()).idle);
const when = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

describe('Batch scripts (#SBATCH): diagnostics, quick fixes, completion, hover', function () {
  const t = target();
  const dir = mkdtempSync(join(tmpdir(), 'fc-sbatch-'));
  let client: FirecrestClient;
  let partitions: Partition[];
  let maint: Reservation;
  let user: string;
  let accounts: string[];
  /** What the connection reports decides which live checks can fire (API v1: no time limits, no accounts). */
  let knowsMaxTime: boolean;
  /** The local gateway's fixture cluster (partitions debug, long, xfer; reservation maint), which the exact texts below name. */
  let fixture: boolean;
  /** What the exact texts below need that the cluster lacks, named (partitions debug, long and xfer; reservation maint). */
  const needsFixture = (ctx: Mocha.Context): void => {
    const missing = [...['debug', 'long', 'xfer'].filter((n) => !partitions.some((p) => p.name === n)).map((n) => `partition ${n}`), ...(maint ? [] : ['reservation maint'])];
    skipBecause(ctx, fixture ? undefined : `${t.system} lacks ${missing.join(', ')} (the local gateway's fixture cluster, or the real-server recipes with FIXTURES=1, have them)`);
  };

  /** Writes a script, opens it in an editor and waits until its diagnostics satisfy `ready`. */
  async function open(name: string, text: string, ready: (d: Diag[]) => boolean): Promise<{ editor: vscode.TextEditor; uri: vscode.Uri }> {
    const file = join(dir, name);
    writeFileSync(file, text);
    const uri = vscode.Uri.file(file);
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await waitFor(`diagnostics of ${name}`, () => ready(diags(uri)), 20_000);
    return { editor, uri };
  }

  async function fixes(uri: vscode.Uri, line: number, character: number): Promise<vscode.CodeAction[]> {
    const r = new vscode.Range(line, character, line, character);
    // The command's results carry title, edit and isPreferred (not the diagnostics they fix). Only
    // the extension's own: VS Code 1.139 adds its chat's "Fix" and "Explain" to every diagnostic.
    const all = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, r, vscode.CodeActionKind.QuickFix.value);
    return all.filter((a) => a.edit !== undefined || a.command?.command.startsWith('firecrest.'));
  }

  before(async () => {
    const api = await extensionApi();
    await vscode.commands.executeCommand('firecrest.addConnection', {
      name: PROFILE, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
    });
    client = await api.connections.client(PROFILE);
    partitions = await client.partitions(t.system);
    maint = (await client.reservations(t.system)).find((r) => r.name === 'maint')!;
    const info = await client.userInfo(t.system);
    user = info.user.name;
    accounts = (info.accounts ?? []).sort((a, b) => Number(b.isDefault) - Number(a.isDefault)).map((a) => a.name);
    knowsMaxTime = partitions.some((p) => p.maxTimeSeconds !== undefined);
    fixture = ['debug', 'long', 'xfer'].every((n) => partitions.some((p) => p.name === n)) && maint !== undefined;
    // Scripts live outside the workspace: the user setting names the system they are checked against.
    await vscode.workspace.getConfiguration('firecrest').update('sbatch.system', `${PROFILE}/${t.system}`, vscode.ConfigurationTarget.Global);
  });

  /** Folders the tests' jobs ran in (their output files go with them). */
  const jobFolders: (() => Promise<void>)[] = [];
  after(async () => {
    for (const remove of jobFolders) await remove();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration('firecrest').update('sbatch.system', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('reports unknown options, malformed values, unknown partition/account/reservation, exactly', async function () {
    needsFixture(this);
    const names = [...partitions].sort((a, b) => Number(b.isDefault === true) - Number(a.isDefault === true)).map((p) => p.name);
    const text = [
      '#!/bin/bash',
      '#SBATCH --partition=nosuch',
      '#SBATCH --account=nobody',
      '#SBATCH --reservation=gone',
      '#SBATCH --frobnicate=1',
      '#SBATCH --mem=1.5G -t 1h',
      'srun hostname',
      '#SBATCH --time=5',
    ].join('\n');
    const { uri } = await open('wrong.sh', text, (d) => d.some((x) => x[0] === 'unknown-partition'));
    // The reservations are the cluster's of the moment: a second test run beside this one (or a
    // site's users) makes its own. The message lists them, maint among them.
    const rsv = String(diags(uri).find((d) => d[0] === 'unknown-reservation')?.[4]);
    const listed = /\(it has (.+)\)\.$/.exec(rsv)?.[1] ?? '';
    assert.ok(listed.split(', ').includes('maint'), rsv);
    assert.deepEqual(diags(uri), [
      ['unknown-partition', 1, 20, 26, `Partition 'nosuch' does not exist on ${t.system} (it has ${names.join(', ')}).`],
      // Accounts are checked only when the connection reports them (v1's whoami has none).
      ...(accounts.length ? [['unknown-account', 2, 18, 24, `You (${user}) cannot charge account 'nobody' on ${t.system}: your accounts are ${accounts.join(', ')}.`] as Diag] : []),
      ['unknown-reservation', 3, 22, 26, `Reservation 'gone' does not exist on ${t.system} (it has ${listed}).`],
      ['unknown-directive', 4, 8, 20, "sbatch has no option '--frobnicate'."],
      ['malformed-value', 5, 14, 18, "--mem: '1.5G': sbatch takes whole numbers only (use a smaller unit, e.g. 1536M)."],
      ['malformed-value', 5, 22, 24, "--time: '1h' is not a time; use minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED."],
      ['directive-ignored', 7, 0, 7, 'sbatch ignores this line: it comes after the first command (line 7).'],
    ]);
    const typo = await fixes(uri, 4, 10);
    assert.deepEqual(typo.map((a) => a.title), []); // --frobnicate is nothing like a real option
  });

  it('offers one quick fix per partition, the default first, and applying it fixes the script', async function () {
    needsFixture(this);
    const { editor, uri } = await open('partition.sh', '#!/bin/bash\n#SBATCH --partition=nosuch\necho\n', (d) => d.length === 1);
    const actions = await fixes(uri, 1, 22);
    // The default first where the server marks one (upstream's partitions carry no default flag).
    const def = partitions.find((p) => p.isDefault)?.name ?? actions[0].title.replace(/^Use partition '(.*)'$/, '$1');
    assert.equal(actions[0].title, `Use partition '${def}'${partitions.some((p) => p.isDefault) ? ' (default)' : ''}`);
    assert.equal(actions[0].isPreferred, true);
    assert.deepEqual(actions.map((a) => a.title).sort(), partitions.map((p) => `Use partition '${p.name}'${p.isDefault ? ' (default)' : ''}`).sort());
    assert.ok(await vscode.workspace.applyEdit(actions[0].edit!));
    assert.equal(editor.document.lineAt(1).text, `#SBATCH --partition=${def}`);
    await waitFor('the diagnostic to go', () => diags(uri).length === 0);
  });

  it('offers the option a misspelt one most likely means', async () => {
    const { editor, uri } = await open('typo.sh', '#!/bin/bash\n#SBATCH --partiton=debug\necho\n', (d) => d.length === 1);
    assert.deepEqual(diags(uri), [['unknown-directive', 1, 8, 18, "sbatch has no option '--partiton'."]]);
    const [fix] = await fixes(uri, 1, 12);
    assert.equal(fix.title, "Change to '--partition'");
    assert.ok(await vscode.workspace.applyEdit(fix.edit!));
    assert.equal(editor.document.lineAt(1).text, '#SBATCH --partition=debug');
    await waitFor('the diagnostic to go', () => diags(uri).length === 0);
  });

  it('clamps a time limit above the partition maximum', async function () {
    needsFixture(this);
    skipBecause(this, knowsMaxTime ? undefined : 'the server reports no partition time limits (upstream v2 and v1 partitions carry none)');
    const { editor, uri } = await open('time.sh', '#!/bin/bash\n#SBATCH -p debug\n#SBATCH --time=2:00:00\nsrun true\n', (d) => d.length > 0);
    assert.deepEqual(diags(uri), [['time-above-max', 2, 15, 22, "Time limit 02:00:00 is above the maximum of partition 'debug' (01:00:00): sbatch refuses the job."]]);
    const [fix] = await fixes(uri, 2, 16);
    assert.equal(fix.title, "Set the time limit to 01:00:00 (the maximum of 'debug')");
    assert.ok(await vscode.workspace.applyEdit(fix.edit!));
    assert.equal(editor.document.lineAt(2).text, '#SBATCH --time=01:00:00');
    await waitFor('the diagnostic to go', () => diags(uri).length === 0);
  });

  it('warns about a reservation that has not started and a job running into maintenance, with a fix ending before it', async function () {
    needsFixture(this);
    const text = '#!/bin/bash\n#SBATCH --partition=long --time=4-00:00:00\n#SBATCH --reservation=maint\n#SBATCH --time=4-0\necho\n';
    const { uri } = await open('maint.sh', text, (d) => d.length >= 1);
    assert.deepEqual(diags(uri), [
      ['repeated-option', 1, 25, 31, '--time is given again on line 4: sbatch uses that one and ignores this.'],
      ['reservation-inactive', 2, 22, 27, `Reservation 'maint' has not started: the job waits until ${when(maint.start)}.`],
      ...(knowsMaxTime ? [['time-above-max', 3, 15, 18, "Time limit 4-00:00:00 is above the maximum of partition 'long' (2-00:00:00): sbatch refuses the job."] as Diag] : []),
    ]);
    // Without the reservation, a job longer than the time to the window runs into it.
    const { editor, uri: u2 } = await open('maint2.sh', '#!/bin/bash\n#SBATCH --partition=xfer,long\n#SBATCH --time=UNLIMITED\necho\n', (d) => d.some((x) => x[0] === 'maintenance-overlap'));
    assert.deepEqual(diags(u2), [
      ['maintenance-overlap', 2, 15, 24, `Time limit UNLIMITED runs into maintenance 'maint' (${when(maint.start)} to ${when(maint.end)}): the job cannot start until the window is over unless it ends before it.`],
      ...(knowsMaxTime ? [['time-above-max', 2, 15, 24, "Time limit UNLIMITED is above the maximum of partition 'long' (2-00:00:00): sbatch refuses the job."] as Diag] : []),
    ]);
    const maintFix = (await fixes(u2, 2, 16)).find((a) => a.title.includes('end before maintenance'))!;
    assert.match(maintFix.title, /^Set the time limit to \d-\d\d:\d\d:00 \(end before maintenance 'maint'(, within the partition's maximum)?\)$/);
    assert.ok(await vscode.workspace.applyEdit(maintFix.edit!));
    const limit = /--time=(\d)-(\d\d):(\d\d):00/.exec(editor.document.lineAt(2).text)!;
    const ends = Date.now() + ((Number(limit[1]) * 24 + Number(limit[2])) * 60 + Number(limit[3])) * 60_000;
    assert.ok(ends < maint.start.getTime(), 'the new limit ends before maintenance');
    await waitFor('the maintenance warning to go', () => !diags(u2).some((d) => d[0] === 'maintenance-overlap'));
    if (!knowsMaxTime) return;
    // The fix took the smaller of "before maintenance" and the partitions' maximum (2 days for
    // long): nothing is left to fix.
    assert.match(maintFix.title, /within the partition's maximum/);
    await waitFor('no diagnostics left', () => diags(u2).length === 0);
  });

  it('completes partitions after --partition= and option names after --', async function () {
    needsFixture(this);
    const { editor } = await open('complete.sh', '#!/bin/bash\n#SBATCH --partition=\n#SBATCH --par\n#SBATCH \necho\n', () => true);
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', editor.document.uri, new vscode.Position(1, 20));
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    for (const p of ['debug', 'long', 'xfer']) assert.ok(labels.includes(p), `${p} offered (got ${labels.join(', ')})`);
    const debug = list.items.find((i) => i.label === 'debug')!;
    const isDefault = partitions.find((p) => p.name === 'debug')?.isDefault ? 'default · ' : '';
    assert.match(debug.detail ?? '', new RegExp(`^${isDefault}UP${knowsMaxTime ? '.* · max 01:00:00' : ''}`));
    const names = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', editor.document.uri, new vscode.Position(2, 13));
    const partition = names.items.find((i) => typeof i.label !== 'string' && i.label.label === '--partition');
    assert.ok(partition, 'the --partition option is offered');
    assert.match(String(partition.detail), /^Partition \(queue\) to run in/);
    const fresh = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', editor.document.uri, new vscode.Position(3, 8));
    const offered = fresh.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.deepEqual(offered.slice(0, 4), ['--partition', '-p', '--time', '-t'], 'after "#SBATCH " the common options come first');
    // An option the script already sets is not offered again, and its description is shown once.
    const { editor: e2 } = await open('complete2.sh', '#!/bin/bash\n#SBATCH --account=proj\n#SBATCH --ac\necho\n', () => true);
    const again = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', e2.document.uri, new vscode.Position(2, 12));
    const againLabels = again.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(!againLabels.includes('--account'), `--account is set already (got ${againLabels.join(', ')})`);
    assert.ok(!String(partition.documentation instanceof vscode.MarkdownString ? partition.documentation.value : partition.documentation ?? '').includes(String(partition.detail)), 'the description is not repeated in the documentation');
  });

  it('hovers a partition with its live facts and an option with its description', async function () {
    needsFixture(this);
    const { editor } = await open('hover.sh', '#!/bin/bash\n#SBATCH --partition=debug\n#SBATCH --reservation=maint\necho\n', () => true);
    const text = async (line: number, character: number) => {
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, new vscode.Position(line, character));
      return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    };
    const debug = await text(1, 22);
    assert.match(debug, partitions.find((p) => p.name === 'debug')?.isDefault ? /\*\*Partition debug\*\* on .* \(default\)/ : /\*\*Partition debug\*\* on \S+$/m);
    assert.match(debug, knowsMaxTime ? /- Max time: 01:00:00/ : /- Max time: unknown/);
    assert.match(debug, /- State: UP/);
    const res = await text(2, 24);
    assert.ok(res.includes(`- Window: ${when(maint.start)} to ${when(maint.end)}`), res);
    assert.match(await text(1, 10), /\*\*--partition\*\* \(`-p`\)/);
  });

  it('shows "Submit to <system>" above the directives', async function () {
    needsFixture(this);
    const { editor } = await open('lens.sh', '#!/bin/bash\n# job\n#SBATCH -p debug\necho\n', () => true);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri, 10);
    assert.equal(lenses.length, 2);
    assert.equal(lenses[0].range.start.line, 2);
    assert.equal(lenses[0].command?.title, `$(rocket) Submit to ${t.system}`);
    assert.equal(lenses[0].command?.command, 'firecrest.submitJob');
    assert.deepEqual({ ...lenses[0].command?.arguments?.[0], uri: undefined }, { uri: undefined, profile: PROFILE, system: t.system, ask: 'missing' });
    assert.equal(lenses[1].command?.title, 'Change options…');
    assert.equal(lenses[1].command?.command, 'firecrest.submitJobWithOptions');
    // The answers given once for this script (here without prompts) are remembered: the lens then
    // submits with them and asks nothing (a question would leave this call waiting).
    const jobs = await jobsFolder(client, t.system, `/home/${user}`, 'fc-sbatch-jobs');
    jobFolders.push(jobs.remove);
    const first = await vscode.commands.executeCommand<{ jobId: string }>('firecrest.submitJob', { uri: editor.document.uri, profile: PROFILE, system: t.system, workingDirectory: jobs.path, remember: true });
    assert.ok(first?.jobId);
    const ref = await vscode.commands.executeCommand<{ jobId: string }>(lenses[0].command.command, ...lenses[0].command.arguments!);
    assert.ok(ref?.jobId && ref.jobId !== first.jobId, 'a job id came back');
    // v1 learns a job that has already ended from accounting, which may record it a moment late.
    const job = await waitFor('the job with its partition', async () => {
      const j = await client.job(t.system, ref.jobId).catch(() => undefined);
      return j?.partition ? j : undefined;
    }, 60_000);
    assert.equal(job.partition, 'debug');
    // (v1 learns an ended job from sacct, which has no working directory.)
    if (job.workingDirectory !== undefined) assert.equal(job.workingDirectory, jobs.path, 'the remembered working directory');
  });

  it('checks a firecrest:// script against its own system, whatever the setting says', async () => {
    const api = await extensionApi();
    const home = `/home/${user}`;
    const name = `fc-sbatch-${Math.random().toString(36).slice(2, 8)}.sh`;
    await client.uploadSmall(t.system, home, name, new TextEncoder().encode('#!/bin/bash\n#SBATCH --partition=nosuch\necho\n'));
    await vscode.workspace.getConfiguration('firecrest').update('sbatch.system', `${PROFILE}/no-such-system`, vscode.ConfigurationTarget.Global);
    try {
      const authority = api.connections.multiProfile ? `${encodeURIComponent(PROFILE)}@${t.system}` : t.system;
      const uri = vscode.Uri.from({ scheme: 'firecrest', authority, path: `${home}/${name}` });
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      await waitFor('the remote script checked', () => diags(uri).length > 0, 20_000);
      assert.deepEqual(diags(uri).map((d) => [d[0], d[1], d[2], d[3]]), [['unknown-partition', 1, 20, 26]]);
      assert.match(diags(uri)[0][4], new RegExp(`does not exist on ${t.system} `));
    } finally {
      await vscode.workspace.getConfiguration('firecrest').update('sbatch.system', `${PROFILE}/${t.system}`, vscode.ConfigurationTarget.Global);
      await client.remove(t.system, `${home}/${name}`).catch(() => undefined);
    }
  });

  it('runs only the offline checks when the target connection does not exist or is signed out', async () => {
    await vscode.workspace.getConfiguration('firecrest').update('sbatch.system', `nobody-signed-in/${t.system}`, vscode.ConfigurationTarget.Global);
    try {
      await settled();
      const r0 = (await sbatchStats()).refreshes;
      const { uri } = await open('offline.sh', '#!/bin/bash\n#SBATCH --partition=nosuch --time=1x\necho\n', (d) => d.length > 0);
      await settled();
      assert.deepEqual(diags(uri).map((d) => d[0]), ['malformed-value']);
      assert.equal((await sbatchStats()).refreshes, r0, 'nothing fetched');
    } finally {
      await vscode.workspace.getConfiguration('firecrest').update('sbatch.system', `${PROFILE}/${t.system}`, vscode.ConfigurationTarget.Global);
    }
  });

  it('a folder setting wins over the user setting for scripts in that folder', async function () {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file') return skipBecause(this, 'needs a local workspace folder');
    const config = (uri?: vscode.Uri) => vscode.workspace.getConfiguration('firecrest', uri);
    await config().update('sbatch.system', `nobody-signed-in/${t.system}`, vscode.ConfigurationTarget.Global);
    await config(folder.uri).update('sbatch.system', `${PROFILE}/${t.system}`, vscode.ConfigurationTarget.WorkspaceFolder);
    const file = vscode.Uri.joinPath(folder.uri, `fc-sbatch-folder-${Math.random().toString(36).slice(2, 8)}.slurm`);
    try {
      // A live check either way: a time limit above debug's, or (no limits reported) an unknown partition.
      const line = knowsMaxTime ? '#SBATCH -p debug -t 3:00:00' : '#SBATCH -p nosuch';
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(`#!/bin/bash\n${line}\necho\n`));
      const doc = await vscode.workspace.openTextDocument(file);
      assert.equal(doc.languageId, 'shellscript', '*.slurm is a shell script');
      await vscode.window.showTextDocument(doc);
      await waitFor('the live check in the folder', () => diags(file).length > 0, 20_000);
      assert.deepEqual(diags(file).map((d) => d[0]), [knowsMaxTime ? 'time-above-max' : 'unknown-partition']);
    } finally {
      await config(folder.uri).update('sbatch.system', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
      await config().update('sbatch.system', `${PROFILE}/${t.system}`, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await vscode.workspace.fs.delete(file).then(undefined, () => undefined);
    }
  });

  it('typing 100 characters costs at most one refresh per cache period; plain scripts cost none', async function () {
    const gw = t.gateway;
    const stats = async (): Promise<number> => {
      if (!gw?.admin) return -1;
      const res = await fetch(`${gw.admin.replace(/\/+$/, '')}/stats`, { headers: { authorization: `Bearer ${gw.adminToken}` } });
      const body = (await res.json()) as { byRoute: Record<string, number> };
      return Object.entries(body.byRoute).filter(([k]) => LIVE_ROUTES.some((r) => k.endsWith(r))).reduce((s, [, n]) => s + n, 0);
    };
    await vscode.commands.executeCommand('firecrest.test.sbatchClearCache');
    const refreshes = async () => (await sbatchStats()).refreshes;

    // The scripts of the earlier tests are still open: let any check they start settle first.
    await settled();
    const r0 = await refreshes();
    const plain = await open('plain.sh', '#!/bin/bash\necho no directives here\n', () => true);
    for (const ch of 'echo more') await plain.editor.edit((e) => e.insert(new vscode.Position(2, 0), ch));
    await settled();
    assert.equal(await refreshes(), r0, 'no fetch for a script without #SBATCH lines');

    const { editor, uri } = await open('typing.sh', '#!/bin/bash\n#SBATCH --partition=debug\n#SBATCH --job-name=\necho\n', () => true);
    await settled();
    const before = { requests: await stats(), refreshes: await refreshes() };
    // The worst case: the cache is empty when typing starts.
    await vscode.commands.executeCommand('firecrest.test.sbatchClearCache');
    const started = Date.now();
    const word = 'typing-a-job-name-';
    for (let i = 0; i < 100; i++) {
      const end = editor.document.lineAt(2).range.end;
      await editor.edit((e) => e.insert(end, word[i % word.length]), { undoStopBefore: false, undoStopAfter: false });
    }
    await waitFor('diagnostics after typing', () => diags(uri).length === 0 && editor.document.lineAt(2).text.length === 19 + 100);
    await settled();
    const after = { requests: await stats(), refreshes: await refreshes() };
    const row = { chars: 100, ms: Date.now() - started, refreshes: after.refreshes - before.refreshes, requests: gw?.admin ? after.requests - before.requests : 'n/a' };
    console.log(`[sbatch bench] typed ${row.chars} chars in ${row.ms} ms: ${row.refreshes} cache refresh(es), ${row.requests} live-data request(s) (partitions+reservations+userinfo)`);
    assert.ok(row.refreshes <= 1, `at most one refresh (got ${row.refreshes})`);
    if (gw?.admin) assert.ok(after.requests - before.requests <= LIVE_ROUTES.length, `at most one request per route (got ${after.requests - before.requests})`);
  });
});
