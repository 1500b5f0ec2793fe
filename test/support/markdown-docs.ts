/**
 * Reading the documentation as the docs tests check it: the Markdown pages (README.md and
 * docs/**), their links and heading anchors, their fenced blocks, and the `llmkb` command lines
 * inside shell blocks.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** README.md and every Markdown page under docs/, as paths relative to `root`. */
export function docPages(root: string): string[] {
  const pages = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk('docs');
  return pages.sort();
}

export interface FencedBlock {
  /** The info string's first word (`sh`, `json`, ...; empty when none). */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
}

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/;

/** The fenced code blocks of a page, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      body.push(lines[j]!);
    }
    blocks.push({ lang: open[3]!.toLowerCase(), line: i + 1, text: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** The page with its fenced blocks and inline code spans blanked out, line numbers kept: where links and headings are. */
export function proseOf(markdown: string): string {
  const lines = markdown.split('\n');
  for (const block of fencedBlocks(markdown)) {
    const end = block.line + block.text.split('\n').length;
    for (let k = block.line - 1; k <= end && k < lines.length; k++) lines[k] = '';
  }
  return lines.map((l) => l.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length))).join('\n');
}

export interface Link {
  /** The target as written, without its `#anchor`; empty for a link to an anchor of the same page. */
  path: string;
  anchor: string | undefined;
  line: number;
}

/** Inline links and images (`[text](target)`, `![alt](target)`) that point inside the repository: no scheme, not protocol-relative. */
export function relativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  proseOf(markdown)
    .split('\n')
    .forEach((text, i) => {
      for (const m of text.matchAll(/\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+"[^"]*")?\s*\)/g)) {
        const target = m[1]!.replace(/^<|>$/g, '');
        if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
        const hash = target.indexOf('#');
        links.push({
          path: decodeURIComponent(hash < 0 ? target : target.slice(0, hash)),
          anchor: hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1)),
          line: i + 1,
        });
      }
    });
  return links;
}

/**
 * GitHub's anchor for a heading's text: lower case, every character dropped that is not a
 * letter, mark, number, connector (`_`), hyphen or space, spaces made hyphens.
 */
export function headingSlug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page's headings get on GitHub; a repeated heading gets `-1`, `-2`, ... */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = markdown.split('\n');
  const prose = proseOf(markdown).split('\n');
  for (const [i, line] of lines.entries()) {
    if (prose[i] === '' && line !== '') continue; // inside a fenced block
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`/g, '')
      .replace(/\*\*?|~~/g, '');
    const slug = headingSlug(text);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Shell blocks: what a reader types into a terminal. */
export function isShellBlock(block: FencedBlock): boolean {
  return ['sh', 'bash', 'shell', 'zsh'].includes(block.lang);
}

/** TypeScript blocks that are whole programs: they start with their imports. */
export function isProgramBlock(block: FencedBlock): boolean {
  return ['ts', 'typescript'].includes(block.lang) && /^import\b/.test(block.text.trimStart());
}

/**
 * What a block's first line says it needs that a machine without network or servers lacks
 * (`# needs: a vLLM server on localhost:8000`, `// needs: ...` in a program); undefined for a block that runs offline.
 */
export function blockNeeds(block: FencedBlock): string | undefined {
  return /^\s*(?:#|\/\/)\s*needs:\s*(.+)$/.exec(block.text.split('\n')[0] ?? '')?.[1]?.trim();
}

export interface ShellToken {
  /** The word with its quotes removed, or an operator (`|`, `&&`, `;`, `>`, `\n`, ...). */
  text: string;
  op: boolean;
  /** 1-based line within the script. */
  line: number;
}

const OPERATORS = ['&&', '||', ';;', '<<-', '<<', '>>', '&>', '2>&1', '2>', '>&', '|', '&', ';', '(', ')', '<', '>'];

/**
 * A small shell tokenizer, enough for documentation: words with single, double and `$'...'`
 * quotes and backslash escapes, comments, line continuations, operators, and here-documents
 * (whose bodies are skipped).
 */
export function shellTokens(script: string): ShellToken[] {
  const tokens: ShellToken[] = [];
  const heredocs: string[] = [];
  let line = 1;
  let i = 0;
  const s = script;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '\\' && s[i + 1] === '\n') {
      i += 2;
      line++;
      continue;
    }
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '\n') {
      tokens.push({ text: '\n', op: true, line });
      line++;
      i++;
      // Skip the bodies of here-documents opened on the line that just ended.
      while (heredocs.length > 0) {
        const delimiter = heredocs.shift()!;
        while (i < s.length) {
          const end = s.indexOf('\n', i);
          const bodyLine = s.slice(i, end < 0 ? s.length : end);
          i = end < 0 ? s.length : end + 1;
          line++;
          if (bodyLine.replace(/^\t+/, '') === delimiter) break;
        }
      }
      continue;
    }
    if (c === '#') {
      while (i < s.length && s[i] !== '\n') i++;
      continue;
    }
    const op = OPERATORS.find((o) => s.startsWith(o, i));
    if (op) {
      tokens.push({ text: op, op: true, line });
      i += op.length;
      if (op === '<<' || op === '<<-') {
        const rest = /^\s*(['"]?)([\w.-]+)\1/.exec(s.slice(i));
        if (rest) {
          heredocs.push(rest[2]!);
          tokens.push({ text: rest[2]!, op: false, line });
          i += rest[0].length;
        }
      }
      continue;
    }
    let word = '';
    const startLine = line;
    while (i < s.length && !/[\s;&|()<>]/.test(s[i]!)) {
      const ch = s[i]!;
      if (ch === "'") {
        const end = s.indexOf("'", i + 1);
        word += s.slice(i + 1, end < 0 ? s.length : end);
        i = end < 0 ? s.length : end + 1;
      } else if (ch === '$' && s[i + 1] === "'") {
        let j = i + 2;
        while (j < s.length && s[j] !== "'") j += s[j] === '\\' ? 2 : 1;
        word += s
          .slice(i + 2, j)
          .replace(/\\n/g, '\n')
          .replace(/\\t/g, '\t')
          .replace(/\\(.)/g, '$1');
        i = j + 1;
      } else if (ch === '"') {
        let j = i + 1;
        while (j < s.length && s[j] !== '"') {
          if (s[j] === '\\' && j + 1 < s.length) {
            word += s[j + 1];
            j += 2;
          } else {
            word += s[j];
            j++;
          }
        }
        i = j + 1;
      } else if (ch === '\\' && i + 1 < s.length) {
        word += s[i + 1];
        i += 2;
      } else {
        word += ch;
        i++;
      }
    }
    tokens.push({ text: word, op: false, line: startLine });
  }
  return tokens;
}

export interface LlmkbCommandLine {
  /** 1-based line within the script where the command starts. */
  line: number;
  /** The words after `npx llmkb`, up to the end of the command (redirections left out). */
  args: string[];
}

/**
 * Every `npx llmkb ...` command of a script, and the lines where `llmkb` is run bare (which
 * fails from a clone, where the command is not on PATH).
 */
export function llmkbCommandLines(script: string): { commands: LlmkbCommandLine[]; bare: number[] } {
  const tokens = shellTokens(script);
  const commands: LlmkbCommandLine[] = [];
  const bare: number[] = [];
  const separators = new Set(['\n', '&&', '||', ';', '|', '&', '(', ')', ';;']);
  const redirections = new Set(['>', '>>', '<', '2>', '&>', '>&', '<<', '<<-']);
  let atCommand = true;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.op && separators.has(t.text)) {
      atCommand = true;
      continue;
    }
    if (!atCommand) continue;
    if (!t.op && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(t.text) || t.text === 'time' || t.text === 'exec')) continue;
    atCommand = false;
    if (t.op) continue;
    let j = i + 1;
    if (t.text === 'npx') {
      while (j < tokens.length && !tokens[j]!.op && tokens[j]!.text.startsWith('-')) j++;
      if (tokens[j]?.text !== 'llmkb' || tokens[j]!.op) continue;
      j++;
    } else if (t.text !== 'llmkb') {
      continue;
    } else {
      bare.push(t.line);
    }
    const args: string[] = [];
    for (; j < tokens.length; j++) {
      const a = tokens[j]!;
      if (a.op && separators.has(a.text)) break;
      if (a.op && redirections.has(a.text)) {
        j++; // its target
        continue;
      }
      if (a.op) continue;
      args.push(a.text);
    }
    commands.push({ line: t.line, args });
    i = j - 1;
  }
  return { commands, bare };
}
