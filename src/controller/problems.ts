// Reports objects left out of the model: one log line when a problem appears, not on every sync.
import type { Logger } from '../log.js';
import type { Problem } from '../model/types.js';
import { describeProblem } from '../model/problems.js';

export type ProblemSink = (problem: Problem) => void;

/** Logs new problems at warn level (and hands them to sinks, e.g. Kubernetes Events); forgets fixed ones. */
export class ProblemReporter {
  private seen = new Set<string>();
  private readonly sinks: ProblemSink[] = [];
  private last: readonly Problem[] = [];

  constructor(private readonly log: Logger) {}

  addSink(sink: ProblemSink): void {
    this.sinks.push(sink);
  }

  /** The problems of the last report: the current Warnings (inspector CLI, dashboard). */
  get current(): readonly Problem[] {
    return this.last;
  }

  report(problems: readonly Problem[]): void {
    this.last = problems;
    const now = new Set<string>();
    for (const p of problems) {
      const key = `${p.object.kind}/${p.object.namespace}/${p.object.name}|${p.field}|${p.reason}`;
      now.add(key);
      if (this.seen.has(key)) continue;
      const object = `${p.object.kind} ${p.object.namespace}/${p.object.name}`;
      this.log.warn({ object, field: p.field, severity: p.severity }, describeProblem(p));
      for (const s of this.sinks) s(p);
    }
    this.seen = now;
  }
}
