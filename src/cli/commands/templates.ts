import type { Command } from 'commander';
import { listTemplates, loadTemplate, type Template } from '../../render/templates.js';
import { contextFor } from '../command-context.js';

function summary(template: Template): string {
  const scenes = template.scenes.map((s) => s.kind).join(' → ');
  return [
    `${template.name}: ${template.description}`,
    `  default ${template.default_duration_s} s, made for ${template.recommended_format}; ${template.transition.kind} transitions (${template.transition.duration_s} s); music mood ${template.music.mood}`,
    `  fonts ${template.fonts.heading} / ${template.fonts.arabic_heading}; accent ${template.colors.accent}`,
    `  scenes ${scenes}`,
  ].join('\n');
}

/** `templates list`. */
export async function listTemplatesCommand(_flags: unknown, command: Command): Promise<void> {
  const ctx = contextFor(command);
  const loaded = listTemplates().map((name) => loadTemplate(name));
  if (ctx.output.json) {
    ctx.output.data({
      ok: true,
      status: 'success',
      templates: loaded.map((t) => ({
        name: t.name,
        description: t.description,
        default_duration_s: t.default_duration_s,
        recommended_format: t.recommended_format,
      })),
    });
  } else ctx.output.text(loaded.map(summary).join('\n\n'));
}

/** `templates show`. */
export async function showTemplate(name: string, _flags: unknown, command: Command): Promise<void> {
  const ctx = contextFor(command);
  const template = loadTemplate(name);
  if (ctx.output.json) ctx.output.data({ ok: true, status: 'success', template });
  else ctx.output.text(`${summary(template)}\n\n${JSON.stringify(template, null, 2)}`);
}
