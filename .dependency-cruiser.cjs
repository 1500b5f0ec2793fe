/**
 * The import rules of llmkb's source, checked by `npm run check:imports` (part of `npm test`) on
 * the compiled modules in dist/ (static and dynamic imports as they run; type-only imports are
 * erased there; scripts/check-type-cycles.mjs, the other half of `check:imports`, finds the cycles
 * that type-only imports make in src/). See docs/architecture.md for the layers.
 */
const method = '^dist/methods/([^/]+)/';

/**
 * The floors, lowest first: a module imports its own floor and the floors below it, never one
 * above (a folder-level back edge). Each floor lists its paths under dist/.
 */
const FLOORS = [
  { name: 'base', paths: ['^dist/(errors|secrets|url-credentials|version)\\.js$', '^dist/(io|text|sampling|progress)/'] },
  { name: 'store and providers', paths: ['^dist/(store|providers)/'] },
  { name: 'executor', paths: ['^dist/executor/'] },
  { name: 'config and corpus', paths: ['^dist/(config|corpus)/'] },
  { name: 'methods core', paths: ['^dist/methods/(?!(registry|builtin-methods|load-summary)\\.js$)[^/]+\\.js$'] },
  { name: 'method plugins', paths: [method] },
  { name: 'method registry', paths: ['^dist/methods/(registry|builtin-methods|load-summary)\\.js$'] },
  { name: 'runs, analysis and report', paths: ['^dist/(runs|analysis|report)/'] },
  { name: 'view, sweep, workspace and evaluate', paths: ['^dist/(view|sweep)/', '^dist/(workspace|evaluate)\\.js$'] },
  { name: 'cli and the public index', paths: ['^dist/cli/', '^dist/index\\.js$'] },
];

/**
 * Back edges known and not yet removed, each named: a text classifier (a provider) asks its text
 * model through an executor for retries and concurrency.
 */
const KNOWN_BACK_EDGES = [{ from: '^dist/providers/llm-classifier/llm-classifier\\.js$', to: '^dist/executor/model-executor\\.js$' }];

/** One rule per floor: nothing on it imports a floor above it (known back edges aside). */
const floorRules = FLOORS.slice(0, -1).map((floor, i) => ({
  name: `floor-${i}-below`,
  severity: 'error',
  comment: `Floors (.dependency-cruiser.cjs, docs/architecture.md): ${floor.name} imports nothing from ${FLOORS.slice(i + 1).map((f) => f.name).join(', ')}.`,
  from: { path: floor.paths, pathNot: KNOWN_BACK_EDGES.map((e) => e.from) },
  to: { path: FLOORS.slice(i + 1).flatMap((f) => f.paths) },
}));
const knownBackEdgeRules = KNOWN_BACK_EDGES.map((edge, i) => {
  const at = FLOORS.findIndex((f) => f.paths.some((p) => new RegExp(p).test(edge.from.replace(/^\^|\\|\$$/g, ''))));
  return { name: `known-back-edge-${i}`, severity: 'error', comment: 'A known back edge is the only import above its floor its module may make.', from: { path: edge.from }, to: { path: FLOORS.slice(at + 1).flatMap((f) => f.paths), pathNot: edge.to } };
});

module.exports = {
  forbidden: [
    ...floorRules,
    ...knownBackEdgeRules,
    { name: 'no-cycles', severity: 'error', comment: 'No import cycle, static or dynamic.', from: {}, to: { circular: true } },
    {
      name: 'methods-are-plugins',
      severity: 'error',
      comment: 'A method is a plugin: nothing outside its folder imports it, except the list of built-in methods.',
      from: { path: '^dist/', pathNot: [method, '^dist/methods/builtin-methods\\.js$'] },
      to: { path: method },
    },
    {
      name: 'methods-apart',
      severity: 'error',
      comment: 'A method does not import another method.',
      from: { path: method },
      to: { path: '^dist/methods/([^/]+)/', pathNot: '^dist/methods/$1/' },
    },
    {
      name: 'store-below',
      severity: 'error',
      comment: 'The store knows nothing of methods, runs, views, reports, sweeps or the CLI.',
      from: { path: '^dist/store/' },
      to: { path: '^dist/(methods|runs|view|report|sweep|cli|corpus)/' },
    },
    {
      name: 'providers-below',
      severity: 'error',
      comment: 'Providers know nothing of methods, the store, runs, views, reports, sweeps or the CLI.',
      from: { path: '^dist/providers/' },
      to: { path: '^dist/(methods|store|runs|view|report|sweep|cli)/' },
    },
    {
      name: 'executor-below',
      severity: 'error',
      comment: 'The executor knows nothing of methods, runs, views, reports, sweeps or the CLI.',
      from: { path: '^dist/executor/' },
      to: { path: '^dist/(methods|runs|view|report|sweep|cli)/' },
    },
    {
      name: 'view-through-public-modules',
      severity: 'error',
      comment: 'The viewer reads runs through src/runs and the run store, and calls through the store\'s inspection API; it builds no cache keys.',
      from: { path: '^dist/view/' },
      to: { path: '^dist/(store/call-cache|executor|sweep|cli)' },
    },
    {
      name: 'no-cli-below',
      severity: 'error',
      comment: 'Only the CLI and the methods\' own commands import the CLI\'s modules.',
      from: { path: '^dist/', pathNot: ['^dist/cli/', '^dist/methods/[^/]+/cli/'] },
      to: { path: '^dist/cli/' },
    },
    {
      name: 'results-below-commands',
      severity: 'error',
      comment: 'Loading runs, comparing them and writing the report need neither the viewer, nor studies, nor the CLI.',
      from: { path: '^dist/(runs|analysis|report)/' },
      to: { path: '^dist/(view|sweep|cli)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.(map|d\\.ts)$' },
    moduleSystems: ['es6'],
    detectJSDocImports: false,
  },
};
