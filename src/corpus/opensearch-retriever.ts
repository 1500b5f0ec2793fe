/**
 * A retriever backed by an OpenSearch or Elasticsearch index over HTTP, for a corpus that has
 * outgrown one machine: `POST /<index>/_search` with a `match` query on the text field
 * (`{"size": k, "query": {"match": {"<field>": "<query>"}}}`), read from the response's
 * `hits.hits[]` (`_id`, `_score`, `_source`). The index's own BM25 ranks the passages.
 *
 * Credentials come from an environment variable named in the options (never from the config
 * file, never logged: they are registered as secrets, ../secrets.ts): `user:password` (sent as
 * HTTP Basic), or a full Authorization value (`Basic ...`, `Bearer ...`, `ApiKey ...`).
 */
import { z } from 'zod';
import { ConfigError, LlmkbError, ModelCallError } from '../errors.js';
import { authorizationValue } from '../secrets.js';
import { credentialsProblem } from '../url-credentials.js';
import { maxReplyBytes, readLimitedText } from '../reply-limit.js';
import type { RetrievedPassage, Retriever } from './retriever.js';
import { escapeControls } from '../terminal-text.js';

export interface OpenSearchRetrieverOptions {
  /** Base URL of the cluster, e.g. `https://search.example.org:9200`. */
  url: string;
  index: string;
  /** `_source` field with the passage text, matched by the query (default "text"). */
  textField?: string;
  /** `_source` field with the document id (default: the hit's `_id`). */
  docIdField?: string;
  /** `_source` fields with the page and the character offsets, when the index has them. */
  pageField?: string;
  startField?: string;
  endField?: string;
  /** Name of the environment variable holding the credentials (see the module comment). */
  authEnv?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Where a note goes (a hit skipped for want of text); default stderr. */
  onNote?: (line: string) => void;
}

/** What a field held instead of text, for a note: `null`, `missing`, `a number`, ... */
function valueKind(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

const TEXT_FIELD_HINT =
  'Register the corpus again with the _source field that holds the passage text: llmkb corpus add-remote NAME --opensearch URL --index INDEX --text-field FIELD --replace.';

const hitSchema = z.object({ _id: z.string(), _score: z.number().nullable(), _source: z.record(z.string(), z.unknown()).optional() });
const responseSchema = z.object({ hits: z.object({ hits: z.array(hitSchema) }) });

const SHAPE_HINT =
  'Check that the URL is the address of an OpenSearch or Elasticsearch cluster: its _search answers {"hits": {"hits": [{"_id": "...", "_score": ..., "_source": {...}}]}}.';

export class OpenSearchRetriever implements Retriever {
  readonly #options: OpenSearchRetrieverOptions;
  readonly #authorization: string | undefined;
  /** Whether the note about hits without text was given (once per retriever). */
  #noted = false;

  constructor(options: OpenSearchRetrieverOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new ConfigError(`not a URL: "${options.url}"`, { hint: 'Give the cluster address, e.g. http://localhost:9200.' });
    }
    const problem = credentialsProblem(options.url, 'the OpenSearch URL');
    if (problem !== undefined)
      throw new ConfigError(problem, {
        hint: 'Give the cluster address alone (no user:password@, no "?..."), and put the credentials in an environment variable named with --auth-env.',
      });
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConfigError(`the OpenSearch URL must be http or https, not ${url.protocol}`, {
        hint: 'Give the cluster address, e.g. https://search.example.org:9200.',
      });
    if (options.index.length === 0 || /[\s/\\*?"<>|,#]/.test(options.index))
      throw new ConfigError(`invalid index name "${options.index}"`, {
        hint: 'Give the name of one index or alias: no spaces and none of / \\ * ? " < > | , #.',
      });
    this.#options = options;
    if (options.authEnv !== undefined) {
      const value = (options.env ?? process.env)[options.authEnv];
      if (value === undefined || value === '')
        throw new ConfigError(`the environment variable ${options.authEnv} (OpenSearch credentials) is not set`, {
          hint: `Set ${options.authEnv} to user:password or to a full Authorization value (e.g. "ApiKey ...").`,
        });
      this.#authorization = authorizationValue(value, 'Basic');
    }
  }

  get description(): string {
    return `OpenSearch index ${this.#options.index} at ${new URL(this.#options.url).origin}`;
  }

  async search(query: string, k: number): Promise<RetrievedPassage[]> {
    if (!Number.isInteger(k) || k < 1) throw new LlmkbError(`k must be a positive integer, not ${k}`, { hint: 'Ask for 1 passage or more (-k N).' });
    const o = this.#options;
    const textField = o.textField ?? 'text';
    const endpoint = `${o.url.replace(/\/+$/, '')}/${encodeURIComponent(o.index)}/_search`;
    const body = { size: k, query: { match: { [textField]: query } } };
    const limit = maxReplyBytes(o.env);
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.#authorization === undefined ? {} : { authorization: this.#authorization }),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(o.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw new ModelCallError(`OpenSearch at ${new URL(o.url).origin} cannot be reached: ${error instanceof Error ? error.message : String(error)}`, {
        retryable: true,
        hint: 'Check the URL and that the cluster is running.',
      });
    }
    const raw = await readLimitedText(response, limit, `OpenSearch _search on index ${o.index}`);
    if (!response.ok) {
      let reason = raw.slice(0, 300);
      try {
        const e = JSON.parse(raw) as { error?: { type?: string; reason?: string } | string };
        if (typeof e.error === 'object' && e.error !== null) reason = `${e.error.type ?? 'error'}: ${e.error.reason ?? ''}`;
        else if (typeof e.error === 'string') reason = e.error;
      } catch {
        // not JSON: the start of the body is the reason
      }
      const hint =
        response.status === 401 || response.status === 403
          ? `Check the credentials${o.authEnv === undefined ? ' (none were sent: set authEnv)' : ` in ${o.authEnv}`}.`
          : response.status === 404
            ? `Check the index name "${o.index}".`
            : undefined;
      throw new ModelCallError(`OpenSearch _search on index ${o.index} failed with HTTP ${response.status}: ${reason}`, {
        retryable: response.status === 429 || response.status >= 500,
        ...(hint === undefined ? {} : { hint }),
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new ModelCallError(`OpenSearch _search on index ${o.index} returned a body that is not JSON`, { retryable: false, hint: SHAPE_HINT });
    }
    const checked = responseSchema.safeParse(json);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      const field = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('') || '(the body)';
      throw new ModelCallError(`OpenSearch _search on index ${o.index} returned an unexpected body: ${field}: ${issue.message}`, {
        retryable: false,
        hint: SHAPE_HINT,
      });
    }
    const parsed = checked.data;
    const number = (source: Record<string, unknown>, field: string | undefined): number | undefined => {
      if (field === undefined) return undefined;
      const v = source[field];
      return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
    };
    // A hit without text (null, or no such field) is skipped with a note; when no hit has text, the field is the wrong one.
    const withText = parsed.hits.hits.filter((hit) => typeof hit._source?.[textField] === 'string');
    const skipped = parsed.hits.hits.filter((hit) => !withText.includes(hit));
    if (skipped.length > 0 && withText.length === 0)
      throw new ModelCallError(`OpenSearch hit ${skipped[0]!._id} has no text field "${textField}" in _source (nor has any of the ${skipped.length} hits)`, {
        retryable: false,
        hint: TEXT_FIELD_HINT,
      });
    if (skipped.length > 0 && !this.#noted) {
      this.#noted = true;
      (o.onNote ?? ((line: string) => process.stderr.write(`${escapeControls(line)}\n`)))(
        `note: OpenSearch index ${o.index}: hit ${skipped[0]!._id} has no text in field "${textField}" (${valueKind(skipped[0]!._source?.[textField])}): skipped (${skipped.length} of ${parsed.hits.hits.length} hits of this search; said once). If the passages are in another field, ${TEXT_FIELD_HINT.charAt(0).toLowerCase()}${TEXT_FIELD_HINT.slice(1)}`,
      );
    }
    return withText.map((hit, i) => {
      const source = hit._source ?? {};
      const text = source[textField] as string;
      const docIdValue = o.docIdField === undefined ? hit._id : source[o.docIdField];
      const page = number(source, o.pageField);
      const start = number(source, o.startField);
      const end = number(source, o.endField);
      return {
        rank: i + 1,
        score: hit._score ?? 0,
        text,
        docId: typeof docIdValue === 'string' || typeof docIdValue === 'number' ? String(docIdValue) : hit._id,
        source: o.index,
        ...(page === undefined ? {} : { page, pageEnd: page }),
        ...(start === undefined ? {} : { start }),
        ...(end === undefined ? {} : { end }),
      };
    });
  }
}
