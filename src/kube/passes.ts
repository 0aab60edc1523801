// One writer's passes over the API, run one at a time: a burst of kicks gives one more pass, never two at once.
export class Passes {
  private chain: Promise<void> = Promise.resolve();
  private pending = false;
  private halted = false;

  constructor(private readonly pass: () => Promise<void>) {}

  /** True after stop(): a pass in flight checks it to stop writing at once. */
  get stopped(): boolean {
    return this.halted;
  }

  /** Runs one pass after the current one (none once stopped). */
  kick(): void {
    if (this.pending || this.halted) return;
    this.pending = true;
    this.chain = this.chain.then(async () => {
      this.pending = false;
      await this.pass();
    });
  }

  /** Resolves when no pass is running or queued. */
  async idle(): Promise<void> {
    while (this.pending) await this.chain;
    await this.chain;
  }

  /** No pass starts any more; resolves when the current one ended. */
  async stop(): Promise<void> {
    this.halted = true;
    await this.chain;
  }
}
