import type { Command } from 'commander';

/** `llmkb methods`: the registered evaluation methods with their roles, stages and metric definitions. */
export function registerMethodsCommand(program: Command): void {
  program
    .command('methods')
    .description('list the evaluation methods: model roles, stages and metric definitions')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { listMethods } = await import('../methods/registry.js');
      const { METHOD_INTERFACE_VERSION } = await import('../methods/method.js');
      const methods = listMethods();
      if (opts.json) {
        // The method's description only (its code hooks are not data).
        const described = methods.map((m) => ({
          id: m.id,
          version: m.version,
          title: m.title,
          paper: m.paper,
          ...(m.citation ? { citation: m.citation } : {}),
          ...(m.settings ? { settings: m.settings } : {}),
          roles: m.roles,
          stages: m.stages.map((st) => ({ id: st.id, description: st.description })),
          metricDefs: m.metricDefs,
        }));
        process.stdout.write(`${JSON.stringify({ schema: 'llmkb-methods-v1', interfaceVersion: METHOD_INTERFACE_VERSION, methods: described }, null, 2)}\n`);
        return;
      }
      for (const m of methods) {
        process.stdout.write(`${m.id} (version ${m.version}): ${m.title}\n  paper: ${m.paper}\n  roles:\n`);
        for (const r of m.roles)
          process.stdout.write(`    ${r.id.padEnd(12)} ${r.kind.padEnd(16)} ${r.required ? 'required' : `optional (without: ${r.fallback ?? 'not used'})`}\n`);
        process.stdout.write(`  stages: ${m.stages.map((s) => s.id).join(' -> ')}\n  metrics:\n`);
        for (const d of m.metricDefs)
          process.stdout.write(
            `    ${d.id.padEnd(15)} ${d.better === 'higher' ? '↑' : '↓'} [${d.range.join(', ')}] ${d.equation ? `${d.equation}: ` : ''}${d.description}\n`,
          );
      }
    });
}
