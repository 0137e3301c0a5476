/**
 * FirecREST: Submit Job. Submits the open (or given) script: a local file as script text, a
 * `firecrest://` file by its remote path. Asks only for what the script's `#SBATCH` lines do not
 * fix. An argument object (`{uri?, system?, workingDirectory?, account?, partition?,
 * reservation?, env?}`) takes the same path without prompts (tests, other extensions).
 */
import * as vscode from 'vscode';
import type { JobRef } from '../../common/jobRef';
import { parseSbatchScript } from '../../common/sbatch/index';
import type { ExtensionServices } from '../../common/services';
import type { JobsViewControl } from '../../common/viewControls';
import type { JobSubmission } from '../../core/model';
import { FIRECREST_SCHEME, FirecrestUri } from '../../core/uri';
import { announceSubmitted } from './announceSubmitted';
import { pickProfile, pickSystem } from './pickers';
import { askAccount, askPartition, askReservation, askWorkingDirectory, homeDirectory } from './submitPrompts';
import { explainSbatchRefusal } from '../../common/sbatchRefusals';

export interface SubmitArgs {
  uri?: vscode.Uri | string;
  profile?: string;
  system?: string;
  workingDirectory?: string;
  account?: string;
  partition?: string;
  reservation?: string;
  env?: Record<string, string>;
}

function toUri(u: vscode.Uri | string): vscode.Uri {
  return typeof u === 'string' ? (/^[a-z][\w+.-]*:/i.test(u) ? vscode.Uri.parse(u) : vscode.Uri.file(u)) : u;
}

export async function submitJob(services: ExtensionServices, jobs: JobsViewControl, arg?: unknown): Promise<JobRef | undefined> {
  // From the editor title / explorer the argument is the file's Uri; from tests an options object.
  const isUri = arg instanceof vscode.Uri;
  const args: SubmitArgs | undefined = !isUri && arg && typeof arg === 'object' ? arg : undefined;
  const interactive = args === undefined;
  const uri = isUri ? arg : args?.uri ? toUri(args.uri) : vscode.window.activeTextEditor?.document.uri;
  if (!uri) throw new Error('Open a batch script (a shell script with #SBATCH lines) to submit it.');

  const doc = await vscode.workspace.openTextDocument(uri);
  if (doc.isDirty && !(await doc.save())) throw new Error(`Could not save ${uri.fsPath || uri.path} before submitting.`);
  const text = doc.getText();
  const script = parseSbatchScript(text);
  // What the script already fixes is not asked for (and not overridden).
  const fixed = (name: string) => script.last(name)?.value || undefined;
  const directives = { account: fixed('account'), partition: fixed('partition'), reservation: fixed('reservation'), chdir: fixed('chdir'), jobName: fixed('job-name') };

  const remote = uri.scheme === FIRECREST_SCHEME ? FirecrestUri.parse(uri) : undefined;
  const profile = await pickProfile(services, args?.profile ?? remote?.profile ?? (remote ? services.connections.defaultProfileName() : undefined));
  if (!profile) return undefined;
  const system = await pickSystem(services, profile, args?.system ?? remote?.system);
  if (!system) return undefined;
  const client = await services.connections.client(profile);
  const profileInfo = services.connections.connections().find((c) => c.profile.name === profile)?.profile;

  let workingDirectory = args?.workingDirectory ?? directives.chdir;
  if (!workingDirectory) {
    const fallback = remote ? remote.dirname.path : await homeDirectory(services, client, profile, system);
    workingDirectory = interactive ? await askWorkingDirectory(fallback) : fallback;
    if (!workingDirectory) return undefined;
  }

  // Overrides only for what the script leaves open; what it fixes, it keeps.
  const submission: JobSubmission = { workingDirectory, name: directives.jobName ? undefined : basename(uri.path) };
  if (remote) submission.scriptPath = remote.path;
  else submission.script = text;

  // null: the user dismissed a pick (stop); undefined: leave it to the scheduler.
  const account = args?.account !== undefined ? args.account || undefined : directives.account ? undefined : interactive ? await askAccount(client, system, profileInfo?.defaultAccount) : profileInfo?.defaultAccount;
  if (account === null) return undefined;
  const partition = args?.partition !== undefined ? args.partition || undefined : directives.partition || !interactive ? undefined : await askPartition(client, system);
  if (partition === null) return undefined;
  const reservation = args?.reservation !== undefined ? args.reservation || undefined : directives.reservation || !interactive ? undefined : await askReservation(client, system);
  if (reservation === null) return undefined;
  Object.assign(submission, { account, partition, reservation });

  const env = args?.env ?? vscode.workspace.getConfiguration('firecrest').get<Record<string, string>>('submit.environment');
  if (env && Object.keys(env).length) submission.env = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));

  const jobId = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Submitting ${basename(uri.path)} to ${system}…` }, () =>
    client.submitJob(system, submission).catch((e: unknown) => {
      // sbatch's refusals, in a sentence that says what to change (its own text kept after it).
      if (e instanceof Error) e.message = explainSbatchRefusal(e.message);
      throw e;
    }),
  );
  services.log.withTag('jobs').info(`submitted ${basename(uri.path)} to ${system} as job ${jobId}`);
  const ref: JobRef = { profile, system, jobId };
  announceSubmitted(ref, jobs, 'Submitted');
  return ref;
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}
