/**
 * `llmkb corpus` and `data from-corpus` on bad input, through the built binary: each case ends
 * in a clear error (file, line or field, a `hint:` line, a documented exit code) or in a result
 * that says what happened, never in a silent loss.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

function workspace(): { dir: string; run: (...args: string[]) => ReturnType<typeof llmkb> } {
  const dir = tempDir('llmkb-corpus-bad-');
  const store = join(dir, 'store.sqlite');
  return { dir, run: (...args: string[]) => llmkb(['--store', store, 'corpus', ...args], { cwd: dir }) };
}

function write(path: string, content: string | Buffer): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

describe('corpus add: file names and ids', () => {
  it('adds two folders that both hold same.txt, naming each document with its folder', async () => {
    const { dir, run } = workspace();
    write(join(dir, 'a', 'same.txt'), 'Finches on the Galapagos islands have beaks of many shapes.');
    write(join(dir, 'b', 'same.txt'), 'Pigeons of every breed descend from the rock pigeon.');
    const add = await run('add', 'two', join(dir, 'a'), join(dir, 'b'), '--json');
    assert.equal(add.code, 0, add.stderr);
    assert.equal((JSON.parse(add.stdout) as { documents: { added: number } }).documents.added, 2);
    const hits = JSON.parse((await run('search', 'two', 'finches pigeons', '--json')).stdout) as { docId: string }[];
    assert.deepEqual(hits.map((h) => h.docId).sort(), [join('a', 'same.txt'), join('b', 'same.txt')]);
  });

  it('names the file that already holds a document id when a later add brings the same id', async () => {
    const { dir, run } = workspace();
    const first = write(join(dir, 'a', 'same.txt'), 'Finches on the Galapagos islands have beaks of many shapes.');
    write(join(dir, 'b', 'same.txt'), 'Pigeons of every breed descend from the rock pigeon.');
    assert.equal((await run('add', 'two', join(dir, 'a'))).code, 0);
    const second = await run('add', 'two', join(dir, 'b'));
    assert.equal(second.code, 2);
    assert.match(second.stderr, new RegExp(`b/same\\.txt: document id "same\\.txt" is already in corpus "two" from ${first.replace(/[.]/g, '\\.')}\\n`));
    assert.match(second.stderr, /hint: .*add both folders in one `llmkb corpus add`/);
    // Both folders in one add: the first document is renamed, the second added.
    const both = await run('add', 'two', join(dir, 'a'), join(dir, 'b'), '--json');
    assert.equal(both.code, 0, both.stderr);
    const hits = JSON.parse((await run('search', 'two', 'finches pigeons', '--json')).stdout) as { docId: string }[];
    assert.deepEqual(hits.map((h) => h.docId).sort(), [join('a', 'same.txt'), join('b', 'same.txt')]);
  });
});

describe('corpus add: a file that fails after others were added', () => {
  it('says which files the corpus keeps and which were not added, and a rerun completes the add', async () => {
    const { dir, run } = workspace();
    const one = write(join(dir, 'c', '1.txt'), 'The elephant is reckoned to be the slowest breeder of all known animals.');
    const csv = write(join(dir, 'c', '2.csv'), 'filename,content\nx.txt,"Barnacles cling to rocks."\n');
    const three = write(join(dir, 'c', '3.txt'), 'Finches on the Galapagos islands have beaks of many shapes.');
    const add = await run('add', 'part', join(dir, 'c'));
    assert.equal(add.code, 2);
    assert.match(add.stderr, /2\.csv:1 \(field "article"\): no text column "article"/);
    const hint = /\n {2}hint: (.*)\n/.exec(add.stderr)?.[1] ?? '';
    assert.ok(hint.startsWith('Name the column with the document text with --text-column. '), hint);
    assert.ok(
      hint.includes(
        `Corpus "part" keeps the 1 file this command added before it (${one}); the file and the 1 file after it (${three}) were not added. Fix the file and run the same command again`,
      ),
      hint,
    );
    assert.match((await run('list')).stdout, /^part {2}1 files {2}1 documents /m, 'what the hint says is what the corpus holds');

    writeFileSync(csv, 'filename,article\nx.txt,"Barnacles cling to rocks."\n');
    const again = await run('add', 'part', join(dir, 'c'), '--json');
    assert.equal(again.code, 0, again.stderr);
    const report = JSON.parse(again.stdout) as { unchangedFiles: number; documents: { added: number } };
    assert.deepEqual([report.unchangedFiles, report.documents.added], [1, 2]);

    // A file of the corpus that changes into one that cannot be read: its earlier version goes, and the hint says so.
    writeFileSync(csv, 'filename,article\nx.txt,"unclosed\n');
    const broken = await run('add', 'part', csv);
    assert.equal(broken.code, 2);
    assert.match(
      broken.stderr,
      /hint: .*The file was not added, and its earlier version was taken out of the corpus; corpus "part" is otherwise unchanged\.\n/,
    );
    assert.match((await run('list')).stdout, /^part {2}2 files {2}2 documents /m);
  });
});

describe('corpus add: symbolic links in a folder', () => {
  it('lists every link it did not follow (to a file, to a folder, dangling), and adds a link given as a path', async () => {
    const { dir, run } = workspace();
    write(join(dir, 'sl', 'own.txt'), 'Finches on the Galapagos islands have beaks of many shapes.');
    const real = write(join(dir, 'real.txt'), 'Pigeons of every breed descend from the rock pigeon.');
    write(join(dir, 'realdir', 'x.txt'), 'Barnacles cling to the rocks of the shore.');
    symlinkSync(real, join(dir, 'sl', 'link.txt'));
    symlinkSync(join(dir, 'nowhere.txt'), join(dir, 'sl', 'dangling.txt'));
    symlinkSync(join(dir, 'realdir'), join(dir, 'sl', 'dirlink'));
    const add = await run('add', 'links', join(dir, 'sl'));
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /documents \+1 added/);
    const listed = [join(dir, 'sl', 'dangling.txt'), join(dir, 'sl', 'dirlink'), join(dir, 'sl', 'link.txt')];
    assert.ok(
      add.stdout.includes(
        `not followed: 3 symbolic links in the folders (give a link's target, or the link itself, as a path to add it):\n${listed.map((l) => `  ${l}\n`).join('')}`,
      ),
      add.stdout,
    );
    const json = JSON.parse((await run('add', 'links', join(dir, 'sl'), '--json')).stdout) as { symlinks: string[] };
    assert.deepEqual(json.symlinks, listed);
    const byPath = await run('add', 'links', join(dir, 'sl', 'link.txt'), '--json');
    assert.equal((JSON.parse(byPath.stdout) as { documents: { added: number } }).documents.added, 1);
  });
});

describe('corpus add: bytes that are not UTF-8', () => {
  const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');
  const cases: Array<[string, Buffer, number]> = [
    ['bad.csv', latin1('filename,article\na.txt,"Darwin sailed on the Beagle."\nb.txt,"Le caf\u00e9 de la gare."\n'), 3],
    ['bad.tsv', latin1('filename\tarticle\na.txt\tThe na\u00efve finch.\n'), 2],
    ['bad.jsonl', latin1('{"id":"a","text":"fine"}\n{"id":"b","text":"caf\u00e9"}\n'), 2],
    ['bad.json', latin1('[{"id":"a",\n"text":"caf\u00e9"}]\n'), 2],
    ['bad.txt', latin1('First line.\nSecond line.\nThird line with a caf\u00e9.\n'), 3],
  ];
  for (const [name, bytes, line] of cases) {
    it(`refuses ${name} with the file and the line of the first bad byte`, async () => {
      const { dir, run } = workspace();
      const file = write(join(dir, name), bytes);
      const add = await run('add', 'enc', file);
      assert.equal(add.code, 2, add.stderr);
      assert.ok(add.stderr.includes(`llmkb: error: ${file}:${line}: not UTF-8 text`), add.stderr);
      assert.match(add.stderr, /hint: Corpus files are read as UTF-8: convert the file first, e\.g\. `iconv -f latin1 -t utf-8 FILE > FILE\.utf8`/);
      assert.match((await run('list')).stdout, /^no corpora yet$/m, 'nothing indexed');
    });
  }

  it('reads a large UTF-8 CSV whose multi-byte characters fall across read chunks', async () => {
    const { dir, run } = workspace();
    const row = (i: number): string => `d${i},"Caf\u00e9 \u20ac${i} \u{1d11e} na\u00efve ${'x'.repeat(i % 7)}"`;
    const file = write(join(dir, 'big.csv'), `filename,article\n${Array.from({ length: 6000 }, (_, i) => row(i)).join('\n')}\n`);
    const add = await run('add', 'big', file, '--json');
    assert.equal(add.code, 0, add.stderr);
    assert.equal((JSON.parse(add.stdout) as { documents: { added: number } }).documents.added, 6000);
    assert.match(JSON.parse((await run('search', 'big', 'café', '--json', '-k', '1')).stdout)[0].text, /^Café €\d+ 𝄞 naïve/);
  });
});

describe('corpus add: nothing readable', () => {
  it('refuses a new corpus of unreadable PDFs only, as it refuses an empty text file, naming each PDF and why', async () => {
    const { dir, run } = workspace();
    const broken = write(join(dir, 'pdfs', 'broken.pdf'), '%PDF-1.7\ntruncated\n');
    const add = await run('add', 'pdfs', join(dir, 'pdfs'));
    assert.equal(add.code, 2, add.stdout);
    assert.ok(add.stderr.includes(`llmkb: error: no text to index in ${broken} (corrupt): PDF that could not be read\n`), add.stderr);
    assert.match(add.stderr, /hint: .*decrypt encrypted ones.*Corpus "pdfs" was not created\.\n/);
    assert.match((await run('list')).stdout, /^no corpora yet$/m);
    const empty = await run('add', 'empty', write(join(dir, 'empty.txt'), ''));
    assert.equal(empty.code, 2, 'the same exit code as an empty text file');
  });
});

describe('corpus search: a query without words', () => {
  it('refuses an empty, blank or punctuation-only query (exit 2)', async () => {
    const { dir, run } = workspace();
    assert.equal((await run('add', 'notes', write(join(dir, 'a.txt'), 'Finches on the Galapagos islands have beaks of many shapes.'))).code, 0);
    for (const query of ['', '   ', '?!']) {
      const r = await run('search', 'notes', query);
      assert.equal(r.code, 2, `${JSON.stringify(query)}: ${r.stdout}`);
      assert.ok(r.stderr.startsWith(`llmkb: error: the search query ${JSON.stringify(query)} has no word to search for\n  hint: `), r.stderr);
    }
  });
});

describe('corpus embed and dense search: the wrong corpus or model', () => {
  it('says a remote corpus is not embedded here, instead of "no corpus named"', async () => {
    const { run } = workspace();
    assert.equal((await run('add-remote', 'wiki', '--opensearch', 'http://127.0.0.1:9', '--index', 'passages')).code, 0);
    const embed = await run('embed', 'wiki', '--embedder', 'openai:text-embedding-3-small');
    assert.equal(embed.code, 2);
    assert.match(
      embed.stderr,
      /^llmkb: error: corpus "wiki" is an OpenSearch index: its passages live in the cluster, and llmkb does not embed them\n {2}hint: .*llmkb corpus search wiki QUERY/,
    );
  });

  it('refuses a model that does not embed (a mock: replies file) before any work, with a hint', async () => {
    const { dir, run } = workspace();
    assert.equal((await run('add', 'notes', write(join(dir, 'a.txt'), 'Finches on the Galapagos islands have beaks of many shapes.'))).code, 0);
    const replies = write(join(dir, 'replies.jsonl'), '{"default": true, "reply": " x"}\n');
    for (const args of [
      ['embed', 'notes', '--embedder', `mock:${replies}`],
      ['search', 'notes', 'finches', '--mode', 'dense', '--embedder', `mock:${replies}`],
    ]) {
      const r = await run(...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(
        r.stderr,
        /^llmkb: error: mock model \S+replies\.jsonl is not an embedding model \(it provides text-generation\)\n {2}hint: Give an embedding model with --embedder SPEC/,
      );
    }
  });
});

describe('corpus add-remote over a name already registered', () => {
  it('refuses to replace it (and drop its credentials) without --replace; the same settings again are a no-op', async () => {
    const { run } = workspace();
    const first = ['add-remote', 'wiki', '--opensearch', 'http://127.0.0.1:9', '--index', 'passages', '--auth-env', 'OS_AUTH'];
    assert.equal((await run(...first)).code, 0);
    const other = await run('add-remote', 'wiki', '--opensearch', 'http://127.0.0.1:9', '--index', 'other');
    assert.equal(other.code, 2);
    assert.match(
      other.stderr,
      /^llmkb: error: corpus "wiki" is already registered: OpenSearch index passages at http:\/\/127\.0\.0\.1:9 \(credentials from \$OS_AUTH\)\n {2}hint: Give --replace .*--auth-env OS_AUTH to keep its credentials/,
    );
    assert.match((await run('list')).stdout, /^wiki {2}OpenSearch index passages at http:\/\/127\.0\.0\.1:9 \(credentials from \$OS_AUTH\)$/m, 'unchanged');
    const same = await run(...first);
    assert.equal(same.code, 0, same.stderr);
    const replaced = await run('add-remote', 'wiki', '--opensearch', 'http://127.0.0.1:9', '--index', 'other', '--replace');
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.equal(
      replaced.stdout,
      'corpus "wiki": OpenSearch index other at http://127.0.0.1:9 (no credentials) (replaces OpenSearch index passages at http://127.0.0.1:9 (credentials from $OS_AUTH))\n',
    );
  });
});

describe('corpus add killed part way', () => {
  it('leaves a corpus that list, search and stats call incomplete, naming the command that completes it', async () => {
    const { dir, run } = workspace();
    const csv = write(
      join(dir, 'big.csv'),
      `filename,article\n${Array.from({ length: 25_000 }, (_, i) => `d${i},"Passage ${i} about finches and barnacles."`).join('\n')}\n`,
    );
    // Killed with SIGKILL once the first 10,000 documents are written (the progress line says so).
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, '..', 'bin', 'llmkb.js'), '--store', join(dir, 'store.sqlite'), 'corpus', 'add', 'big', csv],
      { env: { ...process.env, CI: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    await new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        if (/\.\.\. \S+big\.csv: 10000 documents/.test(err)) child.kill('SIGKILL');
      });
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`the add ended before it was killed (${code}): ${err}`))));
    });
    const warning = new RegExp(
      `corpus "big" is incomplete: an add of ${csv.replace(/[.]/g, '\\.')} started \\S+ did not finish \\(the process is gone\\); run \`llmkb corpus add big ${csv.replace(/[.]/g, '\\.')}\` again to complete it`,
    );
    const list = await run('list');
    assert.match(list.stdout, /^big {2}0 files {2}\d+ documents/m, 'part of the file is in the store');
    assert.match(list.stdout, new RegExp(`\\n {2}warning: ${warning.source}`));
    const search = await run('search', 'big', 'finches');
    assert.equal(search.code, 0, search.stderr);
    assert.match(search.stderr, new RegExp(`^warning: ${warning.source}`));
    assert.match((await run('stats', 'big')).stderr, warning);
    assert.equal((JSON.parse((await run('list', '--json')).stdout) as { unfinishedAdds: { running: boolean }[] }[])[0]!.unfinishedAdds[0]!.running, false);

    const again = await run('add', 'big', csv);
    assert.equal(again.code, 0, again.stderr);
    assert.match((await run('list')).stdout, /^big {2}1 files {2}25000 documents {2}25000 passages {2}\([^)]*\)\n$/, 'complete, and no warning');
    assert.equal((await run('search', 'big', 'finches')).stderr, '');
  });
});

describe('corpus messages end with a hint line', () => {
  it('a .json file that is not an array, JSON documents of the wrong shape, and passage settings that do not fit', async () => {
    const { dir, run } = workspace();
    const cases: Array<[string[], RegExp]> = [
      [
        ['add', 'c', write(join(dir, 'object.json'), '{"id": "a", "text": "one document"}')],
        /object\.json: expected a JSON array of objects, not an object\n {2}hint: A \.json corpus file holds an array of documents/,
      ],
      [
        ['add', 'c', write(join(dir, 'numbers.jsonl'), '{"id": "a", "text": 42}\n')],
        /numbers\.jsonl:1 \(field "text"\): the text must be a string, not number\n {2}hint: Put the document text in "text" as one string/,
      ],
      [
        ['add', 'c', write(join(dir, 'list.jsonl'), '["a", "b"]\n')],
        /list\.jsonl:1: expected a JSON object, not an array\n {2}hint: Each document is an object/,
      ],
      [
        ['add', 'c', write(join(dir, 'ids.jsonl'), '{"id": {"x": 1}, "text": "t"}\n')],
        /ids\.jsonl:1 \(field "id"\): the document id must be a string or a number\n {2}hint: /,
      ],
      [
        ['add', 'c', write(join(dir, 'ok.txt'), 'Some words.'), '--overlap-words', '500'],
        /overlap words must be an integer from 0 to 99 \(less than the passage words\), not 500\n {2}hint: Give --overlap-words below --passage-words \(100 here/,
      ],
      [['add-remote', 'r', '--opensearch', 'ftp://127.0.0.1:9', '--index', 'p'], /the OpenSearch URL must be http or https, not ftp:\n {2}hint: /],
      [['add-remote', 'r', '--opensearch', 'http://127.0.0.1:9', '--index', 'a b'], /invalid index name "a b"\n {2}hint: /],
    ];
    for (const [args, message] of cases) {
      const r = await run(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
    }
  });
});
