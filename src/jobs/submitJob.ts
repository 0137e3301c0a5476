/**
 * FirecREST: Submit Job. Submits the open (or given) script: a local file as script text, a
 * `firecrest://` file by its remote path. One flow from the title button, the CodeLens, the
 * Explorer and the palette. The first Submit of a script asks only what has no sensible answer:
 * the working directory of a local script (a cluster script runs in its folder), an account when
 * the user has several and none is the default, a partition when the system has no default; a
 * reservation never. What the script's `#SBATCH` lines fix is never asked. The answers are
 * remembered per script (SubmitMemory); *Submit Job with Options…* asks everything again. An argument object (`{uri?, system?, workingDirectory?, account?, partition?,
 * reservation?, env?}`) takes the same path without prompts (tests, other extensions); `ask`
 * makes it ask (`missing`: what is neither given nor remembered; `all`: everything open again).
 */
import { fields, flag, oneOf, record, text, textRecord, uri as uriArg, type Read } from '../common/commandArgs';
import * as vscode from 'vscode';
import { activeDocumentUri } from '../common/activeDocument';
import type { JobRef } from '../common/jobRef';
import { parseSbatchScript } from '../core/sbatch/index';
import type { ExtensionServices } from '../common/services';
import type { JobsViewControl } from '../common/viewControls';
import type { JobSubmission } from '../core/model';
import { FIRECREST_SCHEME, FirecrestUri } from '../core/uri';
import { announceSubmitted } from './announceSubmitted';
import { pickProfile, pickSystem } from './pickers';
import { SubmitMemory, type SubmitAnswers } from './submitMemory';
import { homeDirectory } from '../common/homeDirectory';
import { askAccount, askDependency, askPartition, askReservation, askWorkingDirectory } from './submitPrompts';
import { explainSbatchRefusal } from '../common/sbatchRefusals';
import { estimateStarts } from './startEstimates';
import { gitFacts, type ProvenanceStore } from './provenance';
import { messageOf } from '../core/errors';

/**
 * The argument object. `dependency`: Slurm `--dependency`, e.g. `afterok:123` (asked for by Submit
 * Job with Options…, never remembered). `ask`: ask the user (default for a Uri or no argument:
 * `missing`; for an argument object: `none`). `remember`: remember these answers for the script
 * even without asking (as an asked submission does). `uri`: a Uri, a URI string or a local path.
 */
const SUBMIT_ARGS = {
  uri: (v: unknown) => uriArg(v) ?? (text(v) ? toUri(String(v)) : undefined),
  profile: text, system: text, workingDirectory: text, account: text, partition: text, reservation: text, dependency: text,
  env: textRecord, ask: oneOf('none', 'missing', 'all'), remember: flag,
};
export type SubmitArgs = Read<typeof SUBMIT_ARGS>;

function toUri(u: string): vscode.Uri {
  return /^[a-z][\w+.-]*:/i.test(u) ? vscode.Uri.parse(u) : vscode.Uri.file(u);
}

export async function submitJob(services: ExtensionServices, jobs: JobsViewControl, provenance: ProvenanceStore, arg?: unknown): Promise<JobRef | undefined> {
  // From the editor title / explorer the argument is the file's Uri; from tests an options object.
  const args = record(arg) ? fields(arg, SUBMIT_ARGS) : undefined;
  const ask = args ? (args.ask ?? 'none') : 'missing';
  const uri = uriArg(arg) ?? args?.uri ?? activeDocumentUri();
  if (!uri) throw new Error(vscode.l10n.t('Open a batch script (a shell script with #SBATCH lines) to submit it.'));

  const doc = await vscode.workspace.openTextDocument(uri);
  if (doc.isDirty && !(await doc.save())) throw new Error(vscode.l10n.t('Could not save {0} before submitting.', uri.fsPath || uri.path));
  const text = doc.getText();
  const script = parseSbatchScript(text);
  // A script sbatch would refuse is stopped here, before any question is asked.
  const refused = script.problems.filter((p) => p.severity === 'error');
  if (refused.length) {
    const first = refused[0];
    const more = refused.length > 1 ? vscode.l10n.t(' (and {0} more problem(s), see the Problems view)', refused.length - 1) : '';
    throw new Error(vscode.l10n.t('{0} line {1}: {2}{3}. sbatch would refuse it: fix it, then submit.', basename(uri.path), first.span.line + 1, first.message, more));
  }
  // What the script already fixes is not asked for (and not overridden).
  const fixed = (name: string) => script.last(name)?.value || undefined;
  const directives = { account: fixed('account'), partition: fixed('partition'), reservation: fixed('reservation'), chdir: fixed('chdir'), jobName: fixed('job-name') };

  const memory = new SubmitMemory(services.context.workspaceState);
  const remote = uri.scheme === FIRECREST_SCHEME ? FirecrestUri.parse(uri) : undefined;
  const last = ask === 'none' ? undefined : memory.get(uri, { profile: args?.profile ?? remote?.profile, system: args?.system ?? remote?.system });
  const profile = await pickProfile(services, args?.profile ?? remote?.profile ?? (remote ? services.connections.defaultProfileName() : undefined) ?? last?.profile);
  if (!profile) return undefined;
  const system = await pickSystem(services, profile, args?.system ?? remote?.system ?? (last?.profile === profile ? last.system : undefined));
  if (!system) return undefined;
  const client = await services.connections.client(profile);
  const profileInfo = services.connections.connections().find((c) => c.profile.name === profile)?.profile;
  // The answers given last time for this script on this system stand, unless asked again.
  const reuse = ask === 'missing' && last?.profile === profile && last.system === system ? last : undefined;
  const asking = ask !== 'none';

  // `missing`: only what has no sensible default; `all` (with options): everything open.
  const everything = ask === 'all';
  let workingDirectory = args?.workingDirectory ?? directives.chdir ?? reuse?.workingDirectory;
  if (!workingDirectory) {
    const fallback = (everything ? last?.workingDirectory : undefined) ?? (remote ? remote.dirname.path : await homeDirectory(services, client, profile, system));
    workingDirectory = asking && (everything || !remote) ? await askWorkingDirectory(fallback) : fallback;
    if (!workingDirectory) return undefined;
  }

  // Overrides only for what the script leaves open; what it fixes, it keeps.
  const submission: JobSubmission = { workingDirectory, name: directives.jobName ? undefined : basename(uri.path) };
  if (remote) submission.scriptPath = remote.path;
  else submission.script = text;

  // null: the user dismissed a pick (stop); undefined: leave it to the scheduler.
  const account = args?.account !== undefined ? args.account || undefined : directives.account ? undefined : reuse ? reuse.account
    : everything ? await askAccount(client, system, last?.account ?? profileInfo?.defaultAccount) : profileInfo?.defaultAccount;
  if (account === null) return undefined;
  const partition = args?.partition !== undefined ? args.partition || undefined : directives.partition ? undefined : reuse ? reuse.partition : asking ? await askPartition(client, system, everything, async (names) => (await estimateStarts(services, client, profile, system, text, names)).estimates) : undefined;
  if (partition === null) return undefined;
  const reservation = args?.reservation !== undefined ? args.reservation || undefined : directives.reservation ? undefined : reuse ? reuse.reservation : everything ? await askReservation(client, system) : undefined;
  if (reservation === null) return undefined;
  // Run after… is a choice for this run only: asked with the options, never remembered.
  const dependency = args?.dependency !== undefined ? args.dependency || undefined : ask === 'all' && !fixed('dependency') ? await askDependency(client, system) : undefined;
  if (dependency === null) return undefined;
  Object.assign(submission, { account, partition, reservation, dependency });
  const answers: SubmitAnswers = { profile, system, workingDirectory: directives.chdir ? undefined : workingDirectory, account, partition, reservation };

  const env = args?.env ?? vscode.workspace.getConfiguration('firecrest').get<Record<string, string>>('submit.environment');
  if (env && Object.keys(env).length) submission.env = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));

  // Read before the job is submitted: the commit and the diff that this run is made of.
  const git = gitFacts(uri);
  const jobId = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Submitting {0} to {1}…', basename(uri.path), system) }, () =>
    client.submitJob(system, submission).catch((e: unknown) => {
      // sbatch's refusals, in a sentence that says what to change (its own text kept after it).
      if (e instanceof Error) e.message = explainSbatchRefusal(e.message);
      throw e;
    }),
  );
  services.log.withTag('jobs').info(`submitted ${basename(uri.path)} to ${system} as job ${jobId}${reuse ? ' (with the answers given last time)' : ''}`);
  if (asking || args?.remember) await memory.set(uri, answers);
  const ref: JobRef = { profile, system, jobId };
  if (dependency) services.dependencies.set(ref, dependency);
  // The record of what ran; a failure to keep it never fails the submission.
  await provenance.record({
    profile, system, jobId, submittedAt: new Date().toISOString(), script: text, source: uri.toString(),
    ...(remote ? { scriptPath: remote.path } : {}),
    git: await git,
    env: submission.env,
    options: { workingDirectory, name: submission.name, account, partition, reservation, ...(dependency ? { dependency } : {}) },
  }).catch((e: unknown) => services.log.withTag('jobs').warn(`could not keep the record of job ${jobId}: ${messageOf(e)}`));
  announceSubmitted(ref, jobs, 'Submitted', services.walkthrough);
  return ref;
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}
