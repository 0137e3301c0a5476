/**
 * The tools as VS Code's manifest declares them (`contributes.languageModelTools`): names, JSON
 * schemas and the description for the model from the definitions; the title and the description
 * for people through package.nls.json. scripts/tools-manifest.ts writes it; a unit test compares.
 */
import { z } from 'zod';
import { TOOLS } from './index';

export interface ManifestTool {
  name: string;
  displayName: string;
  toolReferenceName: string;
  canBeReferencedInPrompt: boolean;
  icon: string;
  userDescription: string;
  modelDescription: string;
  tags: string[];
  inputSchema: Record<string, unknown>;
}

export function toolManifest(): { tools: ManifestTool[]; strings: Record<string, string> } {
  const strings: Record<string, string> = {};
  const tools = TOOLS.map((t) => {
    const key = `firecrest.tool.${t.name.replace(/^firecrest_/, '')}`;
    strings[`${key}.title`] = t.title;
    strings[`${key}.description`] = t.description.split('. ')[0].replace(/\.$/, '') + '.';
    const { $schema: _ignored, ...schema } = z.toJSONSchema(t.input, { io: 'input' }) as Record<string, unknown>;
    return {
      name: t.name,
      displayName: `%${key}.title%`,
      toolReferenceName: t.name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()),
      canBeReferencedInPrompt: true,
      icon: t.kind === 'write' ? '$(cloud-upload)' : '$(server)',
      userDescription: `%${key}.description%`,
      modelDescription: t.description,
      tags: ['firecrest', 'hpc', 'slurm', t.kind === 'write' ? 'writes' : 'reads'],
      inputSchema: schema,
    };
  });
  return { tools, strings };
}
