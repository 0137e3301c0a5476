// @ts-check
import js from '@eslint/js';
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';

/** The floors every feature may use; every other folder of src/ is a feature, read from the folders. */
const SHARED = ['core', 'common', 'connections'];
const features = readdirSync(new URL('./src', import.meta.url), { withFileTypes: true }).filter((d) => d.isDirectory() && !SHARED.includes(d.name)).map((d) => d.name);

/** A literal with a word in it (two letters), and one with a phrase (a word, a space, a letter). */
const WORDS = '/[A-Za-z]{2}/';
const PHRASE = '/[A-Za-z]{2,} [A-Za-z]/';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test-results/**', '**/*.mjs', '**/*.cjs', '**/*.js', 'webview-ui/**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // One job per function and per file: a function over 80 lines or a file over 300 (code lines)
    // is split, or says at its head why it is not.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Words shown to the user are localised (vscode.l10n.t, bundled in l10n/): a message, a button,
    // an error, a title, a prompt, a tooltip or a tree label given as a literal is an error. The
    // client core and the MCP server (plain Node, no VS Code) word their errors themselves.
    files: ['src/**/*.ts'],
    ignores: ['src/core/**', 'src/mcp/**'],
    rules: {
      'no-restricted-syntax': ['error',
        { selector: 'CallExpression[callee.property.name=/^show(Information|Warning|Error)Message$/] > :first-child:matches(Literal, TemplateLiteral)', message: 'A message shown to the user goes through vscode.l10n.t.' },
        { selector: 'CallExpression[callee.property.name=/^show(Information|Warning|Error)Message$/] > Literal.arguments', message: 'A button shown to the user goes through vscode.l10n.t.' },
        { selector: `NewExpression[callee.name='FsError'] > :matches(Literal[value=${WORDS}], TemplateLiteral:has(TemplateElement[value.raw=${WORDS}])).arguments:nth-child(2)`, message: 'An error message goes through vscode.l10n.t (its first argument is a code).' },
        { selector: `NewExpression[callee.name=/^(?!FsError$)\\w*Error$/] > :matches(Literal[value=${WORDS}], TemplateLiteral:has(TemplateElement[value.raw=${WORDS}])).arguments:first-child`, message: 'An error message goes through vscode.l10n.t.' },
        { selector: `Property[key.name=/^(title|placeHolder|prompt|tooltip|message)$/] > :matches(Literal[value=${WORDS}], TemplateLiteral:has(TemplateElement[value.raw=${WORDS}])).value`, message: 'A title, prompt or tooltip goes through vscode.l10n.t.' },
        { selector: `Property[key.name=/^(label|description|detail)$/] > :matches(Literal[value=${PHRASE}], TemplateLiteral:has(TemplateElement[value.raw=${PHRASE}])).value`, message: 'A label or description in words goes through vscode.l10n.t.' },
        { selector: `AssignmentExpression[left.property.name=/^(label|description|detail|tooltip|title|placeholder|prompt|message)$/] > :matches(Literal[value=${PHRASE}], TemplateLiteral:has(TemplateElement[value.raw=${PHRASE}])).right`, message: 'Words shown to the user go through vscode.l10n.t.' },
        { selector: `NewExpression[callee.property.name='TreeItem'] > :matches(Literal[value=${PHRASE}], TemplateLiteral:has(TemplateElement[value.raw=${PHRASE}])).arguments:first-child`, message: 'A tree label in words goes through vscode.l10n.t.' },
      ],
    },
  },
  {
    // The client core runs as a plain Node library: it never sees VS Code, the UI, or the gateway.
    // The MCP server is a plain Node program on top of it.
    files: ['src/core/**/*.ts', 'src/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core must not import vscode (it is a plain Node library).' }],
        patterns: [
          { group: ['**/gateway/**'], message: 'src/ shares no code with gateway/.' },
          { group: ['../fs/**', '../views/**', '../commands/**', '../webviews/**', '../common/**', '../connections/**', '../extension'], message: 'core is the bottom layer.' },
        ],
      }],
    },
  },
  // Feature folders meet only through core types and the composition root.
  ...features.map((f) => ({
    files: [`src/${f}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/gateway/**'], message: 'src/ shares no code with gateway/.' },
          ...features.filter((o) => o !== f).map((o) => ({ group: [`../${o}/**`, `../../${o}/**`], message: `src/${f} must not import src/${o}; pass what it needs through the composition root.` })),
        ],
      }],
    },
  })),
  {
    files: ['gateway/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/src/**', '../src/**', '../../src/**'], message: 'gateway/ shares no code with src/.' }] }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
