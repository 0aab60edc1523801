// The Warning an operator needs when Ingresses are not Portico's class: how many, and which flags would serve them.
import type { Logger } from '../log.js';
import type { Ingress, IngressClass, ModelOptions, Snapshot } from '../model/input.js';
import { otherClassGroups, otherClassesMessage, otherClassOf, type OtherClasses } from '../model/classes.js';
import { ListFold } from '../model/list-fold.js';

/**
 * Says it after the first sync and again whenever it changes (a folder of ingress-nginx's Ingresses otherwise answers
 * 404 everywhere with nothing in the log but "sync").
 */
export class ClassNotice {
  private said: string | undefined;
  private first = true;
  /** The groups of the Ingresses of other classes, gathered from the Ingresses a sync changed, for one set of IngressClasses. */
  private gathered: { readonly classes: readonly IngressClass[]; readonly fold: ListFold<Ingress, string> } | undefined;

  constructor(
    private readonly log: Logger,
    private readonly opts: ModelOptions,
  ) {}

  check(snap: Snapshot): void {
    const other = this.others(snap);
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

  /** Gathers `snap`'s Ingresses ahead of the check (a whole build's model arrived while the worker renders it). */
  warm(snap: Snapshot): void {
    this.others(snap);
  }

  /** otherClasses (model/classes.ts) of `snap`, from the Ingresses that changed since the last check. */
  private others(snap: Snapshot): OtherClasses {
    const classes = snap.ingressClasses;
    let g = this.gathered;
    if (g === undefined || g.classes.length !== classes.length || g.classes.some((c, i) => c !== classes[i])) {
      g = this.gathered = { classes, fold: new ListFold(otherClassOf(classes, this.opts)) };
    }
    const { fold } = g;
    return otherClassGroups([...fold.of(snap.ingresses)].map(([names, serve]) => [names, serve, fold.count(names)] as const));
  }
}
