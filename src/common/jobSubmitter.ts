/**
 * Submitting a job belongs to the jobs feature. Another feature that submits (Sync and Submit)
 * asks it through this port, handed in by the composition root, not by a command id: the
 * request is typed, and a missing provider is an error in words rather than a silent no-op.
 */
import * as vscode from 'vscode';
import type { JobRef } from './jobRef';

export interface SubmitRequest {
  /** The batch script (a local file or a `firecrest://` one). */
  uri: vscode.Uri;
  profile?: string;
  system: string;
  workingDirectory: string;
  /** What to ask the user: `missing` asks what is neither given nor remembered. */
  ask: 'none' | 'missing' | 'all';
}

export type SubmitFunction = (request: SubmitRequest) => Promise<JobRef | undefined>;

export class JobSubmitter {
  private provider: SubmitFunction | undefined;

  /** The jobs feature hands in its Submit; disposing takes it back. */
  provide(submit: SubmitFunction): vscode.Disposable {
    this.provider = submit;
    return new vscode.Disposable(() => {
      if (this.provider === submit) this.provider = undefined;
    });
  }

  submit(request: SubmitRequest): Promise<JobRef | undefined> {
    if (!this.provider) return Promise.reject(new Error(vscode.l10n.t('Jobs cannot be submitted in this window yet: the jobs feature is not loaded.')));
    return this.provider(request);
  }
}
