/**
 * Secrets never leave the process: every credential llmkb reads (an API key or an Authorization
 * value from the environment variable a config entry names) is registered here when it is read,
 * and `redactSecrets` takes it out of any text before that text becomes an error message, a log
 * line or a stored error. Besides the registered values, it takes out what has the shape of a
 * credential whatever its origin: the user name and password of a URL, the value of an
 * Authorization (or API key) header, and the token after `Basic`, `Bearer` or `ApiKey`, since a
 * server may echo credentials llmkb never saw (a proxy's, another client's).
 *
 * A registry for the whole process rather than per client: a server's text travels far from the
 * client that received it (a retry log, the run store, the CLI's last line), and every one of
 * those places must redact every credential, not only its own.
 */

/** What takes the place of a credential in a message. */
export const REDACTED = '***';

/**
 * Values shorter than this are not registered: redacting every occurrence of two or three
 * characters would garble messages, and so short a value protects nothing.
 */
const MIN_SECRET_LENGTH = 4;

const secrets = new Set<string>();
/** Registered values, longest first (a value that contains another is redacted whole). */
let ordered: string[] = [];
/** User names of registered `user:password` credentials, and the pattern that finds them as whole words. */
const names = new Set<string>();
let namePattern: RegExp | undefined;

/**
 * Registers a credential: from now on it never appears in a message of this process, in any of
 * the forms a server may echo it in: as it is, URL-encoded, in base64 (with and without padding);
 * `user:password` also as each part alone (a server may quote them apart: "user [alice] password
 * [...]"); an Authorization value (`Basic …`, `Bearer …`) also as its token, and a Basic token
 * also decoded (`alice:password`) and in its parts.
 */
export function registerSecret(value: string | undefined): void {
  if (value === undefined) return;
  const trimmed = value.trim();
  if (trimmed.length < MIN_SECRET_LENGTH || secrets.has(trimmed)) return;
  add(trimmed);
  const scheme = /^(Basic|Bearer|ApiKey|Token) +(\S+)$/i.exec(trimmed);
  if (scheme !== null) {
    registerSecret(scheme[2]);
    if (scheme[1]!.toLowerCase() === 'basic') {
      const decoded = Buffer.from(scheme[2]!, 'base64').toString('utf8');
      // Only a decoding that is text (a real Basic token) is a credential's form.
      if (Buffer.from(decoded, 'utf8').toString('base64').replace(/=+$/, '') === scheme[2]!.replace(/=+$/, '') && !/[\uFFFD\x00-\x08]/.test(decoded))
        registerSecret(decoded);
    }
    return;
  }
  const colon = trimmed.indexOf(':');
  if (colon !== -1) {
    registerName(trimmed.slice(0, colon));
    registerSecret(trimmed.slice(colon + 1));
  }
}

/**
 * The user name of a `user:password`: redacted as a whole word only, so a common name ("admin",
 * "elastic") does not garble the words that contain it.
 */
function registerName(value: string): void {
  const name = value.trim();
  if (name.length < MIN_SECRET_LENGTH || names.has(name)) return;
  names.add(name);
  const escaped = [...names]
    .sort((a, b) => b.length - a.length)
    .flatMap((n) => [n, encodeURIComponent(n)])
    .map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  namePattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${escaped.join('|')})(?![\\p{L}\\p{N}_])`, 'gu');
}

/** Adds `value` and its encodings to the registry. */
function add(value: string): void {
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  const colon = value.indexOf(':');
  const forms = [value, encodeURIComponent(value), base64, base64.replace(/=+$/, ''), Buffer.from(value, 'utf8').toString('base64url')];
  if (colon !== -1) forms.push(`${encodeURIComponent(value.slice(0, colon))}:${encodeURIComponent(value.slice(colon + 1))}`);
  for (const form of forms) if (form.length >= MIN_SECRET_LENGTH) secrets.add(form);
  ordered = [...secrets].sort((a, b) => b.length - a.length);
}

/**
 * The Authorization header value of a credential read from the environment: a value that already
 * is one (`Basic …`, `Bearer …`, `ApiKey …`) as it is, else `defaultScheme` and the value
 * (`user:password` for `Basic` is base64-encoded, as HTTP Basic requires). The raw value and the
 * header's token are registered.
 */
export function authorizationValue(credential: string, defaultScheme: 'Basic' | 'Bearer'): string {
  registerSecret(credential);
  const header = /^(Basic|Bearer|ApiKey) \S/.test(credential)
    ? credential
    : defaultScheme === 'Basic'
      ? `Basic ${Buffer.from(credential).toString('base64')}`
      : `Bearer ${credential}`;
  registerSecret(header.slice(header.indexOf(' ') + 1));
  return header;
}

/**
 * `scheme://user:password@host` → `scheme://***@host` (up to the last `@` before the path; a tab or
 * another control character in a password does not end it).
 */
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/ \r\n?#"'<>]*@/gi;

/** The value of a query parameter that carries a credential (`?api_key=…`, `&sig=…`). */
const QUERY_CREDENTIAL =
  /([?&](?:x[-_])?(?:api[-_]?key|key|token|access[-_]?token|auth[-_]?token|auth|password|passwd|pwd|secret|client[-_]?secret|sig|signature|code|jwt)=)[^&#\s"'<>]+/gi;

/** An Authorization or API key header and its value, as a header line or a JSON/query field. */
const AUTH_HEADER = /((?<![\w-])(?:proxy-)?(?:authorization|x-api-key|api-key)["']?\s*[:=]\s*["']?(?:(?:Basic|Bearer|ApiKey|Token) +)?)[^\s"',;}&]+/gi;

/**
 * The token after an authentication scheme. A plain word ("Basic authentication", "Bearer token")
 * is left alone: a token has at least eight characters and is not a lower-case word.
 */
const SCHEME_TOKEN = /\b(Basic|Bearer|ApiKey) +([A-Za-z0-9._~+/-]{8,}=*)/g;

/** `text` without any registered secret or anything shaped like a credential (see the module comment). */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  if (namePattern !== undefined) out = out.replace(namePattern, REDACTED);
  return out
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(QUERY_CREDENTIAL, `$1${REDACTED}`)
    .replace(AUTH_HEADER, `$1${REDACTED}`)
    .replace(SCHEME_TOKEN, (whole: string, scheme: string, token: string) => (/^[A-Z]?[a-z]+$/.test(token) ? whole : `${scheme} ${REDACTED}`));
}
