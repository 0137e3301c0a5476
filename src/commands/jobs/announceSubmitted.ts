/** After a submission: tell the Jobs view to watch it, and offer the next steps. */
import * as vscode from 'vscode';
import type { JobRef } from '../../common/jobRef';
import type { JobsViewControl } from '../../common/viewControls';
import type { WalkthroughSteps } from '../../common/services';

export function announceSubmitted(ref: JobRef, jobs: JobsViewControl, what: string, steps: WalkthroughSteps): void {
  jobs.track(ref);
  steps.reached('submit');
  const follow = 'Follow Output';
  const show = 'Show in Jobs';
  const cancel = 'Cancel';
  void vscode.window.showInformationMessage(`${what} job ${ref.jobId} on ${ref.system}.`, follow, show, cancel).then((pick) => {
    if (pick === follow) void vscode.commands.executeCommand('firecrest.followJobOutput', ref);
    else if (pick === show) void jobs.reveal(ref);
    else if (pick === cancel) void vscode.commands.executeCommand('firecrest.cancelJob', ref);
  });
}
