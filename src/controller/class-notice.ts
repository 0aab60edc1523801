// The Warning an operator needs when Ingresses are not Portico's class: how many, and which flags would serve them.
import type { Logger } from '../log.js';
import type { ModelOptions, Snapshot } from '../model/input.js';
import { otherClasses, otherClassesMessage } from '../model/classes.js';

/**
 * Says it after the first sync and again whenever it changes (a folder of ingress-nginx's Ingresses otherwise answers
 * 404 everywhere with nothing in the log but "sync").
 */
export class ClassNotice {
  private said: string | undefined;
  private first = true;

  constructor(
    private readonly log: Logger,
    private readonly opts: ModelOptions,
  ) {}

  check(snap: Snapshot): void {
    const other = otherClasses(snap.ingresses, snap.ingressClasses, this.opts);
    const message = otherClassesMessage(other);
    if (!this.first && message === this.said) return;
    const before = this.said;
    this.first = false;
    this.said = message;
    if (message !== undefined) {
      const flags = [...new Set(other.groups.map((g) => g.serve).filter((s) => s.startsWith('--')))];
      this.log.warn({ ingresses: other.count, classes: Object.fromEntries(other.groups.map((g) => [g.names, g.count])), flags }, message);
    } else if (before !== undefined) {
      this.log.info("every Ingress is of Portico's class now");
    }
  }
}
