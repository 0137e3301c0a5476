/** After a submission: tell the Jobs view to watch it, and offer the next steps. */
import * as vscode from 'vscode';
import type { JobRef } from '../common/jobRef';
import type { JobsViewControl } from '../common/viewControls';
import type { WalkthroughSteps } from '../common/services';

export function announceSubmitted(ref: JobRef, jobs: JobsViewControl, what: string, steps: WalkthroughSteps): void {
  jobs.track(ref);
  steps.reached('submit');
  const follow = vscode.l10n.t('Follow Output');
  const show = vscode.l10n.t('Show in Jobs');
  const cancel = vscode.l10n.t('Cancel');
  void vscode.window.showInformationMessage(vscode.l10n.t('{0} job {1} on {2}.', what, ref.jobId, ref.system), follow, show, cancel).then((pick) => {
    if (pick === follow) void vscode.commands.executeCommand('firecrest.followJobOutput', ref);
    else if (pick === show) void jobs.reveal(ref);
    else if (pick === cancel) void vscode.commands.executeCommand('firecrest.cancelJob', ref);
  });
}
