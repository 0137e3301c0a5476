/**
 * Test hook shared by both trees: walks a TreeDataProvider the way the workbench would and
 * returns plain data (labels, descriptions, context values, the command a click runs).
 */
import type * as vscode from 'vscode';

export interface SnapshotNode {
  label: string;
  description?: string;
  contextValue?: string;
  icon?: string;
  command?: string;
  tooltip?: string;
  children?: SnapshotNode[];
}

export async function snapshotTree<T>(provider: vscode.TreeDataProvider<T>, depth = 6, parent?: T): Promise<SnapshotNode[]> {
  const children = (await provider.getChildren(parent)) ?? [];
  const out: SnapshotNode[] = [];
  for (const child of children) {
    // Tooltips resolved lazily (on hover) are left out: building thousands would only slow tests.
    const item = await provider.getTreeItem(child);
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    const icon = item.iconPath && typeof item.iconPath === 'object' && 'id' in item.iconPath ? item.iconPath.id : undefined;
    const tooltip = typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value;
    const node: SnapshotNode = {
      label,
      description: typeof item.description === 'string' ? item.description : undefined,
      contextValue: item.contextValue,
      icon,
      command: item.command?.command,
      tooltip,
    };
    // Collapsed nodes are expanded too: the snapshot is what a user sees after opening everything.
    if (depth > 0 && item.collapsibleState !== undefined && Number(item.collapsibleState) !== 0) node.children = await snapshotTree(provider, depth - 1, child);
    out.push(node);
  }
  return out;
}
