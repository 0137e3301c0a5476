/**
 * The questions Submit Job may ask. Each returns `null` when the user dismissed it (stop the
 * submission) and `undefined` for "no override, let the scheduler decide".
 */
import * as vscode from 'vscode';
import type { FirecrestApi } from '../core/api';
import { arrayCounts, describeCounts, groupArrays } from '../core/jobArrays';
import type { Reservation } from '../core/model';
import { stateInWords } from '../common/jobFormat';
import type { StartEstimate } from '../core/facts/startEstimate';
import { estimateWords, openPartitions } from './startEstimates';

/**
 * Whether `me` may run in `r`: `allowed` or `denied` where the server lists who it is for,
 * `unknown` where it does not (v2 lists no users or accounts).
 */
export function reservationAccess(r: Reservation, me: { user: string; accounts: string[] } | undefined): 'allowed' | 'denied' | 'unknown' {
  const users = r.users ?? [];
  const accounts = r.accounts ?? [];
  if (!me || (users.length === 0 && accounts.length === 0)) return 'unknown';
  return users.includes(me.user) || accounts.some((a) => me.accounts.includes(a)) ? 'allowed' : 'denied';
}

export async function askWorkingDirectory(initial: string): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: vscode.l10n.t('Submit Job: working directory'),
    prompt: vscode.l10n.t('Absolute path on the cluster where the job runs (sbatch --chdir)'),
    value: initial,
    ignoreFocusOut: true,
    validateInput: (v) => (v.startsWith('/') ? undefined : vscode.l10n.t('An absolute path, starting with /')),
  });
}

/** The account to charge (Submit Job with Options; a first Submit leaves it to Slurm's default or the profile's). */
export async function askAccount(client: FirecrestApi, system: string, preferred?: string): Promise<string | undefined | null> {
  let accounts: { name: string; isDefault: boolean }[] = [];
  try {
    accounts = (await client.userInfo(system)).accounts ?? [];
  } catch {
    // No account list (older server, PBS): fall back to the profile's default.
  }
  if (accounts.length === 0) return preferred;
  if (accounts.length === 1) return accounts[0].name;
  const first = preferred ?? accounts.find((a) => a.isDefault)?.name;
  const items = accounts
    .map((a) => ({ label: a.name, description: [a.isDefault ? vscode.l10n.t('scheduler default') : '', a.name === preferred ? vscode.l10n.t('profile default') : ''].filter(Boolean).join(', ') }))
    .sort((a, b) => Number(b.label === first) - Number(a.label === first));
  const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Submit Job: account'), placeHolder: vscode.l10n.t('Charge which account?'), ignoreFocusOut: true });
  return pick ? pick.label : null;
}

/**
 * The partition. `always` false: asked only when the server says no partition is the default.
 * `estimate`: the title bar's *Estimate Start* fills Slurm's start estimate in beside each
 * partition (a short job), soonest first.
 */
export async function askPartition(client: FirecrestApi, system: string, always = true, estimate?: (partitions: string[]) => Promise<StartEstimate[]>): Promise<string | undefined | null> {
  const partitions = await client.partitions(system);
  if (partitions.length === 0) return undefined;
  // Asked only when the server says no partition is the default (upstream v2 does not say: the
  // scheduler's default then applies, and a refusal says so in words).
  if (!always && !partitions.every((p) => p.isDefault === false)) return undefined;
  type Item = vscode.QuickPickItem & { partition: string | undefined };
  const items: Item[] = [
    { label: vscode.l10n.t('(scheduler default)'), description: partitions.find((p) => p.isDefault)?.name ?? '', partition: undefined },
    ...partitions.map((p) => ({ label: p.name, description: [p.state, p.isDefault ? vscode.l10n.t('default') : ''].filter(Boolean).join(' · '), partition: p.name })),
  ];
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = vscode.l10n.t('Submit Job: partition');
  qp.placeholder = vscode.l10n.t('Which partition?');
  qp.ignoreFocusOut = true;
  qp.matchOnDescription = true;
  qp.items = items;
  const estimateButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('watch'), tooltip: vscode.l10n.t('Estimate when it would start in each partition (a short job)') };
  if (estimate) qp.buttons = [estimateButton];
  return new Promise<string | undefined | null>((resolve) => {
    const subs = [
      qp.onDidTriggerButton(async (b) => {
        if (b !== estimateButton || !estimate) return;
        qp.busy = true;
        qp.buttons = [];
        try {
          const found = await estimate(openPartitions(partitions));
          const by = new Map(found.map((e, i) => [e.partition, { e, i }]));
          qp.items = [items[0], ...items.slice(1).map((it) => {
            const e = by.get(it.partition!)?.e;
            return e ? { ...it, ...estimateWords(e) } : it;
          }).sort((a, b) => (by.get(a.partition!)?.i ?? Infinity) - (by.get(b.partition!)?.i ?? Infinity))];
        } catch (e) {
          qp.title = vscode.l10n.t('Submit Job: partition (no estimates: {0})', e instanceof Error ? e.message : String(e));
        } finally {
          qp.busy = false;
        }
      }),
      qp.onDidAccept(() => {
        const pick = qp.selectedItems[0];
        if (!pick) return;
        resolve(pick.partition);
        qp.hide();
      }),
      qp.onDidHide(() => {
        resolve(null);
        for (const d of subs) d.dispose();
        qp.dispose();
      }),
    ];
    qp.show();
  });
}

export async function askReservation(client: FirecrestApi, system: string): Promise<string | undefined | null> {
  let reservations: Reservation[] = [];
  let me: { user: string; accounts: string[] } | undefined;
  try {
    reservations = (await client.reservations(system)).filter((r) => r.end.getTime() > Date.now());
    const info = await client.userInfo(system).catch(() => undefined);
    if (info) me = { user: info.user.name, accounts: (info.accounts ?? []).map((a) => a.name) };
  } catch {
    return undefined;
  }
  // Where the server says who a reservation is for, one the user may not use is not offered;
  // where it does not say, a maintenance window or one with a user list is marked as such.
  const usable = reservations.filter((r) => reservationAccess(r, me) !== 'denied');
  if (usable.length === 0) return undefined;
  const pick = await vscode.window.showQuickPick([{ label: vscode.l10n.t('(no reservation)'), description: '', reservation: undefined as string | undefined }, ...usable.map((r) => ({
    label: r.name,
    reservation: r.name,
    description: [r.state, reservationAccess(r, me) === 'unknown' && (r.flags?.some((f) => /MAINT/i.test(f)) ? vscode.l10n.t('maintenance: probably not for jobs') : vscode.l10n.t('may be restricted'))].filter(Boolean).join(' · '),
  }))], {
    title: vscode.l10n.t('Submit Job: reservation'),
    placeHolder: vscode.l10n.t('Run inside a reservation?'),
    ignoreFocusOut: true,
  });
  if (!pick) return null;
  return pick.reservation;
}

/**
 * Run after…: the user's jobs on the system that have not ended (and the last few that did), then
 * when to start: after it completes successfully, after it ends however, or after it fails.
 */
export async function askDependency(client: FirecrestApi, system: string): Promise<string | undefined | null> {
  const none = { label: vscode.l10n.t('$(debug-start) Start when resources are free'), description: vscode.l10n.t('no dependency'), id: '' };
  let jobs: { label: string; description: string; id: string }[] = [];
  try {
    const [listing, me] = await Promise.all([client.jobs(system), client.userInfo(system).catch(() => undefined)]);
    // An array is one choice (its id waits for every task), its tasks' counts beside it.
    const { jobs: listed, arrays } = groupArrays(listing);
    const open = listed.filter((j) => !j.isFinal);
    const recent = listed.filter((j) => j.isFinal).sort((a, b) => (b.endTime ?? 0) - (a.endTime ?? 0)).slice(0, 5);
    jobs = [...open, ...recent].map((j) => {
      const tasks = arrays.get(j.id);
      return tasks
        ? { label: vscode.l10n.t('$(layers) Run after array {0} {1} (all its tasks)', j.id, j.name), description: describeCounts(arrayCounts(tasks)), id: j.id }
        : { label: vscode.l10n.t('$(clock) Run after {0} {1}', j.id, j.name), description: stateInWords(j, me?.user), id: j.id };
    });
  } catch {
    // No listing: only "no dependency" is offered (a dependency can still be written in the script).
  }
  if (jobs.length === 0) return undefined;
  const pick = await vscode.window.showQuickPick([none, ...jobs], { title: vscode.l10n.t('Submit Job: run after…'), placeHolder: vscode.l10n.t('Start when resources are free, or after another job?'), ignoreFocusOut: true });
  if (!pick) return null;
  if (!pick.id) return undefined;
  const when = await vscode.window.showQuickPick([
    { label: vscode.l10n.t('When it completes successfully'), description: `afterok:${pick.id}`, value: 'afterok' },
    { label: vscode.l10n.t('When it ends, however it ends'), description: `afterany:${pick.id}`, value: 'afterany' },
    { label: vscode.l10n.t('Only if it fails'), description: `afternotok:${pick.id}`, value: 'afternotok' },
  ], { title: vscode.l10n.t('Submit Job: run after {0}', pick.id), ignoreFocusOut: true });
  return when ? `${when.value}:${pick.id}` : null;
}
