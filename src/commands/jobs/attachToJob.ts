/**
 * Attach to Job (v2): runs a command inside a running job's allocation. The API answers 204 with
 * no output, so the command runs with its output redirected to a file in the job's working
 * directory, ending with an `[exit N]` line; the call returns when the command has finished and
 * that file is then opened through the firecrest:// file system. The user sees the real output.
 */
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/services';
import { NotSupportedError } from '../../core/errors';
import { bashCommand, shellQuote } from '../../core/shellQuote';
import { FirecrestUri } from '../../core/uri';
import { resolveJob } from './pickers';

export async function attachToJob(services: ExtensionServices, arg?: unknown): Promise<string | undefined> {
  const ref = await resolveJob(services, arg, { activeOnly: true, placeHolder: 'Run a command in which job?' });
  if (!ref) return undefined;
  const client = await services.connections.client(ref.profile);
  if (!client.capabilities.attach) throw new NotSupportedError('This FirecREST API cannot run commands inside jobs (needs API v2).');
  const given = (arg as { command?: unknown } | undefined)?.command;
  const command =
    typeof given === 'string'
      ? given
      : await vscode.window.showInputBox({ title: `Attach to job ${ref.jobId}`, prompt: 'Command to run inside the job (srun --overlap)', placeHolder: 'nvidia-smi; free -g', ignoreFocusOut: true });
  if (!command) return undefined;
  const job = ref.job ?? (await client.job(ref.system, ref.jobId));
  if (job.stateClass !== 'running') throw new Error(`Job ${ref.jobId} is ${job.state.toLowerCase()}: only a running job can run commands.`);
  const dir = job.workingDirectory ?? '/tmp';
  const file = `${dir.replace(/\/+$/, '')}/.firecrest-attach-${ref.jobId}-${Date.now()}.out`;
  // Upstream runs `srun --jobid=N --overlap <command>` with no shell of its own: the grouping and the
  // redirections need one, so the whole script is handed to bash as one word.
  const wrapped = bashCommand(`{ ${command}\n} > ${shellQuote(file)} 2>&1; echo "[exit $?]" >> ${shellQuote(file)}`);
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Running in job ${ref.jobId}: ${command}` }, () =>
    client.attachToJob(ref.system, ref.jobId, wrapped),
  );
  const uri = FirecrestUri.from({ system: ref.system, path: file, profile: services.connections.multiProfile ? ref.profile : undefined });
  const target = vscode.Uri.parse(uri.toString());
  await vscode.window.showTextDocument(target, { preview: true });
  return target.toString();
}
