/**
 * Open Job Output / Open Job Error: the job's stdout or stderr as a read-only document that grows
 * while the job runs (outputDocuments.ts). Open Output File opens the file itself, editable,
 * through the firecrest:// file system.
 */
import * as vscode from 'vscode';
import type { ExtensionServices } from '../common/services';
import { NotFoundError } from '../core/errors';
import { FirecrestUri } from '../core/uri';
import type { OutputDocuments } from './outputDocuments';
import { jobOrTask } from './arrayTask';
import { outputPaths } from '../core/outputPaths';
import { resolveJob } from './pickers';

/** The `view` block size for a system: the server refuses a view above its ops limit (and reads two blocks), so half of it, at most 1 MiB. */
export async function viewChunkBytes(services: ExtensionServices, profile: string, system: string): Promise<number> {
  const info = (await services.connections.systems(profile)).find((s) => s.name === system);
  return Math.max(64 * 1024, Math.min(1 << 20, Math.floor((info?.maxDirectTransferSize ?? 5242880) / 2)));
}

/** The job (asked for when not given), its client and the path of its `stream` file. */
async function outputOf(services: ExtensionServices, stream: 'stdout' | 'stderr', arg: unknown, what: string) {
  const picked = await resolveJob(services, arg, { placeHolder: vscode.l10n.t('Open the {0}{1} of which job?', stream === 'stdout' ? 'output' : 'error output', what) });
  if (!picked) return undefined;
  const client = await services.connections.client(picked.profile);
  // An array's parent: which task.
  const ref = await jobOrTask(client, picked, vscode.l10n.t('Open the {0}', stream === 'stdout' ? 'output' : 'error output'));
  if (!ref) return undefined;
  const paths = await outputPaths(client, ref.system, ref.jobId, ref.job);
  const path = stream === 'stdout' ? paths.stdout : paths.stderr;
  if (!path) {
    // v1's accounting says nothing of where a job ran: only its submission and the queue do.
    if (client.apiVersion === 'v1') throw new Error(vscode.l10n.t('Job {0} has left the queue and API v1 does not say where it wrote its {1}: this window did not submit it or see it queued. Open the file from its folder in the Explorer.', ref.jobId, stream));
    throw new Error(vscode.l10n.t('Job {0} has no known {1} file.', ref.jobId, stream));
  }
  return { ref, client, job: paths.job, path };
}

export async function openJobOutput(services: ExtensionServices, documents: OutputDocuments, stream: 'stdout' | 'stderr', arg?: unknown): Promise<string | undefined> {
  const found = await outputOf(services, stream, arg, '');
  if (!found) return undefined;
  const { ref, client, job, path } = found;
  const chunk = await viewChunkBytes(services, ref.profile, ref.system);
  const uri = await documents.open({ profile: ref.profile, system: ref.system, jobId: ref.jobId, stream, path }, client, chunk, !job.isFinal);
  return uri.toString();
}

/** Open Output File: the output file itself in an editor, through the firecrest:// file system. */
export async function openJobOutputFile(services: ExtensionServices, stream: 'stdout' | 'stderr', arg?: unknown): Promise<string | undefined> {
  const found = await outputOf(services, stream, arg, ' file');
  if (!found) return undefined;
  const { ref, client, job, path } = found;
  try {
    await client.stat(ref.system, path);
  } catch (e) {
    if (e instanceof NotFoundError) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} does not exist yet (job {1} is {2}).', path, ref.jobId, job.state.toLowerCase()));
      return undefined;
    }
    throw e;
  }
  const uri = FirecrestUri.from({ system: ref.system, path, profile: services.connections.multiProfile ? ref.profile : undefined });
  const target = vscode.Uri.parse(uri.toString());
  await vscode.window.showTextDocument(target, { preview: true });
  return target.toString();
}
