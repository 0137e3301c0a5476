/**
 * Palette paths of the job commands: which connection, system and job, when no tree node or
 * argument says. Each step is skipped when there is only one choice.
 */
import * as vscode from 'vscode';
import { asJobRef, type JobRef } from '../common/jobRef';
import type { ExtensionServices } from '../common/services';
import { pickProfile, pickSystem } from '../common/systemPickers';
import type { FirecrestApi } from '../core/api';
import type { Job } from '../core/model';

export { pickProfile, pickSystem } from '../common/systemPickers';

/** The job a command acts on: its argument when it names one, else quick picks. */
export async function resolveJob(services: ExtensionServices, arg: unknown, opts: { activeOnly?: boolean; placeHolder?: string } = {}): Promise<JobRef | undefined> {
  const given = asJobRef(arg);
  if (given) return { ...given, profile: given.profile || (services.connections.defaultProfileName() ?? '') };
  const profile = await pickProfile(services);
  if (!profile) return undefined;
  const system = await pickSystem(services, profile);
  if (!system) return undefined;
  const client = await services.connections.client(profile);
  const job = await pickJobFromListing(client, system, opts);
  return job ? { profile, system, jobId: job.id, job } : undefined;
}

type JobItem = vscode.QuickPickItem & { job: Job };

/**
 * The pick opens at once, busy while the jobs are listed (a big accounting history can take a
 * while on a loaded cluster); typing to filter works meanwhile. Closing it stops the listing.
 */
function pickJobFromListing(client: FirecrestApi, system: string, opts: { activeOnly?: boolean; placeHolder?: string }): Promise<Job | undefined> {
  const qp = vscode.window.createQuickPick<JobItem>();
  qp.placeholder = vscode.l10n.t('Listing the jobs on {0}…', system);
  qp.busy = true;
  qp.matchOnDescription = true;
  const listing = new AbortController();
  return new Promise<Job | undefined>((resolve, reject) => {
    let settled = false;
    const finish = (job: Job | undefined, error?: Error) => {
      if (settled) return;
      settled = true;
      listing.abort();
      qp.dispose();
      if (error) reject(error);
      else resolve(job);
    };
    qp.onDidAccept(() => {
      const item = qp.selectedItems[0] ?? qp.activeItems[0];
      if (item) finish(item.job);
    });
    qp.onDidHide(() => finish(undefined));
    qp.show();
    client.jobs(system, { signal: listing.signal }).then(
      (jobs) => {
        if (settled) return;
        const candidates = opts.activeOnly ? jobs.filter((j) => !j.isFinal) : jobs;
        if (candidates.length === 0) {
          finish(undefined);
          void vscode.window.showInformationMessage(opts.activeOnly ? vscode.l10n.t('No active jobs on {0}.', system) : vscode.l10n.t('No jobs on {0}.', system));
          return;
        }
        const order = (j: Job) => (j.isFinal ? 2 : j.stateClass === 'running' ? 0 : 1);
        qp.items = [...candidates].sort((a, b) => order(a) - order(b) || Number(b.id) - Number(a.id)).map((j) => ({ label: `${j.id} ${j.name}`, description: j.state, job: j }));
        qp.placeholder = opts.placeHolder ?? vscode.l10n.t('Which job?');
        qp.busy = false;
      },
      (e: unknown) => finish(undefined, e instanceof Error ? e : new Error(vscode.l10n.t('Could not list the jobs: {0}', JSON.stringify(e)))),
    );
  });
}
