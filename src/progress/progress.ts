/**
 * Progress of a long operation. On a TTY: one line redrawn at most ten times a second with
 * done/total, rate, ETA and cache hits. Elsewhere (CI logs, pipes): a single summary line when
 * the stage ends, so logs stay readable.
 */
export interface ProgressOptions {
  stream?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Force live redrawing on or off; default: on when the stream is a TTY and $CI is not set. */
  live?: boolean;
  /** Print nothing at all. */
  quiet?: boolean;
}

export class Progress {
  readonly label: string;
  total: number;
  done = 0;
  cacheHits = 0;
  failed = 0;
  readonly #stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly #live: boolean;
  readonly #quiet: boolean;
  readonly #started = performance.now();
  #lastDraw = 0;
  #finished = false;

  constructor(label: string, total: number, options: ProgressOptions = {}) {
    this.label = label;
    this.total = total;
    this.#stream = options.stream ?? process.stderr;
    this.#quiet = options.quiet ?? false;
    this.#live = options.live ?? (this.#stream.isTTY === true && !process.env.CI);
  }

  /** Counts items already done before this session (resumed work). */
  skip(count: number): void {
    this.done += count;
  }

  tick(info: { cached?: boolean; failed?: boolean } = {}): void {
    if (info.failed) this.failed += 1;
    else this.done += 1;
    if (info.cached) this.cacheHits += 1;
    if (!this.#live || this.#quiet) return;
    const now = performance.now();
    if (now - this.#lastDraw < 100 && this.done < this.total) return;
    this.#lastDraw = now;
    const line = this.line();
    const width = this.#stream.columns ?? 120;
    this.#stream.write(`\r${line.slice(0, width - 1).padEnd(Math.min(width - 1, line.length + 5))}`);
  }

  line(): string {
    const elapsed = (performance.now() - this.#started) / 1000;
    const rate = elapsed > 0 ? this.done / elapsed : 0;
    const remaining = this.total - this.done;
    const eta = rate > 0 ? remaining / rate : Number.NaN;
    const pct = this.total > 0 ? ((100 * this.done) / this.total).toFixed(1) : '100.0';
    const parts = [`${this.label}`, `${this.done}/${this.total} (${pct}%)`, `${rate.toFixed(1)}/s`, `ETA ${formatDuration(eta)}`, `cache hits ${this.cacheHits}`];
    if (this.failed > 0) parts.push(`failed ${this.failed}`);
    return parts.join('  ');
  }

  finish(note = ''): void {
    if (this.#finished || this.#quiet) return;
    this.#finished = true;
    const elapsed = (performance.now() - this.#started) / 1000;
    const summary = `${this.label}: ${this.done}/${this.total} in ${formatDuration(elapsed)}, cache hits ${this.cacheHits}${this.failed ? `, failed ${this.failed}` : ''}${note ? `, ${note}` : ''}`;
    this.#stream.write(this.#live ? `\r${summary}\x1b[K\n` : `${summary}\n`);
  }
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '--:--';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}` : `${m}:${String(sec).padStart(2, '0')}`;
}
