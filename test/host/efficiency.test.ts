/**
 * Show Job Efficiency in a real VS Code: a job submitted from a local script runs; the command
 * reads Slurm's accounting through one short job and writes the right-sized request into that
 * script (Apply to Script, as an unsaved edit). On the built-in scheduler, which keeps no
 * accounting, it says so and changes nothing.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import type { FirecrestUri } from '../../src/core/uri';
import { target } from '../support/target';
import { extensionApi, firecrestLogText, waitFor } from './support/extension';
import { connectWithScratchFolder } from './support/scratch';

const PROFILE = 'efficiency-test';

describe('Show Job Efficiency', function () {
  this.timeout(240_000);
  const t = target();
  let client: FirecrestClient;
  let base: FirecrestUri;

  before(async () => {
    ({ client, base } = await connectWithScratchFolder(PROFILE, 'efficiency'));
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor').then(undefined, () => undefined);
    if (base) await client.remove(t.system, base.path).catch(() => undefined);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('reports what a finished job used, and writes the request its next run needs into its script', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fc-eff-')), 'run.sbatch');
    writeFileSync(file, '#!/bin/bash\n#SBATCH --job-name=eff-host\n#SBATCH --time=01:00:00\n#SBATCH --mem=1G\nsleep 3\n');
    const ref = await vscode.commands.executeCommand<{ jobId: string } | undefined>('firecrest.submitJob', { uri: vscode.Uri.file(file), profile: PROFILE, system: t.system, workingDirectory: base.path });
    assert.ok(ref, 'submitted');
    await client.waitForJob(t.system, ref.jobId, { overallTimeoutMs: 120_000 });
    // Before its use is read: the script's quick fix offers to read it, the details link to it.
    const script = vscode.Uri.file(file);
    const actionsAt = async (line: number) => (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', script, new vscode.Range(line, 0, line, 0))) ?? [];
    const check = (await actionsAt(2)).find((a) => a.title.startsWith(`Check the efficiency of job ${ref.jobId}`));
    assert.ok(check, 'the script offers to check its last run');
    assert.equal(check.command?.command, 'firecrest.showJobEfficiency');
    assert.deepEqual((await actionsAt(5)).filter((a) => /efficiency|Right-size/.test(a.title)), [], 'only on #SBATCH lines');
    const detailsUri = vscode.Uri.from({ scheme: 'firecrest-job', authority: encodeURIComponent(PROFILE), path: `/${t.system}/${ref.jobId}.md` });
    const details = await vscode.workspace.openTextDocument(detailsUri);
    assert.match(details.getText(), /## Efficiency\n\n_\[Show Job Efficiency\]\(command:firecrest\.showJobEfficiency\?/);
    const arg = { profile: PROFILE, system: t.system, jobId: ref.jobId, quiet: true, apply: true };
    type Shown = { sentence: string; next: { mem?: string; time?: string } } | undefined;
    let shown = await vscode.commands.executeCommand<Shown>('firecrest.showJobEfficiency', arg);
    // On Slurm, slurmdbd completes the record a moment after the job ends; until then the command says so.
    for (let i = 0; i < 20 && !shown && t.gateway?.scheduler !== 'local'; i++) shown = await vscode.commands.executeCommand<Shown>('firecrest.showJobEfficiency', arg);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    if (t.gateway?.scheduler === 'local') {
      assert.equal(shown, undefined);
      const api = await extensionApi();
      await waitFor('the failure in words in the log', () => /job efficiency is not available on/.test(firecrestLogText(api)) || undefined, 30_000);
      assert.equal(doc.isDirty, false, 'the script is left alone');
      return;
    }
    assert.ok(shown, 'an answer');
    assert.match(shown.sentence, new RegExp(`^Job ${ref.jobId} used .*0:0\\d of 1:00:00`));
    assert.equal(shown.next.time, '00:05:00');
    assert.ok(doc.isDirty, 'Apply to Script is an unsaved edit');
    assert.match(doc.getText(), /^#SBATCH --time=00:05:00$/m);
    if (shown.next.mem) assert.match(doc.getText(), new RegExp(`^#SBATCH --mem=${shown.next.mem}$`, 'm'));
    // Once read: the details say it, and the script's quick fix sets the request.
    await waitFor('the efficiency in the details', () => details.getText().includes(shown.sentence.split(' Its next run')[0]) || undefined, 15_000);
    const fix = (await actionsAt(2)).find((a) => a.title.startsWith('Right-size: '));
    assert.ok(fix?.edit && fix.isPreferred, 'the right-size quick fix');
    assert.match(fix.title, /--time=00:05:00/);
    // The fix's edit: the script with the request set (Apply to Script already made the same text).
    const edits = fix.edit.get(script);
    assert.equal(edits.length, 1);
    assert.match(edits[0].newText, /^#SBATCH --time=00:05:00$/m, 'the quick fix sets the time');
    assert.match(edits[0].newText, /^#SBATCH --job-name=eff-host$/m, 'and keeps the rest');
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    assert.equal(doc.getText(), edits[0].newText);
  });
});
