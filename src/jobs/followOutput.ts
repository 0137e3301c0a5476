/**
 * Follow Job Output: a terminal that prints the job's stdout (or stderr) as it grows and stops
 * when the job ends. One terminal per job and stream; asking again shows the existing one.
 */
import { fields, oneOf } from '../common/commandArgs';
import * as vscode from 'vscode';
import { jobKey } from '../common/jobRef';
import type { ExtensionServices } from '../common/services';
import { endingOf } from '../common/jobFormat';
import { JobOutputTerminal } from './jobOutputTerminal';
import { viewChunkBytes } from './openOutput';
import { jobOrTask } from './arrayTask';
import { outputPaths } from '../core/outputPaths';
import { resolveJob } from './pickers';

/** Live followers by job and stream (also read by the test hook). */
export class Followers implements vscode.Disposable {
  readonly all = new Map<string, { pty: JobOutputTerminal; terminal: vscode.Terminal }>();
  private readonly sub = vscode.window.onDidCloseTerminal((t) => {
    for (const [k, v] of this.all) if (v.terminal === t) this.all.delete(k);
  });

  dispose(): void {
    this.sub.dispose();
    for (const v of this.all.values()) v.terminal.dispose();
  }
}

export async function followJobOutput(services: ExtensionServices, followers: Followers, arg?: unknown): Promise<{ key: string; path: string } | undefined> {
  const picked = await resolveJob(services, arg, { placeHolder: vscode.l10n.t('Follow the output of which job?') });
  if (!picked) return undefined;
  const client = await services.connections.client(picked.profile);
  // An array's parent: which task.
  const ref = await jobOrTask(client, picked, vscode.l10n.t('Follow the output'));
  if (!ref) return undefined;
  const paths = await outputPaths(client, ref.system, ref.jobId, ref.job);
  let stream = fields(arg, { stream: oneOf('stdout', 'stderr') }).stream;
  if (!stream) {
    stream = 'stdout';
    if (paths.stderr && paths.stderr !== paths.stdout) {
      const pick = await vscode.window.showQuickPick(
        [
          { label: 'stdout', description: paths.stdout, stream: 'stdout' as const },
          { label: 'stderr', description: paths.stderr, stream: 'stderr' as const },
        ],
        { placeHolder: vscode.l10n.t('Follow which output of job {0}?', ref.jobId) },
      );
      if (!pick) return undefined;
      stream = pick.stream;
    }
  }
  const path = stream === 'stderr' ? paths.stderr : paths.stdout;
  if (!path) throw new Error(vscode.l10n.t('Job {0} has no known {1} file.', ref.jobId, String(stream)));

  const key = `${jobKey(ref)}\u0000${String(stream)}`;
  const existing = followers.all.get(key);
  if (existing && !existing.pty.result) {
    existing.terminal.show();
    return { key, path };
  }
  const chunk = await viewChunkBytes(services, ref.profile, ref.system);
  const pty = new JobOutputTerminal(client, { profile: ref.profile, system: ref.system, jobId: ref.jobId, path, stream }, chunk, endingOf);
  const terminal = vscode.window.createTerminal({ name: `Job ${ref.jobId} ${String(stream)}`, pty, iconPath: new vscode.ThemeIcon('output') });
  followers.all.set(key, { pty, terminal });
  terminal.show(true);
  services.walkthrough.reached('follow');
  return { key, path };
}
