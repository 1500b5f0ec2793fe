/**
 * Secrets never leave the process: a model spec, config entry, study endpoint or OLLAMA_HOST with
 * a user name or password in its URL is refused (exit 2, the URL shown without them) before any
 * label, file or store row is made; a credential read from an environment variable is sent only
 * in the Authorization header, and what a server echoes back is redacted from every message
 * (OpenAI-compatible servers and OpenSearch, against real servers on 127.0.0.1); `--auth-env`
 * never echoes a value that is not a variable name.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { loadConfig } from '../src/config/config.js';
import { OpenSearchRetriever } from '../src/corpus/opensearch-retriever.js';
import { InputFileError, LlmkbError, ModelCallError, ModelSpecError } from '../src/errors.js';
import { requestJson } from '../src/providers/openai-compatible/http-client.js';
import { parseModelSpec } from '../src/providers/model-spec.js';
import { authorizationValue, redactSecrets, registerSecret } from '../src/secrets.js';
import { loadStudy } from '../src/sweep/study.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const dir = tempDir('llmkb-secrets-');

/**
 * A misbehaving server: answers every request with `status` and an error body that quotes the
 * request's Authorization header (as some proxies and OpenSearch's security plugin do), and
 * records the headers it got.
 */
async function startEchoServer(
  status: number,
  shape: 'openai' | 'opensearch',
): Promise<{ url: string; authorizations: Array<string | undefined>; close(): Promise<void> }> {
  const authorizations: Array<string | undefined> = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      authorizations.push(req.headers.authorization);
      const echoed = `request with header Authorization: ${req.headers.authorization ?? '(none)'} refused`;
      const body =
        shape === 'openai'
          ? { error: { message: echoed, type: 'invalid_request_error' } }
          : { error: { root_cause: [], type: 'security_exception', reason: echoed }, status };
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Every file under `root` whose bytes hold `needle`. */
function filesHolding(root: string, needle: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => readFileSync(file).includes(needle));
}

describe('redactSecrets: what has the shape of a credential, and every registered secret', () => {
  it('takes out URL credentials, Authorization and API-key header values, and scheme tokens', () => {
    assert.equal(redactSecrets('cannot reach http://alice:pw-1@127.0.0.1:8/v1/completions'), 'cannot reach http://***@127.0.0.1:8/v1/completions');
    // The last "@" before the path ends the credentials (a password may hold "@").
    assert.equal(redactSecrets('https://bob:p@ss@host/x'), 'https://***@host/x');
    assert.equal(redactSecrets('{"headers":{"authorization":"Bearer sk-abc123456789"}}'), '{"headers":{"authorization":"Bearer ***"}}');
    assert.equal(redactSecrets('Authorization: Basic dXNlcjpwYXNz\nnext'), 'Authorization: Basic ***\nnext');
    assert.equal(redactSecrets('x-api-key: k-998877 sent'), 'x-api-key: *** sent');
    assert.equal(redactSecrets('token was Bearer eyJhbGciOiJIUzI1NiJ9.e30.x'), 'token was Bearer ***');
  });

  it('leaves prose and names alone', () => {
    for (const text of [
      'Basic authentication failed',
      'expected a Bearer token',
      'export OPENAI_API_KEY=... in your shell',
      'http://127.0.0.1:8000/v1/org@v2/model',
      'the "apiKeyEnv" field',
    ]) {
      assert.equal(redactSecrets(text), text);
    }
  });

  it('takes out a registered secret wherever it appears; values under four characters are not registered', () => {
    registerSecret('Zq7-registered-secret');
    registerSecret('abc');
    assert.equal(redactSecrets('key Zq7-registered-secret, again Zq7-registered-secret; abc'), 'key ***, again ***; abc');
  });

  it('authorizationValue: user:password as HTTP Basic (base64), a whole Authorization value as it is; all of it registered', () => {
    assert.equal(authorizationValue('reader:Pw-basic-41', 'Basic'), 'Basic cmVhZGVyOlB3LWJhc2ljLTQx');
    assert.equal(authorizationValue('sk-bearer-key-52', 'Bearer'), 'Bearer sk-bearer-key-52');
    assert.equal(authorizationValue('Basic c3ZjOlB3LXdob2xlLTc3', 'Bearer'), 'Basic c3ZjOlB3LXdob2xlLTc3');
    assert.equal(redactSecrets('reader:Pw-basic-41 cmVhZGVyOlB3LWJhc2ljLTQx sk-bearer-key-52 c3ZjOlB3LXdob2xlLTc3'), '*** *** *** ***');
  });

  it('an LlmkbError never holds one in its message or hint', () => {
    registerSecret('hint-secret-3141');
    const error = new LlmkbError('server said http://u:v@h/ and hint-secret-3141', { hint: 'retry without hint-secret-3141' });
    assert.equal(error.message, 'server said http://***@h/ and ***');
    assert.equal(error.hint, 'retry without ***');
  });
});

describe('a user name or password in a model URL is refused everywhere (exit 2), shown without them', () => {
  it('every server spec form, a second replica, and OLLAMA_HOST', () => {
    const specs = [
      'vllm:http://alice:SECRET-1@127.0.0.1:8000/v1/m',
      'openai-compatible:https://bob@h:1/v1/m',
      'llamacpp:http://127.0.0.1:1/v1,http://c:SECRET-1@127.0.0.1:2/v1/m',
      'tei:http://d:SECRET-1@127.0.0.1:8080/cross-encoder/nli',
      'vllm-score:http://e:SECRET-1@127.0.0.1:8000/v1/x',
    ];
    for (const spec of specs) {
      assert.throws(
        () => parseModelSpec(spec),
        (e: unknown) =>
          e instanceof ModelSpecError &&
          e.exitCode === 2 &&
          !e.message.includes('SECRET-1') &&
          /holds a user name or password/.test(e.message) &&
          /apiKeyEnv/.test(e.hint ?? ''),
        spec,
      );
    }
    assert.throws(
      () => parseModelSpec('ollama:llama3.1', { OLLAMA_HOST: 'u:SECRET-1@127.0.0.1:11434' }),
      (e: unknown) => e instanceof ModelSpecError && /OLLAMA_HOST "http:\/\/\*\*\*@127\.0\.0\.1:11434"/.test(e.message),
    );
    // An "@" in the path is no credential.
    assert.equal(parseModelSpec('vllm:http://127.0.0.1:8000/v1/org@v2/m').provider, 'openai-compatible');
  });

  it('a config entry: refused naming the file and field', () => {
    const file = join(dir, 'creds.config.json');
    writeFileSync(file, JSON.stringify({ model: 'gguf:./m.gguf', judge: { spec: 'vllm:http://j:SECRET-2@127.0.0.1:9/v1/judge', concurrency: 4 } }));
    assert.throws(
      () => loadConfig(file),
      (e: unknown) => e instanceof LlmkbError && e.exitCode === 2 && e.message.includes(`${file} (field "judge.spec")`) && !e.message.includes('SECRET-2'),
    );
  });

  it('a study: an endpoint, a model spec and a role, each with its line and field', () => {
    const study = (name: string, text: string) => {
      const file = join(dir, name);
      writeFileSync(file, text);
      return () => loadStudy(file);
    };
    const endpoint = study(
      'endpoint.yaml',
      'models:\n  - label: a\n    spec: vllm:http://127.0.0.1:9/v1/m\n    endpoints:\n      - http://127.0.0.1:9/v1\n      - http://u:SECRET-3@127.0.0.1:10/v1\n',
    );
    assert.throws(
      endpoint,
      (e: unknown) => e instanceof InputFileError && e.line === 6 && e.field === 'models.0.endpoints.1' && e.exitCode === 2 && !e.message.includes('SECRET-3'),
    );
    const spec = study('spec.yaml', 'models:\n  - label: a\n    spec: vllm:http://u:SECRET-3@127.0.0.1:9/v1/m\n');
    assert.throws(spec, (e: unknown) => e instanceof InputFileError && e.line === 3 && e.field === 'models.0.spec' && !e.message.includes('SECRET-3'));
    const role = study(
      'role.yaml',
      'models:\n  - label: a\n    spec: vllm:http://127.0.0.1:9/v1/m\njudge: { spec: "openai-compatible:http://u:SECRET-3@127.0.0.1:9/v1/j" }\n',
    );
    assert.throws(role, (e: unknown) => e instanceof InputFileError && e.line === 4 && e.field === 'judge' && !e.message.includes('SECRET-3'));
  });

  it('complete and eval (the built CLI): exit 2 before any file, label or store row holds the password', async () => {
    const cwd = tempDir('llmkb-secrets-cli-');
    const spec = 'vllm:http://alice:PW-SECRET-4242@127.0.0.1:9/v1/m';
    const complete = await llmkb(['--store', 'store.sqlite', 'complete', '--model', spec, 'hi'], { cwd });
    assert.equal(complete.code, 2, complete.stderr);
    assert.match(complete.stderr, /http:\/\/\*\*\*@127\.0\.0\.1:9/);
    const evaluate = await llmkb(['--store', 'store.sqlite', 'eval', '--quick', '--model', spec, '--out', 'results', '--data', 'data'], { cwd });
    assert.equal(evaluate.code, 2, evaluate.stderr);
    writeFileSync(join(cwd, 'q.tsv'), 'q1\twho wrote hamlet\tknowledge\tanswer\n');
    const roleFlag = await llmkb(['--store', 'store.sqlite', 'conner', 'generate', 'q.tsv', '--model', spec, '-o', 'g.jsonl'], { cwd });
    assert.equal(roleFlag.code, 2, roleFlag.stderr);
    for (const r of [complete, evaluate, roleFlag]) assert.ok(!`${r.stdout}${r.stderr}`.includes('PW-SECRET-4242'), r.stderr);
    assert.deepEqual(filesHolding(cwd, 'PW-SECRET-4242'), []);
    assert.ok(!existsSync(join(cwd, 'results')));
  });
});

describe('what a server echoes back is redacted (real servers on 127.0.0.1)', () => {
  let openai: Awaited<ReturnType<typeof startEchoServer>>;
  let opensearch: Awaited<ReturnType<typeof startEchoServer>>;
  before(async () => {
    openai = await startEchoServer(401, 'openai');
    opensearch = await startEchoServer(401, 'opensearch');
  });
  after(async () => {
    await openai.close();
    await opensearch.close();
  });

  const policy = (apiKey: string) => ({ apiKey, retryableStatus: new Set<number>(), isContextOverflow: () => false, unreachableHint: () => '', shapeHint: '' });

  it('an OpenAI-compatible 401 quoting the Bearer key: the message holds neither the key nor its header value', async () => {
    const error = await requestJson(`${openai.url}/v1`, '/completions', {}, z.object({}), {}, policy('sk-live-echoed-7781')).catch((e: unknown) => e);
    assert.ok(error instanceof ModelCallError);
    assert.equal(openai.authorizations.at(-1), 'Bearer sk-live-echoed-7781');
    assert.match(error.message, /HTTP 401: request with header Authorization: Bearer \*\*\* refused/);
    assert.ok(!error.message.includes('sk-live-echoed-7781'));
  });

  it('apiKeyEnv holding a whole Authorization value ("Basic …") is sent as it is, and redacted when echoed', async () => {
    const basic = `Basic ${Buffer.from('svc:Pw-Echo-99').toString('base64')}`;
    const error = await requestJson(`${openai.url}/v1`, '/completions', {}, z.object({}), {}, policy(basic)).catch((e: unknown) => e);
    assert.equal(openai.authorizations.at(-1), basic);
    assert.ok(error instanceof ModelCallError);
    assert.match(error.message, /Authorization: \*\*\* refused/);
    assert.ok(!error.message.includes(basic.slice(6)), error.message);
  });

  it('OpenSearch with user:password from the variable: a 401 quoting the Basic header is redacted', async () => {
    const retriever = new OpenSearchRetriever({ url: opensearch.url, index: 'passages', authEnv: 'OS_AUTH', env: { OS_AUTH: 'reader:Os-Secret-123' } });
    const error = await retriever.search('finches', 3).catch((e: unknown) => e);
    assert.ok(error instanceof ModelCallError);
    assert.equal(opensearch.authorizations.at(-1), `Basic ${Buffer.from('reader:Os-Secret-123').toString('base64')}`);
    assert.match(error.message, /HTTP 401: security_exception: request with header Authorization: Basic \*\*\* refused/);
    assert.ok(!error.message.includes(Buffer.from('reader:Os-Secret-123').toString('base64')));
  });

  it('the CLI: complete with a key from apiKeyEnv prints no part of it, and the store holds none', async () => {
    const cwd = tempDir('llmkb-secrets-echo-');
    writeFileSync(join(cwd, 'llmkb.config.json'), JSON.stringify({ model: { spec: `vllm:${openai.url}/v1/m`, apiKeyEnv: 'TEST_ECHO_KEY', maxRetries: 0 } }));
    const r = await llmkb(['--store', 'store.sqlite', 'complete', 'hi'], { cwd, env: { TEST_ECHO_KEY: 'sk-cli-echoed-5150' } });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /Bearer \*\*\*/);
    assert.ok(!`${r.stdout}${r.stderr}`.includes('sk-cli-echoed-5150'));
    assert.deepEqual(filesHolding(cwd, 'sk-cli-echoed-5150'), []);
  });

  it('the CLI: corpus search on a remote corpus whose server quotes the Basic header prints no part of the credentials', async () => {
    const store = join(dir, 'echo-remote.sqlite');
    const add = await llmkb([
      '--store',
      store,
      'corpus',
      'add-remote',
      'echoing',
      '--opensearch',
      opensearch.url,
      '--index',
      'passages',
      '--auth-env',
      'TEST_OS_ECHO',
    ]);
    assert.equal(add.code, 0, add.stderr);
    const r = await llmkb(['--store', store, 'corpus', 'search', 'echoing', 'finches'], { env: { TEST_OS_ECHO: 'reader:Os-Cli-Secret-77' } });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /HTTP 401: security_exception: request with header Authorization: Basic \*\*\* refused/);
    for (const part of ['Os-Cli-Secret-77', Buffer.from('reader:Os-Cli-Secret-77').toString('base64')])
      assert.ok(!`${r.stdout}${r.stderr}`.includes(part), r.stderr);
  });

  it('corpus add-remote --auth-env with credentials instead of a name: exit 2, the value not echoed', async () => {
    const r = await llmkb([
      '--store',
      join(dir, 'remote.sqlite'),
      'corpus',
      'add-remote',
      'r',
      '--opensearch',
      opensearch.url,
      '--index',
      'passages',
      '--auth-env',
      'reader:Os-Secret-456',
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--auth-env takes the NAME of an environment variable/);
    assert.ok(!`${r.stdout}${r.stderr}`.includes('Os-Secret-456'), r.stderr);
  });
});
