/**
 * Attach to Job (v2): runs commands inside a running job's allocation. From the palette or the
 * Jobs view it opens a terminal (AttachTerminal) where each line typed runs in the job; with a
 * `command` argument (tests, other extensions) it runs that one command and returns its output
 * and exit status. Either way the output file it needs is removed afterwards (runInJob).
 */
import { fields, text } from '../common/commandArgs';
import * as vscode from 'vscode';
import type { ExtensionServices } from '../common/services';
import { NotSupportedError } from '../core/errors';
import { AttachTerminal } from './attachTerminal';
import { resolveJob } from './pickers';
import { runInJob, type InJobResult } from './runInJob';

/** Open attach terminals (test hook: `firecrest.test.attachTerminal`). */
export const attachTerminals = new Map<string, AttachTerminal>();

export async function attachToJob(services: ExtensionServices, arg?: unknown): Promise<InJobResult | string | undefined> {
  const ref = await resolveJob(services, arg, { activeOnly: true, placeHolder: vscode.l10n.t('Run commands in which job?') });
  if (!ref) return undefined;
  const client = await services.connections.client(ref.profile);
  if (!client.capabilities.attach) throw new NotSupportedError(vscode.l10n.t('This FirecREST API cannot run commands inside jobs (needs API v2).'));
  const job = ref.job ?? (await client.job(ref.system, ref.jobId));
  if (job.stateClass !== 'running') throw new Error(vscode.l10n.t('Job {0} is {1}: only a running job can run commands.', ref.jobId, job.state.toLowerCase()));
  const dir = job.workingDirectory ?? '/tmp';
  const given = fields(arg, { command: text }).command;
  if (given !== undefined) {
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Running in job {0}: {1}', ref.jobId, given) }, () =>
      runInJob(client, ref.system, ref.jobId, dir, given),
    );
  }
  const pty = new AttachTerminal(client, { system: ref.system, jobId: ref.jobId, workingDirectory: dir });
  const key = `${ref.profile}/${ref.system}/${ref.jobId}`;
  attachTerminals.set(key, pty);
  const terminal = vscode.window.createTerminal({ name: `Attach: job ${ref.jobId}`, pty, iconPath: new vscode.ThemeIcon('terminal') });
  const closed = vscode.window.onDidCloseTerminal((t) => {
    if (t !== terminal) return;
    closed.dispose();
    if (attachTerminals.get(key) === pty) attachTerminals.delete(key);
  });
  terminal.show();
  return key;
}
