/**
 * Progress of a long operation. On a TTY: one line redrawn at most ten times a second with
 * done/total, rate, ETA and cache hits. Elsewhere (CI logs, pipes, or $CI set): the same line
 * printed on its own every few seconds (`intervalMs`, default 5 s, or $LLMKB_PROGRESS_INTERVAL
 * seconds) while the operation runs, then a summary line when it ends, so a CI log shows that a
 * long stage is alive and how long it has left without filling up with redraws.
 */
export interface ProgressOptions {
  stream?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Force live redrawing on or off; default: on when the stream is a TTY and $CI is not set. */
  live?: boolean;
  /** Print nothing at all. */
  quiet?: boolean;
  /** Not live: milliseconds between progress lines (default: $LLMKB_PROGRESS_INTERVAL seconds, else 5000). */
  intervalMs?: number;
  /** The whole evaluation this operation is a stage of: told of its items, and its ETA shown on the line. */
  overall?: EvalProgress;
}

import type { EvalProgress } from './eval-progress.js';

export const DEFAULT_PROGRESS_INTERVAL_MS = 5000;

/** The interval between progress lines off a TTY: $LLMKB_PROGRESS_INTERVAL (seconds, > 0) or 5 s. */
export function progressIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.LLMKB_PROGRESS_INTERVAL);
  return env.LLMKB_PROGRESS_INTERVAL !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_PROGRESS_INTERVAL_MS;
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
  readonly #overall: EvalProgress | undefined;
  readonly #started = performance.now();
  /** Items done before this session (resumed): not counted in the rate. */
  #skipped = 0;
  #lastDraw = 0;
  #finished = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(label: string, total: number, options: ProgressOptions = {}) {
    this.label = label;
    this.total = total;
    this.#stream = options.stream ?? process.stderr;
    this.#quiet = options.quiet ?? false;
    this.#live = options.live ?? (this.#stream.isTTY === true && !process.env.CI);
    this.#overall = options.overall;
    this.#overall?.stageStarted(label, total);
    if (!this.#live && !this.#quiet) {
      // A timer, not ticks: a stage waiting on one slow call still shows it is alive. Unref'd,
      // so a Progress never keeps the process running.
      this.#timer = setInterval(() => this.#stream.write(`${this.line()}\n`), options.intervalMs ?? progressIntervalMs());
      this.#timer.unref();
    }
  }

  /** Counts items already done before this session (resumed work). */
  skip(count: number): void {
    this.done += count;
    this.#skipped += count;
    this.#overall?.skipped(count);
  }

  tick(info: { cached?: boolean; failed?: boolean } = {}): void {
    if (info.failed) this.failed += 1;
    else {
      this.done += 1;
      this.#overall?.ticked(info.cached ?? false);
    }
    if (info.cached) this.cacheHits += 1;
    if (!this.#live || this.#quiet) return;
    const now = performance.now();
    if (now - this.#lastDraw < 100 && this.done < this.total) return;
    this.#lastDraw = now;
    const line = this.line();
    const width = this.#stream.columns ?? 120;
    this.#stream.write(`\r${line.slice(0, width - 1).padEnd(Math.min(width - 1, line.length + 5))}`);
  }

  /** `label  done/total (pct%)  rate/s  ETA m:ss  cache hits n`; the rate counts this session's items only. */
  line(): string {
    const elapsed = (performance.now() - this.#started) / 1000;
    const rate = elapsed > 0 ? (this.done - this.#skipped) / elapsed : 0;
    const remaining = this.total - this.done;
    const eta = remaining <= 0 ? 0 : rate > 0 ? remaining / rate : Number.NaN;
    const pct = this.total > 0 ? ((100 * this.done) / this.total).toFixed(1) : '100.0';
    const parts = [
      `${this.label}`,
      `${this.done}/${this.total} (${pct}%)`,
      `${rate.toFixed(1)}/s`,
      `ETA ${formatDuration(eta)}`,
      `cache hits ${this.cacheHits}`,
    ];
    if (this.failed > 0) parts.push(`failed ${this.failed}`);
    return `${parts.join('  ')}${this.#overallEta()}`;
  }

  /** `  |  eval setting 1 of 3, ETA m:ss` when this is a stage of a whole evaluation. */
  #overallEta(): string {
    if (!this.#overall) return '';
    return `  |  eval ${this.#overall.position()}, ETA ${formatDuration(this.#overall.remainingSeconds() ?? Number.NaN)}`;
  }

  finish(note = ''): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (!this.#finished) this.#overall?.stageFinished();
    if (this.#finished || this.#quiet) return;
    this.#finished = true;
    const elapsed = (performance.now() - this.#started) / 1000;
    const summary = `${this.label}: ${this.done}/${this.total} in ${formatDuration(elapsed)}, cache hits ${this.cacheHits}${this.failed ? `, failed ${this.failed}` : ''}${note ? `, ${note}` : ''}${this.#overallEta()}`;
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
