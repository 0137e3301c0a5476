/**
 * The one test seam: features hand in what the host and UI tests may look at (a tree's snapshot,
 * a panel's handle, a cache's counters) under a name; the composition root registers them as
 * `firecrest.test.<name>` commands in one place, and only outside production: a production run
 * registers none, and a production build drops the registration altogether (the build defines
 * `process.env.FIRECREST_TEST_SEAM` as "off").
 */
import * as vscode from 'vscode';

type Probe = (...args: never[]) => unknown;

export class TestSeam {
  private readonly probes: [string, Probe][] = [];

  /** `firecrest.test.<name>` calls `probe` (outside production). */
  expose(name: string, probe: Probe): void {
    this.probes.push([name, probe]);
  }

  /** Registers what was exposed, unless this is production. */
  register(mode: vscode.ExtensionMode): vscode.Disposable {
    if (process.env.FIRECREST_TEST_SEAM === 'off' || mode === vscode.ExtensionMode.Production) return new vscode.Disposable(() => undefined);
    return vscode.Disposable.from(...this.probes.map(([name, probe]) => vscode.commands.registerCommand(`firecrest.test.${name}`, probe as (...args: unknown[]) => unknown)));
  }
}
