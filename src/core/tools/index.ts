/** Every tool agents get, in the order they are listed. */
import { accountingTool, jobTool, jobsTool, waitJobTool } from './jobTools';
import { connectionsTool, partitionsTool, reservationsTool } from './clusterTools';
import { jobOutputTool, listFolderTool, readFileTool, searchTool } from './fileTools';
import { efficiencyTool, startEstimateTool, storageTool } from './factTools';
import { cancelJobTool, submitJobTool, uploadFileTool, writeFileTool } from './writeTools';
import type { ToolDefinition } from './types';

export const TOOLS: readonly ToolDefinition[] = [
  connectionsTool, partitionsTool, reservationsTool,
  jobsTool, jobTool, jobOutputTool, waitJobTool, accountingTool, efficiencyTool, startEstimateTool, storageTool,
  listFolderTool, readFileTool, searchTool,
  submitJobTool, cancelJobTool, uploadFileTool, writeFileTool,
];

export function toolNamed(name: string): ToolDefinition | undefined {
  return TOOLS.find((t) => t.name === name);
}

export { confirmationOf, runTool } from './run';
export type { ToolConfirmation, ToolConnection, ToolContext, ToolDefinition, ToolResult } from './types';
