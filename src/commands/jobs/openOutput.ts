/** Open Job Output / Open Job Error: the files in an editor, through the firecrest:// file system. */
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/services';
import { NotFoundError } from '../../core/errors';
import { FirecrestUri } from '../../core/uri';
import { outputPaths } from './outputPaths';
import { resolveJob } from './pickers';

export async function openJobOutput(services: ExtensionServices, stream: 'stdout' | 'stderr', arg?: unknown): Promise<string | undefined> {
  const ref = await resolveJob(services, arg, { placeHolder: `Open the ${stream === 'stdout' ? 'output' : 'error output'} of which job?` });
  if (!ref) return undefined;
  const client = await services.connections.client(ref.profile);
  const paths = await outputPaths(client, ref.system, ref.jobId);
  const path = stream === 'stdout' ? paths.stdout : paths.stderr;
  if (!path) throw new Error(`Job ${ref.jobId} has no known ${stream} file.`);
  try {
    await client.stat(ref.system, path);
  } catch (e) {
    if (e instanceof NotFoundError) {
      void vscode.window.showInformationMessage(`${path} does not exist yet (job ${ref.jobId} is ${paths.job.state.toLowerCase()}).`);
      return undefined;
    }
    throw e;
  }
  const uri = FirecrestUri.from({ system: ref.system, path, profile: services.connections.multiProfile ? ref.profile : undefined });
  const target = vscode.Uri.parse(uri.toString());
  await vscode.window.showTextDocument(target, { preview: true });
  return target.toString();
}
