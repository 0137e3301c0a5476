/**
 * A record of what each job ran (issue #23), in a real VS Code: a script submitted from a git
 * repository with an uncommitted change is recorded with its text, the commit and the diff, the
 * environment sent and the options; Compare Script with Current File shows the recorded script
 * beside the file as it is now; Resubmit Exactly runs the recorded script with the same options,
 * even after the file changed.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestClient } from '../../src/core/client';
import { target } from '../support/target';
import { testPartition } from './support/apiVersion';
import { addTestConnection, waitFor } from './support/extension';

const PROFILE = 'provenance-test';

interface Ref { profile: string; system: string; jobId: string }
interface Record_ {
  script: string;
  source: string;
  git?: { root: string; commit?: string; branch?: string; diff: string };
  env?: Record<string, string>;
  options: { workingDirectory: string; name?: string; account?: string; partition?: string; reservation?: string };
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.org', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();

describe('A record of what each job ran (provenance)', function () {
  const t = target();
  let client: FirecrestClient;
  let remoteDir: string;
  const tag = Math.random().toString(36).slice(2, 8);
  // Inside the workspace folder: the git extension opens no repository outside it (by default).
  const repo = mkdtempSync(join(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? tmpdir(), 'fc-prov-'));
  const file = join(repo, 'run.sh');
  let original = '';
  let submitted: Ref | undefined;
  let commit = '';

  before(async () => {
    let home: string;
    ({ client, home } = await addTestConnection(PROFILE));
    remoteDir = `${home}/fc-prov-${tag}`;
    await client.mkdir(t.system, remoteDir, { parents: true });
    const partition = await testPartition(client, t.system);
    original = `#!/bin/bash\n#SBATCH --partition=${partition}\n#SBATCH --job-name=fc-prov-${tag}\n#SBATCH --time=00:02:00\necho "provenance ${tag} $PROV_TAG"\n`;
    writeFileSync(file, original);
    writeFileSync(join(repo, 'params.txt'), 'alpha=1\n');
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first');
    commit = git(repo, 'rev-parse', 'HEAD');
    // The uncommitted change the run is made of.
    writeFileSync(join(repo, 'params.txt'), `alpha=2 ${tag}\n`);
    await vscode.workspace.getConfiguration('firecrest').update('submit.environment', { PROV_TAG: tag }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('firecrest').update('submit.environment', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await client.remove(t.system, remoteDir).catch(() => undefined);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
    rmSync(repo, { recursive: true, force: true });
  });

  it('records the script sent, the commit and the uncommitted diff, the environment and the options', async () => {
    submitted = await vscode.commands.executeCommand<Ref>('firecrest.submitJob', { uri: vscode.Uri.file(file), profile: PROFILE, system: t.system, workingDirectory: remoteDir });
    assert.ok(submitted?.jobId, 'a job id came back');
    const rec = await vscode.commands.executeCommand<Record_ | undefined>('firecrest.test.provenance', submitted);
    assert.ok(rec, 'a record was kept');
    assert.equal(rec.script, original);
    assert.equal(rec.source, vscode.Uri.file(file).toString());
    assert.equal(rec.git?.commit, commit);
    assert.match(rec.git?.diff ?? '', new RegExp(`\\+alpha=2 ${tag}`));
    assert.deepEqual(rec.env, { PROV_TAG: tag });
    assert.equal(rec.options.workingDirectory, remoteDir);
    // Job Details tells it too.
    const details = await vscode.commands.executeCommand<string>('firecrest.showJobDetails', submitted);
    const text = (await vscode.workspace.openTextDocument(vscode.Uri.parse(details))).getText();
    assert.match(text, new RegExp(`## Submitted from this editor[\\s\\S]*git: ${commit} on main in .*with uncommitted changes \\(2 lines\\)[\\s\\S]*environment: PROV_TAG`));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Compare Script with Current File: the script the job ran beside the file as it is now', async () => {
    assert.ok(submitted);
    writeFileSync(file, original.replace('echo "provenance', 'echo "changed since'));
    const shown = await vscode.commands.executeCommand<{ left: string; right: string }>('firecrest.compareJobScript', submitted);
    const tab = await waitFor('the diff editor', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((x) => x.input instanceof vscode.TabInputTextDiff && x.input.original.toString() === shown.left));
    const input = tab.input as vscode.TabInputTextDiff;
    assert.equal(input.original.scheme, 'firecrest-script');
    assert.equal(input.modified.toString(), vscode.Uri.file(file).toString());
    assert.equal((await vscode.workspace.openTextDocument(input.original)).getText(), original);
    assert.match(tab.label, new RegExp(`Job ${submitted.jobId} ran`));
    await vscode.window.tabGroups.close(tab);
  });

  it('Resubmit Exactly runs the recorded script with the same options, not the changed file', async function () {
    this.timeout(300_000);
    assert.ok(submitted);
    const again = await vscode.commands.executeCommand<Ref>('firecrest.resubmitJob', submitted);
    assert.ok(again?.jobId && again.jobId !== submitted.jobId, 'a new job');
    // Compared once both have ended: a record read while a job is starting can be slurmdbd's
    // placeholder (named "allocation", fields empty), which a v1 server passes on as it is.
    await Promise.all([submitted.jobId, again.jobId].map((id) => client.waitForJob(t.system, id, { overallTimeoutMs: 180_000 })));
    // A job that has just ended may still have slurmdbd's placeholder record (no partition yet, on a
    // real v1 server, and for longer than half a minute on a loaded machine): each is read until its
    // record is complete, or for a minute and a half.
    const complete = async (id: string) => await waitFor(`job ${id}'s accounting record`, async () => {
      const j = await client.job(t.system, id);
      return j.partition !== undefined ? j : undefined;
    }, 90_000).catch(() => client.job(t.system, id));
    const [first, second] = await Promise.all([submitted.jobId, again.jobId].map(complete));
    for (const k of ['name', 'partition', 'account', 'workingDirectory'] as const) assert.equal(second[k], first[k], k);
    const rec = await vscode.commands.executeCommand<Record_ | undefined>('firecrest.test.provenance', again);
    assert.equal(rec?.script, original, 'the new job is recorded with the script it ran');
    if (client.capabilities.jobScript) {
      const meta = await client.jobMetadata(t.system, again.jobId);
      assert.ok(meta.script?.includes(`echo "provenance ${tag} $PROV_TAG"`), meta.script);
    }
    // It ran with the same environment: its output says so.
    assert.equal(second.stateClass, 'completed', second.state);
    const out = new TextDecoder().decode(await client.downloadSmall(t.system, `${remoteDir}/slurm-${again.jobId}.out`));
    assert.equal(out, `provenance ${tag} ${tag}\n`);
    assert.ok(readFileSync(file, 'utf8').includes('changed since'), 'the file did change meanwhile');
  });
});
