/**
 * The actions on a job's record: Compare Script with Current File (a diff editor: the script the
 * job ran on the left, the file as it is now on the right) and Open Working Directory (as a remote
 * folder). A job submitted elsewhere uses the scheduler's copy of its script (metadata, v2).
 */
import { fields, oneOf } from '../common/commandArgs';
import * as vscode from 'vscode';
import { activeDocumentUri } from '../common/activeDocument';
import type { ExtensionServices } from '../common/services';
import { FirecrestUri } from '../core/uri';
import { resolveJob } from './pickers';
import type { ProvenanceStore } from './provenance';

export const SCRIPT_SCHEME = 'firecrest-script';

/** `firecrest-script://<system>/<jobId>/<script name>?profile=…`: the script a job ran, read-only. */
function scriptUri(profile: string, system: string, jobId: string, name: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SCRIPT_SCHEME, authority: system, path: `/${jobId}/${name}`, query: new URLSearchParams({ profile }).toString() });
}

export class JobScriptProvider implements vscode.TextDocumentContentProvider {
  constructor(
    private readonly services: ExtensionServices,
    private readonly provenance: ProvenanceStore,
  ) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const profile = new URLSearchParams(uri.query).get('profile') ?? '';
    const jobId = uri.path.split('/')[1];
    return (await jobScript(this.services, this.provenance, profile, uri.authority, jobId)).script;
  }
}

/** The script a job ran: the record kept at submit, else the scheduler's copy. */
async function jobScript(services: ExtensionServices, provenance: ProvenanceStore, profile: string, system: string, jobId: string): Promise<{ script: string; source?: vscode.Uri; name: string }> {
  const record = await provenance.get(profile, system, jobId);
  if (record) {
    const source = vscode.Uri.parse(record.source);
    return { script: record.script, source, name: source.path.slice(source.path.lastIndexOf('/') + 1) || 'script.sh' };
  }
  const client = await services.connections.client(profile);
  const meta = await client.jobMetadata(system, jobId);
  if (!meta.script) throw new Error(vscode.l10n.t('The scheduler did not keep the script of job {0}, and it was not submitted from this editor.', jobId));
  return { script: meta.script, name: `job-${jobId}.sh` };
}

export async function compareScriptWithCurrent(services: ExtensionServices, provenance: ProvenanceStore, arg?: unknown): Promise<{ left: string; right: string } | undefined> {
  const ref = await resolveJob(services, arg, { placeHolder: vscode.l10n.t('Compare the script of which job?') });
  if (!ref) return undefined;
  const { source, name } = await jobScript(services, provenance, ref.profile, ref.system, ref.jobId);
  let current = source && (await exists(source)) ? source : undefined;
  // Submitted elsewhere, or the file is gone: the file in the active editor, if any.
  const active = activeDocumentUri();
  if (!current && active && active.scheme !== SCRIPT_SCHEME) current = active;
  if (!current) throw new Error(vscode.l10n.t('There is no current file to compare the script of job {0} with: open the script in an editor.', ref.jobId));
  const left = scriptUri(ref.profile, ref.system, ref.jobId, name);
  const currentName = current.path.slice(current.path.lastIndexOf('/') + 1);
  await vscode.commands.executeCommand('vscode.diff', left, current, `Job ${ref.jobId} ran ↔ ${currentName} now`, { preview: true });
  return { left: left.toString(), right: current.toString() };
}

export async function openWorkingDirectory(services: ExtensionServices, provenance: ProvenanceStore, arg?: unknown): Promise<string | undefined> {
  const ref = await resolveJob(services, arg, { placeHolder: vscode.l10n.t('Open the working directory of which job?') });
  if (!ref) return undefined;
  const record = await provenance.get(ref.profile, ref.system, ref.jobId);
  const dir = record?.options.workingDirectory ?? (await (await services.connections.client(ref.profile)).job(ref.system, ref.jobId)).workingDirectory;
  if (!dir) throw new Error(vscode.l10n.t('Job {0} has no working directory on record.', ref.jobId));
  const uri = vscode.Uri.parse(FirecrestUri.from({ system: ref.system, path: dir, profile: services.connections.multiProfile ? ref.profile : undefined }).toString());
  const mode = fields(arg, { mode: oneOf('add', 'window') }).mode;
  const add = vscode.l10n.t('Add to Workspace');
  const window = vscode.l10n.t('Open in New Window');
  const pick = mode === 'add' ? add : mode === 'window' ? window : (await vscode.window.showQuickPick([add, window], { placeHolder: vscode.l10n.t('Open {0} (job {1}) on {2}', dir, ref.jobId, ref.system) }));
  if (!pick) return undefined;
  if (pick === add) {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (!folders.some((f) => f.uri.toString() === uri.toString())) vscode.workspace.updateWorkspaceFolders(folders.length, 0, { uri, name: `${dir.slice(dir.lastIndexOf('/') + 1) || dir} (job ${ref.jobId})` });
    await vscode.commands.executeCommand('workbench.view.explorer');
  } else {
    await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
  }
  return uri.toString();
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
