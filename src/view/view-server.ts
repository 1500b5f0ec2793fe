/**
 * `llmkb view`: a local web app over the run store and result files (node:http, pages rendered
 * on the server, two small static assets shipped in the package). It binds 127.0.0.1 unless
 * another host is asked for, and answers only requests addressed to it (./host-check.ts). Every
 * response carries a Content-Security-Policy that allows only this server's own script and
 * style, so even markup that escaped escaping could not run.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LlmkbError } from '../errors.js';
import type { ItemFieldDef, PairedRow } from '../methods/method-presentation.js';
import { allowedHosts, hostAllowed, MISDIRECTED } from './host-check.js';
import { comparePage, itemPage, runPage } from './view-detail-pages.js';
import { itemFieldsOf, ViewIndex, type ViewRun } from './view-index.js';
import { fieldFilterFrom } from './item-fields.js';
import { esc, itemsPage, layout, runsPage } from './view-pages.js';
import { facets, fieldFacets, queryItems, type ItemFilter } from './view-queries.js';
import { escapeControls } from '../terminal-text.js';

export const VIEW_ASSETS = ['view.css', 'view.js'] as const;

/** The assets folder: beside this module (dist/view/assets after `npm run build`, src/view/assets under tsx). */
export function assetsDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'assets');
}

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export interface ViewServerOptions {
  store?: string;
  resultsDir?: string;
  indexFile?: string;
  host?: string;
  port?: number;
  /** Items per page of the item list. */
  pageSize?: number;
}

export interface ViewServer {
  server: Server;
  index: ViewIndex;
  url: string;
  close(): Promise<void>;
}

class NotFound extends Error {}
/** A request the client got wrong (malformed percent-encoding in the path): 400, not a server error. */
class BadRequest extends Error {}

/** A path segment, percent-decoded (`/runs/%` cannot be: a 400). */
function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BadRequest(`malformed percent-encoding in the path: ${raw}`);
  }
}

function number(v: string | null): number | undefined {
  if (v === null || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** A 1-based page number from a request, as a 0-based index: anything below 1 or not a number is the first page; one past the last (however large) shows the last. */
function pageOf(v: string | null): number {
  const n = number(v);
  return n === undefined || n < 1 ? 0 : Math.floor(Math.min(n, Number.MAX_SAFE_INTEGER)) - 1;
}

/** The items filter of a request: the indexed columns, the method's declared fields (`defs`), the text searched and the sort. */
function filterFrom(p: URLSearchParams, defs: readonly ItemFieldDef[]): ItemFilter {
  const f: ItemFilter = { ...fieldFilterFrom(p, defs) };
  const s = (k: string) => p.get(k) ?? undefined;
  if (s('label')) f.label = s('label')!;
  if (s('subtype')) f.subtype = s('subtype')!;
  if (s('source')) f.source = s('source')!;
  if (s('template')) f.source = s('template')!;
  if (s('answerType')) f.answerType = s('answerType')!;
  if (s('dataset')) f.dataset = s('dataset')!;
  const min = number(p.get('cmin'));
  const max = number(p.get('cmax'));
  if (min !== undefined) f.consistencyMin = min;
  if (max !== undefined) f.consistencyMax = max;
  if (s('q')?.trim()) f.text = s('q')!.trim();
  return f;
}

export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const index = new ViewIndex({
    ...(options.store ? { store: options.store } : {}),
    ...(options.resultsDir ? { resultsDir: options.resultsDir } : {}),
    ...(options.indexFile ? { indexFile: options.indexFile } : {}),
  });
  const pageSize = options.pageSize ?? 50;
  const where =
    [index.hasStore ? `store ${options.store}` : '', index.resultsDir ? `results ${index.resultsDir}` : ''].filter(Boolean).join(' and ') ||
    'nothing (no store, no results folder)';
  const assets = new Map(VIEW_ASSETS.map((name) => [name, readFileSync(join(assetsDir(), name))]));
  const pairedCache = new Map<string, PairedRow[]>();

  /** Paired tests of two runs of one method on their shared items, by the method's view; cached until either run changes. */
  async function paired(a: ViewRun, b: ViewRun): Promise<PairedRow[]> {
    if (a.method !== b.method) return [];
    const view = await index.view(a);
    if (!view?.pairedRows) return [];
    const key = `${a.key}|${b.key}|${index.fingerprints([a.key, b.key])}`;
    const known = pairedCache.get(key);
    if (known) return known;
    const rows = await view.pairedRows(index.viewItems(a), index.viewItems(b), [a.label, b.label]);
    if (pairedCache.size > 20) pairedCache.delete(pairedCache.keys().next().value!);
    pairedCache.set(key, rows);
    return rows;
  }

  function runOr404(key: string): ViewRun {
    const run = index.run(key);
    if (!run) throw new NotFound(`no run ${key}`);
    return run;
  }

  async function route(req: IncomingMessage, url: URL): Promise<{ status?: number; type: string; body: string | Buffer }> {
    const path = url.pathname;
    const html = (body: string) => ({ type: 'text/html; charset=utf-8', body });
    if (path.startsWith('/assets/')) {
      const name = path.slice('/assets/'.length) as (typeof VIEW_ASSETS)[number];
      const body = assets.get(name);
      if (!body) throw new NotFound(path);
      return { type: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8', body };
    }
    if (path === '/favicon.ico') return { status: 204, type: 'image/x-icon', body: '' };
    if (path === '/' || path === '/runs') {
      const runs = index.runs();
      const withSummaries = [];
      for (const run of runs)
        withSummaries.push({
          run,
          summary: await index.summary(run, { quick: true }).catch(() => undefined),
          problems: await index.recordProblems(run).catch(() => []),
        });
      return html(await runsPage(withSummaries, where));
    }
    if (path === '/api/runs') return { type: 'application/json', body: JSON.stringify(index.runs()) };
    const m = /^\/runs\/([^/]+)(?:\/items(?:\/([^/]+))?)?\/?$/.exec(path);
    if (m) {
      const run = runOr404(segment(m[1]!));
      if (m[2] !== undefined) {
        const page = await itemPage(index, run, segment(m[2]));
        if (page === undefined) throw new NotFound(`no item ${segment(m[2])} in run ${run.key}`);
        return html(page);
      }
      if (path.includes('/items')) {
        const started = performance.now();
        await index.ensureItems(run);
        const view = await index.view(run);
        const fields = itemFieldsOf(view);
        const filter = filterFrom(url.searchParams, fields);
        const page = pageOf(url.searchParams.get('page'));
        const shown = queryItems(index, run, filter, page, pageSize);
        const counts = {
          label: facets(index, run, 'label'),
          subtype: facets(index, run, 'subtype'),
          source: facets(index, run, 'source'),
          answer_type: facets(index, run, 'answer_type'),
          dataset: facets(index, run, 'dataset'),
        };
        const fieldCounts = Object.fromEntries(fields.filter((d) => d.kind === 'text').map((d) => [d.name, fieldFacets(index, run, d.name)]));
        return html(
          itemsPage({
            run,
            view,
            filter,
            page: shown.page,
            pageSize,
            rows: shown.rows,
            total: shown.total,
            facets: counts,
            fieldFacets: fieldCounts,
            elapsedMs: performance.now() - started,
          }),
        );
      }
      return html(await runPage(index, run));
    }
    if (path === '/compare') {
      const keys = [...url.searchParams.getAll('run'), ...(url.searchParams.get('runs')?.split(',') ?? [])].filter(Boolean);
      const runs = [...new Set(keys)].map(runOr404);
      if (runs.length < 2)
        return { status: 400, ...html(layout('Compare', '<h1>Compare</h1><p class="empty">Select two or more runs on the <a href="/">runs page</a>.</p>')) };
      const page = pageOf(url.searchParams.get('page'));
      return html(await comparePage(index, runs, { only: url.searchParams.get('only') === '1', page, pageSize, paired }));
    }
    void req;
    throw new NotFound(path);
  }

  let allowed: Set<string> | undefined;
  const server = createServer((req, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, {
        'content-type': type,
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    allowed ??= allowedHosts(host, (server.address() as AddressInfo).port);
    if (!hostAllowed(req.headers.host, allowed)) return send(421, 'text/plain; charset=utf-8', MISDIRECTED);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'only GET');
    route(req, url).then(
      (r) => send(r.status ?? 200, r.type, r.body),
      (error: unknown) => {
        if (error instanceof BadRequest)
          return send(400, 'text/html; charset=utf-8', layout('Bad request', `<h1>Bad request</h1><p>${esc(error.message)}</p>`));
        if (error instanceof NotFound) return send(404, 'text/html; charset=utf-8', layout('Not found', `<h1>Not found</h1><p>${esc(error.message)}</p>`));
        const message = error instanceof Error ? error.message : String(error);
        process.stderr.write(`llmkb view: ${escapeControls(`${req.url}: ${message}`)}\n`);
        send(500, 'text/html; charset=utf-8', layout('Error', `<h1>Error</h1>${`<pre>${esc(message)}</pre>`}`));
      },
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      index.close();
      reject(
        error.code === 'EADDRINUSE'
          ? new LlmkbError(`port ${options.port} on ${host} is in use`, { hint: 'Pass another --port (0 picks a free one).' })
          : error,
      );
    });
    server.listen(options.port ?? 0, host, () => resolvePromise());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    index,
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections?.();
        server.close(() => {
          index.close();
          resolvePromise();
        });
      }),
  };
}
