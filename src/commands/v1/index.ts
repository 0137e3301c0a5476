/**
 * The commands of what only API v1 offers: reservation management, internal transfer jobs and the
 * tasks list. Menus show them only on v1 connections (`firecrest.v1Connected`, `;manage;` nodes).
 */
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/services';
import type { JobsViewControl, SystemsViewControl } from '../../common/viewControls';
import { registerCommand } from '../register';
import { reservationCommands } from './reservations';
import { TASK_SCHEME, TaskDetailsProvider, showTasks } from './tasks';
import { transferOnCluster } from './transferOnCluster';

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
