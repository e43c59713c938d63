// The controller's single event loop (Kafka's ControllerEventManager): events run one at a time,
// in order, each to completion including its awaits, so no two ever interleave. Watch events are
// coalesced by key while they wait — they only say "re-read", so one pending run is enough.

export type EventErrorHandler = (name: string, error: unknown) => void;

interface QueuedEvent {
  readonly name: string;
  readonly key: string | undefined;
  readonly run: () => Promise<void>;
  /** Called instead of `run` when the queue closes first. */
  readonly drop: (() => void) | undefined;
}

export class EventQueue {
  #items: QueuedEvent[] = [];
  readonly #pendingKeys = new Set<string>();
  #running = false;
  #closed = false;
  #idleWaiters: (() => void)[] = [];

  constructor(private readonly onError: EventErrorHandler) {}

  /** True while an event runs or waits. */
  get busy(): boolean {
    return this.#running || this.#items.length > 0;
  }

  /** Queues an event; with a key, nothing is added while an event with that key still waits. */
  put(name: string, run: () => Promise<void>, key?: string, drop?: () => void): void {
    if (this.#closed) {
      drop?.();
      return;
    }
    if (key !== undefined) {
      if (this.#pendingKeys.has(key)) return;
      this.#pendingKeys.add(key);
    }
    this.#items.push({ name, key, run, drop });
    if (!this.#running) {
      // Started from a microtask so an event never runs inside the caller's stack (a listener).
      this.#running = true;
      queueMicrotask(() => void this.#pump());
    }
  }

  /** Queues an event whose result the caller awaits; `onClosed()` answers (or throws) if the queue closes first. */
  call<T>(name: string, fn: () => Promise<T>, onClosed: () => T): Promise<T> {
    if (this.#closed) return Promise.resolve().then(onClosed);
    return new Promise<T>((resolve, reject) => {
      this.put(
        name,
        async () => {
          try {
            resolve(await fn());
          } catch (e) {
            reject(e);
          }
        },
        undefined,
        () => {
          try {
            resolve(onClosed());
          } catch (e) {
            reject(e);
          }
        },
      );
    });
  }

  /** Resolves once nothing runs and nothing waits. */
  whenIdle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Drops what waits; the running event finishes on its own. */
  close(): void {
    this.#closed = true;
    const dropped = this.#items;
    this.#items = [];
    this.#pendingKeys.clear();
    for (const item of dropped) item.drop?.();
    if (!this.#running) this.#wakeIdle();
  }

  async #pump(): Promise<void> {
    try {
      for (let item = this.#items.shift(); item !== undefined; item = this.#items.shift()) {
        if (item.key !== undefined) this.#pendingKeys.delete(item.key);
        try {
          await item.run();
        } catch (e) {
          this.onError(item.name, e);
        }
      }
    } finally {
      this.#running = false;
      this.#wakeIdle();
    }
  }

  #wakeIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}
