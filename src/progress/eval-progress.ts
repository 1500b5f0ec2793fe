/**
 * The ETA of a whole evaluation (every setting and every stage of `llmkb eval`), shown with each
 * stage's own progress line. The evaluation is a plan of steps (a setting's stage, its expected
 * items and a prior cost per item in arbitrary units, e.g. typical tokens); the time a stage
 * takes per item is measured as it runs, and the remaining steps are estimated from it:
 *
 * - a stage already measured (in this setting or an earlier one): its seconds per item;
 * - one not measured yet: its prior cost times the seconds per prior unit measured so far;
 * - items: the plan's, scaled by how many a stage of that kind really had against its plan in
 *   earlier settings (e.g. the consistency stage re-asks only correct and wrong responses).
 *
 * Items answered from the call cache take next to no time and say nothing about what a model
 * call costs: the seconds per prior unit come from the items that were not (a setting whose
 * answers were all cached would otherwise make every later stage look free), and a later
 * setting's stage, whose prompts are new, is reckoned at what a stage's uncached items cost. The
 * rest of the running stage is reckoned at its own mix of cached and uncached items so far.
 *
 * Until the first item is done nothing is measured and the ETA is unknown; so it stays while
 * every item done came from the call cache and later steps remain.
 */

export interface PlannedStep {
  setting: string;
  stage: string;
  /** Items the step is expected to work on. */
  items: number;
  /** Prior cost of one item, in any unit shared by the steps (only ratios matter). */
  costPerItem: number;
}

interface Measured {
  seconds: number;
  items: number;
  /** Of `items`, those not answered from the call cache. */
  fresh: number;
  /** Items really worked on, over the plan's items, of the steps of this stage begun so far. */
  actual: number;
  planned: number;
}

export class EvalProgress {
  readonly #steps: readonly PlannedStep[];
  readonly #clock: () => number;
  readonly #measured = new Map<string, Measured>();
  /** Index of the step running now (-1: none yet). */
  #current = -1;
  #running = false;
  #startedAt = 0;
  #doneHere = 0;
  #freshHere = 0;
  #total = 0;
  #resumed = 0;

  constructor(steps: readonly PlannedStep[], clock: () => number = () => performance.now()) {
    this.#steps = steps;
    this.#clock = clock;
  }

  /** A stage begins (the next planned step of that stage; stages already finished are never begun and count as done). */
  stageStarted(stage: string, total: number): void {
    const next = this.#steps.findIndex((s, i) => i > this.#current && s.stage === stage);
    if (next < 0) return;
    this.#current = next;
    this.#running = true;
    this.#startedAt = this.#clock();
    this.#doneHere = 0;
    this.#freshHere = 0;
    this.#resumed = 0;
    this.#total = total;
    const m = this.#measure(stage);
    m.actual += total;
    m.planned += this.#steps[next]!.items;
  }

  /** Items of the running stage already done before (resumed): they take no time. */
  skipped(count: number): void {
    this.#resumed += count;
  }

  /** One item of the running stage is done (`cached`: answered from the call cache). */
  ticked(cached = false): void {
    if (!this.#running) return;
    this.#doneHere++;
    if (!cached) this.#freshHere++;
  }

  /** The running stage has ended: its time and items join the measurements. */
  stageFinished(): void {
    if (!this.#running) return;
    const m = this.#measure(this.#steps[this.#current]!.stage);
    m.seconds += (this.#clock() - this.#startedAt) / 1000;
    m.items += this.#doneHere;
    m.fresh += this.#freshHere;
    this.#running = false;
  }

  /** Seconds left for the whole evaluation; undefined until something is measured. */
  remainingSeconds(): number | undefined {
    const now = this.#clock();
    const running = this.#running ? this.#steps[this.#current]! : undefined;
    // The running stage's time so far counts with what is measured of its kind.
    const measured = (stage: string): { seconds: number; items: number; fresh: number } => {
      const m = this.#measured.get(stage);
      const here =
        running?.stage === stage
          ? { seconds: (now - this.#startedAt) / 1000, items: this.#doneHere, fresh: this.#freshHere }
          : { seconds: 0, items: 0, fresh: 0 };
      return { seconds: (m?.seconds ?? 0) + here.seconds, items: (m?.items ?? 0) + here.items, fresh: (m?.fresh ?? 0) + here.fresh };
    };
    // Seconds per prior unit: from uncached items where there are any, else from every item.
    const calibrate = (count: (m: { items: number; fresh: number }) => number): { seconds: number; units: number } => {
      let seconds = 0;
      let units = 0;
      for (const stage of new Set(this.#steps.map((s) => s.stage))) {
        const m = measured(stage);
        const cost = this.#steps.find((s) => s.stage === stage)!.costPerItem;
        if (count(m) === 0 || cost === 0) continue;
        seconds += m.seconds;
        units += count(m) * cost;
      }
      return { seconds, units };
    };
    const fresh = calibrate((m) => m.fresh);
    // Only cached items so far: what a model call costs is unknown, and so is every later step.
    if (fresh.units === 0 && this.#current + 1 < this.#steps.length) return undefined;
    const { seconds, units } = fresh.units > 0 ? fresh : calibrate((m) => m.items);
    if (units === 0) return undefined;
    const prior = (step: PlannedStep): number => (step.costPerItem * seconds) / units;
    // A later step: what an uncached item of its stage costs (or, with none measured, the prior).
    const perItem = (step: PlannedStep): number => {
      const m = measured(step.stage);
      return m.fresh > 0 ? m.seconds / m.fresh : fresh.units > 0 ? prior(step) : m.items > 0 ? m.seconds / m.items : prior(step);
    };
    // The running stage's remaining items: at its own pace so far in this setting (its mix of
    // cached and uncached items), until it has one, as a later step.
    const perItemHere = (step: PlannedStep): number => (this.#doneHere > 0 ? (now - this.#startedAt) / 1000 / this.#doneHere : perItem(step));
    let left = running ? Math.max(0, this.#total - this.#resumed - this.#doneHere) * perItemHere(running) : 0;
    for (let i = this.#current + 1; i < this.#steps.length; i++) {
      const step = this.#steps[i]!;
      const m = this.#measured.get(step.stage);
      const scale = m && m.planned > 0 ? m.actual / m.planned : 1;
      left += step.items * scale * perItem(step);
    }
    return left;
  }

  /** Which setting runs now, e.g. "setting 2 of 3". */
  position(): string {
    const settings = [...new Set(this.#steps.map((s) => s.setting))];
    const at = this.#current < 0 ? 0 : settings.indexOf(this.#steps[this.#current]!.setting);
    return `setting ${at + 1} of ${settings.length}`;
  }

  #measure(stage: string): Measured {
    let m = this.#measured.get(stage);
    if (!m) this.#measured.set(stage, (m = { seconds: 0, items: 0, fresh: 0, actual: 0, planned: 0 }));
    return m;
  }
}
