/**
 * The v1-only features in a real VS Code, on a SECOND connection to the gateway's API v1 base URL
 * (added like Add Connection does): reservation create/update/delete through their form answers
 * (checked on the scheduler), Move/Copy/Sync on Cluster after another job, the tasks list, direct
 * rename, and the menus that hide what v1 lacks.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { FirecrestExtensionApi } from '../../src/common/api';
import { hasV1Extras, type V1Extras } from '../../src/core/api';
import type { FirecrestClient } from '../../src/core/client';
import { FirecrestUri } from '../../src/core/uri';
import { target } from '../support/target';
import { localTime, reservationSlot } from '../support/reservationSlot';
import { EXTENSION_ID, extensionApi, firecrestLogText, waitFor } from './support/extension';
import { skipBecause } from './support/apiVersion';

const PROFILE = 'v1-features-test';

interface Snap {
  label: string;
  description?: string;
  contextValue?: string;
  children?: Snap[];
}

function find(nodes: Snap[] | undefined, pred: (n: Snap) => boolean): Snap | undefined {
  for (const n of nodes ?? []) {
    if (pred(n)) return n;
    const hit = find(n.children, pred);
    if (hit) return hit;
  }
  return undefined;
}

/** The v1 connection's part of the tree: its node's children, or the whole tree when it is the only connection. */
function v1Part(tree: Snap[]): Snap[] | undefined {
  const conns = tree.filter((n) => n.contextValue?.startsWith(';connection;'));
  if (conns.length === 0) return tree;
  return conns.find((n) => n.label === PROFILE)?.children;
}

describe('API v1 features', function () {
  const t = target();
  const v1Url = t.apiVersion === 'v1' ? t.url : t.gateway?.v1;
  const slurm = t.gateway?.scheduler === 'slurm';
  let api: FirecrestExtensionApi;
  let client: FirecrestClient & V1Extras;
  let account = '';
  let base: FirecrestUri;
  const tag = randomBytes(3).toString('hex');
  const rsv = `v1t_${tag}`;
  const uri = (f: FirecrestUri) => vscode.Uri.from({ scheme: 'firecrest', authority: f.authority, path: f.path });
  const hour = 3_600_000;
  const start = reservationSlot();
  /** Log lines of a failed command since `mark` (the wrapper logs each failure with its id). */
  const failures = (id: string, mark: number) => firecrestLogText(api).slice(mark).split('\n').filter((l) => l.includes(`${id}: `));
  const scontrol = (name: string) => execFileSync('scontrol', ['show', 'reservation', name], { encoding: 'utf8' });

  before(async function () {
    if (!v1Url) return skipBecause(this, 'needs an API v1 URL (the local gateway\'s, or FIRECREST_API_VERSION=v1)');
    api = await extensionApi();
    const added = await vscode.commands.executeCommand<{ name: string }>('firecrest.addConnection', {
      name: PROFILE, url: v1Url, apiVersion: 'v1', tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
    });
    assert.equal(added?.name, PROFILE, 'the v1 connection was added');
    const c = await api.connections.client(PROFILE);
    assert.ok(hasV1Extras(c), 'the client carries the v1 extras');
    client = c;
    const info = await client.userInfo(t.system);
    // v1 has no account list (whoami only): on Slurm the reservation's account must be one the
    // accounting database knows, so ask it for the user's default account.
    const accounts = info.accounts ?? [];
    const slurmDefault = slurm
      ? execFileSync('sacctmgr', ['--noheader', '--parsable2', 'show', 'user', info.user.name, 'format=defaultaccount'], { encoding: 'utf8' }).trim().split('\n')[0]
      : undefined;
    account = process.env.FIRECREST_ACCOUNT || slurmDefault || ((accounts.find((a) => a.isDefault) ?? accounts[0])?.name ?? info.group.name);
    base = FirecrestUri.from({ system: t.system, path: `/home/${info.user.name}/v1-ui-${tag}`, profile: PROFILE });
    await vscode.workspace.fs.createDirectory(uri(base));
  });

  after(async () => {
    if (!api) return;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await client?.reservationsDelete(t.system, rsv).catch(() => undefined);
    if (base) await vscode.workspace.fs.delete(uri(base), { recursive: true }).then(undefined, () => undefined);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('hides what v1 lacks and shows the v1 commands only on v1 connections', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as { contributes: { menus: Record<string, { command: string; when?: string }[]> } };
    const menus = pkg.contributes.menus;
    const palette = (id: string) => menus.commandPalette.find((m) => m.command === id)?.when ?? '';
    assert.match(palette('firecrest.attachToJob'), /firecrest\.attachAvailable/, 'attach is hidden where no connection can attach');
    for (const id of ['createReservation', 'updateReservation', 'deleteReservation', 'transferOnCluster', 'showTasks']) {
      assert.match(palette(`firecrest.v1.${id}`), /firecrest\.v1Connected/, `${id} only with a v1 connection`);
    }
    const items = menus['view/item/context'].filter((m) => m.command.startsWith('firecrest.v1.'));
    assert.ok(items.length >= 3 && items.every((m) => /;manage;|manage;/.test(m.when ?? '')), 'tree menus need the manage token');
    // In the Explorer's FirecREST submenu, which is shown on remote files only.
    const submenu = (menus['explorer/context'] as { submenu?: string; when?: string }[]).find((m) => m.submenu === 'firecrest.explorerContext');
    const explorer = menus['firecrest.explorerContext'].find((m) => m.command === 'firecrest.v1.transferOnCluster');
    // VS Code hands back normalised when clauses (sorted, quoted): check the parts, not the text.
    assert.match(submenu?.when ?? '', /resourceScheme == '?firecrest'?/, 'Move/Copy/Sync on remote files');
    assert.match(explorer?.when ?? '', /firecrest\.v1Connected/, 'Move/Copy/Sync only with a v1 connection');
    assert.equal(client.capabilities.attach, false);
  });

  it('marks the v1 Reservations group and its reservations as manageable in the Systems tree', async () => {
    const snap = await waitFor('the v1 connection in the Systems tree', async () => {
      const s = await vscode.commands.executeCommand<{ tree: Snap[] }>('firecrest.test.systemsTree');
      return v1Part(s.tree) ? s : undefined;
    });
    const group = find(v1Part(snap.tree), (n) => n.contextValue === ';category;reservations;manage;');
    assert.ok(group, 'the v1 Reservations group carries manage');
    for (const r of group.children ?? []) if (r.contextValue?.startsWith(';reservation;')) assert.match(r.contextValue, /;manage;/);
    // A v2 connection in the same tree does not offer management.
    // (Other v1 connections, such as another suite's on a v1 run, may manage reservations too.)
    const v2 = new Set(api.connections.connections().filter((c) => c.profile.apiVersion !== 'v1').map((c) => c.profile.name));
    const others = snap.tree.filter((n) => n.label !== PROFILE && n.contextValue?.startsWith(';connection;') && v2.has(n.label));
    for (const o of others) assert.equal(find(o.children, (n) => /manage;/.test(n.contextValue ?? '')), undefined, `${o.label} offers no reservation management`);
  });

  it('refuses answers the server would refuse without sending them, and says why', async () => {
    const mark = firecrestLogText(api).length;
    const base = { profile: PROFILE, system: t.system, name: rsv, account, numberOfNodes: 1, nodeType: 'f7t', starttime: localTime(start), endtime: localTime(start + hour) };
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ name: 'Bad-Name' }, /Reservation name: .*lower-case/],
      [{ account: '9acct' }, /Account .*: .*must start/],
      [{ numberOfNodes: 0 }, /Number of nodes: A whole number/],
      [{ nodeType: '' }, /Node type, the feature of the nodes to reserve: f7t: The node type is required/],
      [{ starttime: '2030-02-30T10:00:00' }, /Start, .*: Start time as YYYY-MM-DDTHH:MM:SS/],
      [{ starttime: localTime(Date.now() - hour) }, /start time must be in the future/],
      [{ endtime: localTime(start - hour) }, /end time must be after the start time/],
    ];
    for (const [change] of bad) {
      assert.equal(await vscode.commands.executeCommand('firecrest.v1.createReservation', { ...base, ...change }), undefined);
    }
    const lines = await waitFor('one logged failure per bad answer', () => {
      const l = failures('firecrest.v1.createReservation', mark);
      return l.length >= bad.length ? l : undefined;
    });
    bad.forEach(([, why], i) => assert.match(lines[i], why));
    assert.ok(!(await client.reservationsManaged(t.system)).some((r) => r.name === rsv), 'nothing was created');
  });

  it("shows the scheduler's own text when it still refuses", async () => {
    const mark = firecrestLogText(api).length;
    const result = await vscode.commands.executeCommand('firecrest.v1.createReservation', {
      profile: PROFILE, system: t.system, name: rsv, account, numberOfNodes: 1, nodeType: 'no_such_feature', starttime: localTime(start), endtime: localTime(start + hour),
    });
    assert.equal(result, undefined);
    const [line] = await waitFor('the refusal in the log', () => {
      const l = failures('firecrest.v1.createReservation', mark);
      return l.length ? l : undefined;
    });
    // A well-formed node type that no node has: the refusal of whatever the site runs behind v1
    // reservations (Slurm's own text here; a site tool's words elsewhere, such as upstream's test
    // cluster's "only f7t feature type are supported"), shown as it is, not the form's.
    if (t.gateway && (t.gateway.compat ?? 'none') === 'none') assert.match(line, /Invalid feature specification/i, line);
    else assert.match(line, /firecrest\.v1\.createReservation:.*\S.{8,}/, `a refusal in words: ${line}`);
  });

  /** Why the site's reservation tool refused to create one (a deployment's own rules), when it did. */
  let refusedBySite: string | undefined;

  it('creates a reservation from the form answers: on the scheduler and in the tree', async function () {
    const mark = firecrestLogText(api).length;
    const result = await vscode.commands.executeCommand<{ name: string }>('firecrest.v1.createReservation', {
      profile: PROFILE, system: { name: t.system }, name: rsv, account, numberOfNodes: 1, nodeType: 'f7t', starttime: localTime(start), endtime: localTime(start + hour),
    });
    if (result === undefined && !t.gateway) {
      // What the request carries is right (the form checked it); a site's tool may still refuse
      // the account: then the skip says what is missing.
      const said = (await waitFor('the refusal in the log', () => { const l = failures('firecrest.v1.createReservation', mark); return l.length ? l : undefined; })).join(' ');
      assert.doesNotMatch(said, /form data input missing|format is not valid/, said);
      refusedBySite = `the site's reservation tool refused account ${account} (${said.replace(/^.*firecrest\.v1\.createReservation: /, '')}): set FIRECREST_ACCOUNT to one it accepts`;
      return skipBecause(this, refusedBySite);
    }
    assert.equal(result?.name, rsv);
    const r = (await client.reservationsManaged(t.system)).find((x) => x.name === rsv);
    assert.ok(r, 'listed by the reservations service');
    assert.equal(r.start.getTime(), start);
    assert.equal(r.end.getTime(), start + hour);
    if (slurm) assert.match(scontrol(rsv), new RegExp(`ReservationName=${rsv} StartTime=${localTime(start)} EndTime=${localTime(start + hour)}`));
    const snap = await vscode.commands.executeCommand<{ tree: Snap[] }>('firecrest.test.systemsTree');
    const node = find(v1Part(snap.tree), (n) => n.label === rsv);
    assert.ok(node, 'the new reservation is in the Systems tree (refreshed)');
    assert.match(node.contextValue ?? '', /^;reservation;.*manage;/);
  });

  it('updates the reservation from its tree node', async function () {
    skipBecause(this, refusedBySite);
    const r = (await client.reservationsManaged(t.system)).find((x) => x.name === rsv);
    assert.ok(r);
    // The node's argument is what the tree passes; the answers replace the form's input boxes.
    const node = { kind: 'reservation', profile: PROFILE, system: t.system, reservation: r, manage: true };
    const result = await vscode.commands.executeCommand<{ name: string }>('firecrest.v1.updateReservation', { ...node, numberOfNodes: 1, nodeType: 'f7t', starttime: localTime(start), endtime: localTime(start + 2 * hour) });
    assert.equal(result?.name, rsv);
    const after = (await client.reservationsManaged(t.system)).find((x) => x.name === rsv);
    assert.equal(after?.end.getTime(), start + 2 * hour);
    if (slurm) assert.match(scontrol(rsv), new RegExp(`EndTime=${localTime(start + 2 * hour)}`));
  });

  it('deletes the reservation', async function () {
    skipBecause(this, refusedBySite);
    const result = await vscode.commands.executeCommand<{ name: string }>('firecrest.v1.deleteReservation', { profile: PROFILE, system: t.system, name: rsv, confirmed: true });
    assert.equal(result?.name, rsv);
    assert.ok(!(await client.reservationsManaged(t.system)).some((x) => x.name === rsv));
    if (slurm) assert.throws(() => scontrol(rsv), 'scontrol no longer knows it');
  });

  it('moves a file on the cluster after another job, and shows the submitted job', async () => {
    const src = base.joinPath('data.txt');
    const dst = base.joinPath('moved.txt');
    await vscode.workspace.fs.writeFile(uri(src), new TextEncoder().encode(`payload ${tag}\n`));
    // The job the transfer waits for runs until the test creates its `go` file: no race with the clock.
    const go = base.joinPath('go');
    const script = `#!/bin/bash\n#SBATCH --time=00:05:00\nwhile [ ! -e '${go.path}' ]; do sleep 1; done\n`;
    const blocker = await client.submitJob(t.system, { script, workingDirectory: base.path, name: `v1-blocker-${tag}` });
    const moved = await vscode.commands.executeCommand<{ jobId: string; system: string; taskId?: string; kind: string }>('firecrest.v1.transferOnCluster', {
      uri: uri(src), kind: 'mv', target: dst.path, afterJob: blocker, time: '10:00',
    });
    assert.ok(moved?.jobId, 'the command returns the submitted job');
    assert.equal(moved.kind, 'mv');
    const waiting = await waitFor('the transfer job in the queue', () => client.job(moved.system, moved.jobId), 60_000);
    assert.equal(waiting.isFinal, false, `the transfer waits for job ${blocker} (${waiting.state})`);
    assert.equal((await client.stat(t.system, src.path)).size, `payload ${tag}\n`.length, 'nothing moved while the first job runs');
    await vscode.workspace.fs.writeFile(uri(go), new Uint8Array());
    const first = await client.waitForJob(t.system, blocker, { overallTimeoutMs: 120_000 });
    assert.equal(first.stateClass, 'completed');
    const job = await client.waitForJob(moved.system, moved.jobId, { overallTimeoutMs: 180_000 });
    assert.equal(job.stateClass, 'completed', `transfer job ${job.state}`);
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri(dst)));
    assert.equal(text, `payload ${tag}\n`);
    await assert.rejects(Promise.resolve(client.stat(t.system, src.path)), 'the source is gone');

    // The tasks list: the transfer's task, opened by id, names the job it submitted.
    assert.ok(moved.taskId);
    const docUri = await vscode.commands.executeCommand<string>('firecrest.v1.showTasks', { profile: PROFILE, taskId: moved.taskId });
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(docUri));
    assert.match(doc.getText(), new RegExp(`# Task ${moved.taskId}`));
    assert.match(doc.getText(), /200 · Finished successfully/);
    assert.match(doc.getText(), new RegExp(`"jobid": "${moved.jobId}"`));
  });

  it('refuses a transfer answer the server would refuse', async () => {
    const mark = firecrestLogText(api).length;
    const src = uri(base.joinPath('nothing.txt'));
    await vscode.commands.executeCommand('firecrest.v1.transferOnCluster', { uri: src, kind: 'cp', target: `${base.path}/a;b`, afterJob: '', time: '' });
    await vscode.commands.executeCommand('firecrest.v1.transferOnCluster', { uri: src, kind: 'cp', target: `${base.path}/copy`, afterJob: 'abc', time: '' });
    await vscode.commands.executeCommand('firecrest.v1.transferOnCluster', { uri: src, kind: 'cp', target: `${base.path}/copy`, afterJob: '', time: '2 hours' });
    const lines = await waitFor('three logged refusals', () => {
      const l = failures('firecrest.v1.transferOnCluster', mark);
      return l.length >= 3 ? l : undefined;
    });
    assert.match(lines[0], /refuses paths/);
    assert.match(lines[1], /A job id/);
    assert.match(lines[2], /Slurm time limit/);
  });

  it('lists the tasks in a quick pick; picking one opens its details', async () => {
    const shown = vscode.commands.executeCommand<string>('firecrest.v1.showTasks', { profile: PROFILE });
    let settled = false;
    void shown.then(() => (settled = true), () => (settled = true));
    // Accept the first (newest) row once the quick pick is up.
    await waitFor('the task details to open', async () => {
      if (!settled) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      return settled;
    }, 30_000);
    const docUri = await shown;
    assert.ok(docUri, 'a task was picked');
    const text = (await vscode.workspace.openTextDocument(vscode.Uri.parse(docUri))).getText();
    assert.match(text, /^# Task [0-9a-f]{32}/);
    assert.match(text, /\| Status \| \d{3} · /);
  });

  it('renames directly on v1 (Explorer rename)', async () => {
    assert.equal(client.capabilities.directRename, true);
    const a = base.joinPath('rename-me.txt');
    const b = base.joinPath('renamed.txt');
    await vscode.workspace.fs.writeFile(uri(a), new TextEncoder().encode('rename\n'));
    await vscode.workspace.fs.rename(uri(a), uri(b));
    assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri(b))), 'rename\n');
    await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(uri(a))));
  });
});
