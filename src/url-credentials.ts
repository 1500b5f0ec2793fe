/**
 * Credentials in a URL are refused wherever llmkb takes an address (a model spec, a study's
 * `endpoints`, `OLLAMA_HOST`): a spec becomes run labels, result file names, summaries, reports,
 * store rows and messages, and a password in it would reach all of them. Credentials come from
 * an environment variable instead (`apiKeyEnv`), which is read when the model is created and
 * sent only in the Authorization header (../docs/security.md).
 */
import { ModelSpecError } from './errors.js';
import { redactSecrets } from './secrets.js';

/** `scheme://` followed by an authority holding `@` (a user name, with or without a password). */
const URL_WITH_USERINFO = /\b[a-z][a-z0-9+.-]*:\/\/[^/\s?#"'<>]*@/i;

export const CREDENTIALS_HINT =
  'Remove "user:password@" from the URL. Put the credential in an environment variable and name the variable with "apiKeyEnv" in the model\'s entry (llmkb.config.json or the study file): its value goes into the Authorization header after "Bearer ", or alone when it already starts with "Basic " (then the base64 of user:password) or "Bearer ".';

/**
 * What is wrong with `text` (a spec, a URL, a list of URLs) when a URL in it holds a user name or
 * password, with the credentials taken out; undefined when none does. `what` names it in the
 * message ("the model spec", "OLLAMA_HOST").
 */
export function credentialsProblem(text: string, what: string): string | undefined {
  if (!URL_WITH_USERINFO.test(text)) return undefined;
  return `${what} "${redactSecrets(text)}" holds a user name or password in a URL; llmkb does not keep credentials where they would reach run labels, file names, reports, the store or messages`;
}

/** Refuses `text` when a URL in it holds credentials (see `credentialsProblem`): exit 2, and how to pass them instead. */
export function checkNoCredentials(text: string, what: string): void {
  const problem = credentialsProblem(text, what);
  if (problem !== undefined) throw new ModelSpecError(problem, { hint: CREDENTIALS_HINT });
}
