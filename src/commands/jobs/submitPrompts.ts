/**
 * The questions Submit Job may ask. Each returns `null` when the user dismissed it (stop the
 * submission) and `undefined` for "no override, let the scheduler decide".
 */
import * as vscode from 'vscode';
import type { FirecrestApi } from '../../core/api';
import type { Reservation } from '../../core/model';

const SCHEDULER_DEFAULT = '(scheduler default)';

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
    title: 'Submit Job: working directory',
    prompt: 'Absolute path on the cluster where the job runs (sbatch --chdir)',
    value: initial,
    ignoreFocusOut: true,
    validateInput: (v) => (v.startsWith('/') ? undefined : 'An absolute path, starting with /'),
  });
}

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
    .map((a) => ({ label: a.name, description: [a.isDefault ? 'scheduler default' : '', a.name === preferred ? 'profile default' : ''].filter(Boolean).join(', ') }))
    .sort((a, b) => Number(b.label === first) - Number(a.label === first));
  const pick = await vscode.window.showQuickPick(items, { title: 'Submit Job: account', placeHolder: 'Charge which account?', ignoreFocusOut: true });
  return pick ? pick.label : null;
}

export async function askPartition(client: FirecrestApi, system: string): Promise<string | undefined | null> {
  const partitions = await client.partitions(system);
  if (partitions.length === 0) return undefined;
  const items = [
    { label: SCHEDULER_DEFAULT, description: partitions.find((p) => p.isDefault)?.name ?? '' },
    ...partitions.map((p) => ({ label: p.name, description: [p.state, p.isDefault ? 'default' : ''].filter(Boolean).join(' · ') })),
  ];
  const pick = await vscode.window.showQuickPick(items, { title: 'Submit Job: partition', placeHolder: 'Which partition?', ignoreFocusOut: true });
  if (!pick) return null;
  return pick.label === SCHEDULER_DEFAULT ? undefined : pick.label;
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
  const none = '(no reservation)';
  const pick = await vscode.window.showQuickPick([{ label: none, description: '' }, ...usable.map((r) => ({
    label: r.name,
    description: [r.state, reservationAccess(r, me) === 'unknown' && (r.flags?.some((f) => /MAINT/i.test(f)) ? 'maintenance: probably not for jobs' : 'may be restricted')].filter(Boolean).join(' · '),
  }))], {
    title: 'Submit Job: reservation',
    placeHolder: 'Run inside a reservation?',
    ignoreFocusOut: true,
  });
  if (!pick) return null;
  return pick.label === none ? undefined : pick.label;
}
