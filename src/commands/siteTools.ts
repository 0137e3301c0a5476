/**
 * The commands of what a site offers beyond jobs and files (API v1 today): reservation management
 * (reservations/), transfer jobs on the cluster (files/transferOnCluster) and the tasks list
 * (tasks/). Menus show them only where a connection offers them (`firecrest.v1Connected`, `;manage;` nodes).
 */
import * as vscode from 'vscode';
import type { ExtensionServices } from '../common/services';
import type { JobsViewControl, SystemsViewControl } from '../common/viewControls';
import { registerCommand } from './register';
import { reservationCommands } from './reservations/reservations';
import { TASK_SCHEME, TaskDetailsProvider, showTasks } from './tasks/tasks';
import { transferOnCluster } from './files/transferOnCluster';

export function registerV1Commands(services: ExtensionServices, systems: SystemsViewControl, jobs: JobsViewControl): vscode.Disposable {
  const log = services.log.withTag('v1');
  const rsv = reservationCommands(services, systems);
  return vscode.Disposable.from(
    registerCommand('firecrest.v1.createReservation', log, (arg?: unknown) => rsv.create(arg)),
    registerCommand('firecrest.v1.updateReservation', log, (arg?: unknown) => rsv.update(arg)),
    registerCommand('firecrest.v1.deleteReservation', log, (arg?: unknown) => rsv.delete(arg)),
    registerCommand('firecrest.v1.transferOnCluster', log, (arg?: unknown) => transferOnCluster(services, jobs, arg)),
    registerCommand('firecrest.v1.showTasks', log, (arg?: unknown) => showTasks(services, arg)),
    vscode.workspace.registerTextDocumentContentProvider(TASK_SCHEME, new TaskDetailsProvider(services)),
  );
}
