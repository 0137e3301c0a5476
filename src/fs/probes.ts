/** Paths VS Code and other extensions look for on their own; their absence is normal. */
const PROBED = new Set([
  '.vscode', '.git', '.hg', '.svn', 'node_modules', '.devcontainer', '.devcontainer.json', '.editorconfig',
  'settings.json', 'launch.json', 'tasks.json', 'extensions.json', 'mcp.json', 'package.json', 'pom.xml',
  'build.gradle', 'build.gradle.kts', 'tsconfig.json', 'jsconfig.json', 'pyproject.toml', 'setup.py',
  'requirements.txt', 'Cargo.toml', 'go.mod', 'CMakeLists.txt', 'Makefile', '.gitignore', '.github',
  '.prettierrc', '.eslintrc', '.env', '.venv', 'venv', '.copilot', '.cursor', 'AGENTS.md', 'CLAUDE.md',
]);

/** True when some segment of `path` is one VS Code or another extension probes for on its own. */
export function isProbed(path: string): boolean {
  return path.split('/').some((seg) => PROBED.has(seg) || seg.endsWith('.code-workspace'));
}
