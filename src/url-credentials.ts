/**
 * Credentials in a URL are refused wherever llmkb takes an address (a model spec, a study's
 * `endpoints`, `OLLAMA_HOST`, `corpus add-remote --opensearch`): a spec becomes run labels, result
 * file names, summaries, reports, store rows and messages, and a password or key in it would reach
 * all of them. That covers a user name or password (`user:pass@`) and a query string: a base URL
 * takes none (llmkb appends the API's paths to it, so a query would be sent nowhere or become part
 * of the model name), and a key in one (`?api-key=...`) is a credential. Credentials come from an
 * environment variable instead (`apiKeyEnv`), which is read when the model is created and sent
 * only in the Authorization header (../docs/security.md).
 */
import { ModelSpecError } from './errors.js';
import { REDACTED, redactSecrets } from './secrets.js';

/**
 * `scheme://` followed by an authority holding `@` (a user name, with or without a password). A
 * tab or another control character may be part of a password: only a space, a line break, a
 * quote or a bracket ends the authority.
 */
const URL_WITH_USERINFO = /\b[a-z][a-z0-9+.-]*:\/\/[^/ \r\n?#"'<>]*@/i;

/** A URL in a text, up to a space, a line break, a quote or a bracket. */
const URL_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^ \r\n"'<>]*/gi;

/** Names of query parameters that carry a credential (compared without case, `-` and `_` alike). */
const CREDENTIAL_PARAMS =
  /^(?:x-)?(?:api-?key|key|token|access-?token|auth|auth-?token|authorization|password|passwd|pwd|pass|secret|client-?secret|sig|signature|code|session|sessionid|jwt|bearer|credential|credentials)$/i;

export const CREDENTIALS_HINT =
  'Remove "user:password@" and any query string ("?...") from the URL: a base URL takes neither. Put the credential in an environment variable and name the variable with "apiKeyEnv" in the model\'s entry (llmkb.config.json or the study file): its value goes into the Authorization header after "Bearer ", or alone when it already starts with "Basic " (then the base64 of user:password) or "Bearer ".';

/** `url` with every value of its query string (and a parameter without a value) shown as `***`. */
function withoutQueryValues(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq === -1 ? REDACTED : `${part.slice(0, eq)}=${REDACTED}`;
    });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

/** The names of credential-like parameters in the query strings of the URLs in `text`. */
function credentialParams(urls: readonly string[]): string[] {
  const names = new Set<string>();
  for (const url of urls) {
    const q = url.indexOf('?');
    if (q === -1) continue;
    for (const part of url.slice(q + 1).split('&')) {
      const eq = part.indexOf('=');
      let name = eq === -1 ? part : part.slice(0, eq);
      try {
        name = decodeURIComponent(name);
      } catch {
        // malformed percent-encoding: the name as written
      }
      if (CREDENTIAL_PARAMS.test(name.replace(/_/g, '-'))) names.add(name);
    }
  }
  return [...names];
}

/**
 * What is wrong with `text` (a spec, a URL, a list of URLs) when a URL in it holds a user name or
 * password or a query string, with the credentials and query values taken out; undefined when
 * none does. `what` names it in the message ("the model spec", "OLLAMA_HOST").
 */
export function credentialsProblem(text: string, what: string): string | undefined {
  const urls = text.match(URL_TEXT) ?? [];
  const withQuery = urls.filter((u) => u.includes('?'));
  if (!URL_WITH_USERINFO.test(text) && withQuery.length === 0) return undefined;
  const shown = redactSecrets(text.replace(URL_TEXT, (url) => withoutQueryValues(url)));
  if (URL_WITH_USERINFO.test(text))
    return `${what} "${shown}" holds a user name or password in a URL; llmkb does not keep credentials where they would reach run labels, file names, reports, the store or messages`;
  const names = credentialParams(withQuery);
  if (names.length > 0)
    return `${what} "${shown}" holds a credential in a URL's query string (${names.map((n) => `"${redactSecrets(n)}"`).join(', ')}); llmkb does not keep credentials where they would reach run labels, file names, reports, the store or messages`;
  return `${what} "${shown}" has a query string in a URL; a base URL takes none (llmkb appends the API's paths to it, and the spec becomes run labels, file names and store rows)`;
}

/** Refuses `text` when a URL in it holds credentials or a query string (see `credentialsProblem`): exit 2, and how to pass credentials instead. */
export function checkNoCredentials(text: string, what: string): void {
  const problem = credentialsProblem(text, what);
  if (problem !== undefined) throw new ModelSpecError(problem, { hint: CREDENTIALS_HINT });
}
