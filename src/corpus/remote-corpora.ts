/**
 * Corpora that live in an OpenSearch or Elasticsearch index instead of the workspace store
 * (`llmkb corpus add-remote NAME --opensearch URL --index I`): registered by name beside the
 * local corpora, so every command that takes a corpus name (`corpus search`, `conner score
 * --corpus`) searches them the same way, through the index's `_search` (its own BM25).
 *
 * What is stored is the address, the index and the field names, never a credential: the
 * registration names the environment variable that holds them (`--auth-env`), read at search
 * time; a URL with a user name, a password or a query string in it is refused.
 */
import { ConfigError, LlmkbError } from '../errors.js';
import type { Db } from '../store/database.js';
import { credentialsProblem } from '../url-credentials.js';
import { checkCorpusName } from './corpus-schema.js';
import { OpenSearchRetriever, type OpenSearchRetrieverOptions } from './opensearch-retriever.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS corpus_remotes (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  settings TEXT NOT NULL,
  created_at TEXT NOT NULL
);`;

/** What a remote corpus registration holds (no credentials: `authEnv` names the variable). */
export type RemoteCorpusSettings = Omit<OpenSearchRetrieverOptions, 'env' | 'timeoutMs'>;

export interface RemoteCorpusInfo {
  name: string;
  kind: 'opensearch';
  createdAt: string;
  settings: RemoteCorpusSettings;
}

function ensureSchema(db: Db): void {
  db.exec(SCHEMA);
}

/** The remote corpus named `name`, or undefined. */
export function remoteCorpus(db: Db, name: string): RemoteCorpusInfo | undefined {
  ensureSchema(db);
  const row = db.prepare('SELECT name, kind, settings, created_at FROM corpus_remotes WHERE name = ?').get(name) as
    | { name: string; kind: 'opensearch'; settings: string; created_at: string }
    | undefined;
  return row === undefined
    ? undefined
    : { name: row.name, kind: row.kind, createdAt: row.created_at, settings: JSON.parse(row.settings) as RemoteCorpusSettings };
}

export function listRemoteCorpora(db: Db): RemoteCorpusInfo[] {
  ensureSchema(db);
  return (db.prepare('SELECT name FROM corpus_remotes ORDER BY name').all() as { name: string }[]).map((r) => remoteCorpus(db, r.name)!);
}

function sameSettings(a: RemoteCorpusSettings, b: RemoteCorpusSettings): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof RemoteCorpusSettings>;
  return [...keys].every((k) => a[k] === b[k]);
}

/** Where a remote corpus is and how it is reached, for messages (never a credential). */
export function describeRemote(info: RemoteCorpusInfo): string {
  return `OpenSearch index ${info.settings.index} at ${new URL(info.settings.url).origin}${info.settings.authEnv === undefined ? ' (no credentials)' : ` (credentials from $${info.settings.authEnv})`}`;
}

/**
 * Registers a remote corpus. The settings are checked as the retriever checks them (URL, index
 * name; the credentials variable is not read here: it may be set only where searches run). A
 * name already registered with other settings is refused unless `replace` is set (registering
 * the same settings again changes nothing).
 */
export function addRemoteCorpus(db: Db, name: string, settings: RemoteCorpusSettings, options: { replace?: boolean } = {}): RemoteCorpusInfo {
  ensureSchema(db);
  checkCorpusName(name);
  let url: URL;
  try {
    url = new URL(settings.url);
  } catch {
    throw new ConfigError(`not a URL: "${settings.url}"`, { hint: 'Give the cluster address, e.g. http://localhost:9200.' });
  }
  // A user name, a password or a query string (a key in `?api_key=...`): none may be stored.
  const problem =
    url.username !== '' || url.password !== ''
      ? 'the OpenSearch URL holds credentials; they would be stored in the workspace'
      : credentialsProblem(settings.url, 'the OpenSearch URL');
  if (problem !== undefined)
    throw new ConfigError(problem, {
      hint: 'Give the cluster address alone (no user:password@, no "?..."), and put the credentials in an environment variable named with --auth-env.',
    });
  // The retriever checks the URL scheme and the index name (its credentials are not read here).
  const { authEnv, ...check } = settings;
  new OpenSearchRetriever(check);
  if (authEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(authEnv))
    throw new ConfigError(`"${authEnv}" is not an environment variable name`, {
      hint: 'Give the NAME of the variable that holds the credentials (e.g. OPENSEARCH_AUTH), not the credentials.',
    });
  const local =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'corpora'").get() !== undefined &&
    db.prepare('SELECT 1 FROM corpora WHERE name = ?').get(name) !== undefined;
  if (local)
    throw new LlmkbError(`corpus "${name}" already exists in the store (local passages)`, {
      hint: 'Choose another name for the remote index, or `llmkb corpus remove` the local corpus first.',
    });
  const clean: RemoteCorpusSettings = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as RemoteCorpusSettings;
  const existing = remoteCorpus(db, name);
  if (existing !== undefined && !options.replace && !sameSettings(existing.settings, clean)) {
    throw new LlmkbError(`corpus "${name}" is already registered: ${describeRemote(existing)}`, {
      hint: `Give --replace to register it anew with these settings (${existing.settings.authEnv === undefined ? 'its' : `with --auth-env ${existing.settings.authEnv} to keep its credentials; its`} other settings are not carried over), or use another name.`,
    });
  }
  db.prepare(
    'INSERT INTO corpus_remotes (name, kind, settings, created_at) VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, settings = excluded.settings',
  ).run(name, 'opensearch', JSON.stringify(clean), new Date().toISOString());
  return remoteCorpus(db, name)!;
}

/** Removes a remote corpus registration (the index is not touched); false when there was none. */
export function removeRemoteCorpus(db: Db, name: string): boolean {
  ensureSchema(db);
  return db.prepare('DELETE FROM corpus_remotes WHERE name = ?').run(name).changes > 0;
}

/** The retriever of a remote corpus (credentials read from its variable now). */
export function remoteRetriever(info: RemoteCorpusInfo, env: NodeJS.ProcessEnv = process.env): OpenSearchRetriever {
  return new OpenSearchRetriever({ ...info.settings, env });
}
