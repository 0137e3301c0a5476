/**
 * Registers the job commands. The Jobs view is handed in by the composition root (commands never
 * import the tree); in development and test mode a few `firecrest.test.*` commands expose what the
 * host tests inspect (tree contents, what a Follow Output terminal printed).
 */
import * as vscode from 'vscode';
import { asJobRef, jobKey, type JobRef } from '../common/jobRef';
import type { ExtensionServices } from '../common/services';
import type { JobsViewControl } from '../common/viewControls';
import { registerCommand } from '../common/commandWrapper';
import { attachTerminals, attachToJob } from './attachToJob';
import { trackBatchScriptContext } from './batchScriptContext';
import { cancelJob } from './cancelJob';
import { Followers, followJobOutput } from './followOutput';
import { JOB_DETAILS_SCHEME, JobDetailsProvider, showJobDetails } from './jobDetails';
import { JobDetailsPanels } from './jobDetailsPanel';
import { OUTPUT_SCHEME, OutputDocuments } from './outputDocuments';
import { openJobOutput, openJobOutputFile } from './openOutput';
import { openExampleScript } from './exampleScript';
import { ProvenanceStore } from './provenance';
import { compareScriptWithCurrent, JobScriptProvider, openWorkingDirectory, SCRIPT_SCHEME } from './provenanceCommands';
import { resubmitJob } from './resubmitJob';
import { JobEfficiencies } from './jobEfficiency';
import { RightSizeActions } from './rightSizeActions';
import { submitJob } from './submitJob';
import { whereWouldItStart } from './startEstimates';
import { registerJobsViewCommands } from './viewCommands';

export function registerJobCommands(services: ExtensionServices, jobs: JobsViewControl): vscode.Disposable {
  const log = services.log.withTag('jobs');
  const followers = new Followers();
  const outputs = new OutputDocuments(log);
  const provenance = new ProvenanceStore(services.context.globalStorageUri);
  const efficiencies = new JobEfficiencies(services, provenance);
  const details = new JobDetailsProvider(services, provenance, (ref) => efficiencies.of(ref));
  const detailsOf = (ref: { profile: string; system: string; jobId: string }) => JobDetailsProvider.uriFor(ref.profile, ref.system, ref.jobId);
  const panels = new JobDetailsPanels(services, (ref) => details.read(detailsOf(ref)), (ref) => details.reload(detailsOf(ref)));
  const disposables = [
    efficiencies,
    // What was read of a job's use shows in its details and its script's quick fixes.
    efficiencies.onDidLearn((ref) => {
      details.reload(detailsOf(ref));
      panels.refill(ref);
    }),
    followers,
    outputs,
    vscode.workspace.registerTextDocumentContentProvider(OUTPUT_SCHEME, outputs),
    vscode.workspace.registerTextDocumentContentProvider(SCRIPT_SCHEME, new JobScriptProvider(services, provenance)),
    trackBatchScriptContext(),
    vscode.languages.registerCodeActionsProvider([{ language: 'shellscript' }, { pattern: '**/*.sbatch' }], new RightSizeActions(provenance, efficiencies), { providedCodeActionKinds: RightSizeActions.kinds }),
    vscode.workspace.registerTextDocumentContentProvider(JOB_DETAILS_SCHEME, details),
    panels,
    registerCommand('firecrest.submitJob', log, (arg?: unknown) => submitJob(services, jobs, provenance, arg)),
    services.submitter.provide((request) => submitJob(services, jobs, provenance, request)),
    registerCommand('firecrest.openExampleScript', log, (arg?: unknown) => openExampleScript(services, arg)),
    // Asks again for everything the script leaves open (pre-filled with the last answers).
    registerCommand('firecrest.whereWouldItStart', log, (arg?: unknown) => whereWouldItStart(services, arg, (uri, profile, system, partition) => submitJob(services, jobs, provenance, { uri, profile, system, partition, remember: true }))),
    registerCommand('firecrest.submitJobWithOptions', log, (arg?: unknown) => submitJob(services, jobs, provenance, { uri: arg instanceof vscode.Uri ? arg : undefined, ask: 'all' })),
    registerCommand('firecrest.followJobOutput', log, (arg?: unknown) => followJobOutput(services, followers, arg)),
    registerCommand('firecrest.openJobOutput', log, (arg?: unknown) => openJobOutput(services, outputs, 'stdout', arg)),
    registerCommand('firecrest.openJobError', log, (arg?: unknown) => openJobOutput(services, outputs, 'stderr', arg)),
    registerCommand('firecrest.openJobOutputFile', log, (arg?: unknown) => openJobOutputFile(services, 'stdout', arg)),
    registerCommand('firecrest.output.goToFirstAlert', log, () => outputs.goToFirstAlert()),
    registerCommand('firecrest.cancelJob', log, (arg?: unknown, selected?: unknown) => cancelJob(services, jobs, arg, selected ?? jobs.selection())),
    registerCommand('firecrest.showJobEfficiency', log, (arg?: unknown) => efficiencies.show(arg)),
    registerCommand('firecrest.showJobDetails', log, (arg?: unknown) => showJobDetails(services, panels, arg)),
    registerCommand('firecrest.attachToJob', log, (arg?: unknown) => attachToJob(services, arg)),
    registerCommand('firecrest.resubmitJob', log, (arg?: unknown) => resubmitJob(services, jobs, provenance, arg)),
    registerCommand('firecrest.compareJobScript', log, (arg?: unknown) => compareScriptWithCurrent(services, provenance, arg)),
    registerCommand('firecrest.openJobWorkingDirectory', log, (arg?: unknown) => openWorkingDirectory(services, provenance, arg)),
    registerJobsViewCommands(jobs, log),
  ];
  const seam = services.testSeam;
  seam.expose('jobsTree', () => jobs.snapshot());
  seam.expose('attachTerminal', (key: string) => {
    const pty = attachTerminals.get(key);
    return pty && { emitted: pty.emitted, ran: pty.ran };
  });
  seam.expose('provenance', (ref: { profile: string; system: string; jobId: string }) => provenance.get(ref.profile, ref.system, ref.jobId));
  seam.expose('outputDocument', (uri: string) => outputs.snapshot(uri));
  seam.expose('jobsListed', (timeoutMs = 30_000) => jobs.listed(Number(timeoutMs)));
  // Reveal in Jobs view (a submission's notification): whether a listing had the job.
  seam.expose('revealJob', (ref: JobRef) => jobs.reveal(ref));
  // The ids of the jobs selected in the tree (VS Code tells the extension a little after a reveal).
  seam.expose('jobsSelected', () => jobs.selection().flatMap((n) => asJobRef(n)?.jobId ?? []));
  seam.expose('followerOutput', async (arg: { profile?: string; system: string; jobId: string; stream?: string; wait?: boolean }) => {
    const key = `${jobKey({ profile: arg.profile ?? services.connections.defaultProfileName() ?? '', system: arg.system, jobId: arg.jobId })}\u0000${arg.stream ?? 'stdout'}`;
    const f = followers.all.get(key);
    if (!f) return undefined;
    if (arg.wait) await f.pty.done;
    return { emitted: f.pty.emitted, result: f.pty.result && { reason: f.pty.result.reason, state: f.pty.result.job?.state }, stats: f.pty.stats };
  });
  return vscode.Disposable.from(...disposables);
}
