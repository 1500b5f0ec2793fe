#!/usr/bin/env node
/**
 * No import cycle in src/, type-only imports counted. dependency-cruiser checks the compiled
 * modules in dist/, where `import type` is erased, and cannot read the TypeScript sources with the
 * TypeScript version this package builds with; this script reads every relative import of
 * src/**\/*.ts (static, type-only, re-exports, dynamic `import()` and `import('…').Type`) and
 * names each cycle. Part of `npm run check:imports`.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const IMPORTS = [
  /(?:^|[;\n])\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g,
  /(?:^|[;\n])\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/g,
  /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g,
];

/** The .ts module a relative specifier names, or undefined when it is not a source of src/. */
function target(from, specifier) {
  const path = resolve(dirname(from), specifier);
  for (const candidate of [path.replace(/\.js$/, '.ts'), `${path}.ts`, join(path, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return undefined;
}

const files = sources(root);
const edges = new Map();
for (const file of files) {
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const to = new Set();
  for (const pattern of IMPORTS)
    for (const m of text.matchAll(pattern)) {
      const t = target(file, m[1]);
      if (t !== undefined) to.add(t);
    }
  edges.set(file, [...to].sort());
}

// Tarjan's strongly connected components: every component of more than one module is a cycle.
let index = 0;
const stack = [];
const state = new Map();
const components = [];
function visit(v) {
  state.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of edges.get(v) ?? []) {
    const sw = state.get(w);
    if (sw === undefined) {
      visit(w);
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
    } else if (sw.onStack) state.get(v).low = Math.min(state.get(v).low, sw.index);
  }
  if (state.get(v).low === state.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      state.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) components.push(component);
  }
}
for (const file of files) if (!state.has(file)) visit(file);

/** One cycle through `start` inside its component, by breadth-first search, for the message. */
function cycleThrough(start, members) {
  const inside = new Set(members);
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of edges.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let p = previous.get(v); p !== undefined; p = previous.get(p)) path.unshift(p);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

const name = (file) => relative(process.cwd(), file);
if (components.length === 0) {
  process.stdout.write(`no import cycle in ${name(root)} (${files.length} modules, type-only imports counted)\n`);
} else {
  for (const c of components) {
    const members = c.sort();
    process.stderr.write(
      `import cycle (type-only imports counted) among ${members.length} modules: ${cycleThrough(members[0], members).map(name).join(' -> ')}\n`,
    );
    if (members.length > 2) process.stderr.write(`  all of them: ${members.map(name).join(', ')}\n`);
  }
  process.exitCode = 1;
}
