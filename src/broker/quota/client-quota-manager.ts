// One kind of client quota (produce bytes, fetch bytes, or request time), as Kafka's
// ClientQuotaManager with its default callback: quotas set on <user, client-id>, <user> or
// <client-id> entities or their `<default>`s, the most specific match applying in Kafka's order
//   user+client → user+default client → user → default user+client → default user+default
//   client → default user → client → default client,
// and one rate sensor per matched quota key (the metric tags): clients sharing a user quota
// share one rate, clients under a per-client-id (or default client-id) quota have one each.
// Which levels have ever been configured is remembered until restart, as Kafka does; when only
// one level is, the tags follow from it without looking the quotas up.

import { DEFAULT_ENTITY } from '../metadata/store/zk-user-names.js';
import { type RateWindows, SampledRate, throttleTimeMs } from './sampled-rate.js';

const CLIENT_ID_LEVEL = 1;
const USER_LEVEL = 2;
const USER_CLIENT_ID_LEVEL = 4;

/** Kafka's InactiveSensorExpirationTimeSeconds: a rate unused for an hour is forgotten. */
const SENSOR_EXPIRY_MS = 3_600_000;
const SWEEP_INTERVAL_MS = 60_000;

/** Who a request is charged to: the principal's name (`ANONYMOUS` …) and the header's client id. */
export interface QuotaIdentity {
  readonly user: string;
  readonly clientId: string;
}

interface Sensor {
  readonly user: string;
  readonly clientId: string;
  readonly rate: SampledRate;
  /** Throttle times given (Kafka's throttle-time sensor, an average); created at the first. */
  throttle: SampledRate | null;
  bound: number;
  generation: number;
}

/** One rate as /metrics shows it (Kafka's quota metrics of a user/client-id pair). */
export interface QuotaSensorReading {
  readonly user: string;
  readonly clientId: string;
  /** Per second: bytes (produce, fetch) or percent of a thread's time (request). */
  readonly rate: number;
  /** Mean throttle time given in the window, ms (0: none). */
  readonly throttleTimeMs: number;
}

/** `undefined` = the component is not part of the entity; DEFAULT_ENTITY = its default. */
function entityKey(user: string | undefined, clientId: string | undefined): string {
  return `${user === undefined ? '-' : `u${user}`}\u0000${clientId === undefined ? '-' : `c${clientId}`}`;
}

export class ClientQuotaManager {
  private levels = 0;
  private readonly bounds = new Map<string, number>();
  private readonly sensors = new Map<string, Sensor>();
  /** Bumped on every quota change: sensors re-resolve their bound when it moved. */
  private generation = 0;
  private lastSweepMs = 0;

  constructor(
    readonly windows: RateWindows,
    /** Caps a throttle time (request quota: one window); byte rates are uncapped, as Kafka. */
    private readonly maxThrottleMs = Number.POSITIVE_INFINITY,
  ) {}

  /** Whether a quota of this kind was ever configured (until restart, as Kafka's quotasEnabled). */
  get enabled(): boolean {
    return this.levels !== 0;
  }

  /** Sets (`bound`) or removes (null) the quota of an entity; names may be DEFAULT_ENTITY. */
  update(user: string | undefined, clientId: string | undefined, bound: number | null): void {
    if (user === undefined && clientId === undefined) return;
    this.levels |=
      user === undefined ? CLIENT_ID_LEVEL : clientId === undefined ? USER_LEVEL : USER_CLIENT_ID_LEVEL;
    const key = entityKey(user, clientId);
    if (bound === null) this.bounds.delete(key);
    else this.bounds.set(key, bound);
    this.generation++;
  }

  /** The quota that applies to `who` (Infinity when none). For tests and tools. */
  quotaFor(who: QuotaIdentity): number {
    const [user, clientId] = this.metricTags(who);
    return this.limit(user, clientId);
  }

  /**
   * Records `value` against `who`'s rate at `nowMs` and returns the throttle time in ms when the
   * rate, with it, is above the quota (Kafka records the value either way).
   */
  recordAndGetThrottleTimeMs(who: QuotaIdentity, value: number, nowMs: number): number {
    const sensor = this.sensor(who, nowMs);
    if (sensor === null) return 0;
    sensor.rate.record(value, nowMs);
    const observed = sensor.rate.measure(nowMs);
    if (!(observed > sensor.bound)) return 0;
    return throttleTimeMs(observed, sensor.bound, sensor.rate.windowSizeMs(nowMs), this.maxThrottleMs);
  }

  /** A throttle of `ms` given to `who` because of this quota (its throttle-time average). */
  recordThrottle(who: QuotaIdentity, ms: number, nowMs: number): void {
    const sensor = this.sensor(who, nowMs);
    if (sensor === null) return;
    sensor.throttle ??= new SampledRate(this.windows, nowMs);
    sensor.throttle.record(ms, nowMs);
  }

  /** Every live rate, measured at `nowMs` (scrape time). */
  readings(nowMs: number): QuotaSensorReading[] {
    return [...this.sensors.values()].map((s) => ({
      user: s.user,
      clientId: s.clientId,
      rate: s.rate.measure(nowMs),
      throttleTimeMs: s.throttle?.average(nowMs) ?? 0,
    }));
  }

  /** Takes back a recorded value (a throttled fetch answers without its data, as Kafka). */
  unrecord(who: QuotaIdentity, value: number, nowMs: number): void {
    this.sensor(who, nowMs)?.rate.record(-value, nowMs);
  }

  /**
   * The most that can be recorded without a certain throttle: quota × (samples − 1) windows
   * (Kafka caps a consumer fetch's max bytes with it). Infinity without a quota.
   */
  maxValueInWindow(who: QuotaIdentity): number {
    if (!this.enabled) return Number.POSITIVE_INFINITY;
    const bound = this.quotaFor(who);
    return (bound * (this.windows.samples - 1) * this.windows.windowMs) / 1000;
  }

  private sensor(who: QuotaIdentity, nowMs: number): Sensor | null {
    if (nowMs - this.lastSweepMs >= SWEEP_INTERVAL_MS) this.sweep(nowMs);
    const [user, clientId] = this.metricTags(who);
    const key = `${user}\u0000${clientId}`;
    let sensor = this.sensors.get(key);
    if (sensor === undefined) {
      const bound = this.limit(user, clientId);
      if (bound === Number.POSITIVE_INFINITY) return null;
      sensor = {
        user,
        clientId,
        rate: new SampledRate(this.windows, nowMs),
        throttle: null,
        bound,
        generation: this.generation,
      };
      this.sensors.set(key, sensor);
    } else if (sensor.generation !== this.generation) {
      sensor.bound = this.limit(user, clientId);
      sensor.generation = this.generation;
    }
    return sensor;
  }

  private sweep(nowMs: number): void {
    this.lastSweepMs = nowMs;
    for (const [key, s] of this.sensors)
      if (nowMs - s.rate.lastRecordMs >= SENSOR_EXPIRY_MS) this.sensors.delete(key);
  }

  private has(user: string | undefined, clientId: string | undefined): boolean {
    return this.bounds.has(entityKey(user, clientId));
  }

  private get(user: string | undefined, clientId: string | undefined): number | undefined {
    return this.bounds.get(entityKey(user, clientId));
  }

  /**
   * Kafka's quotaMetricTags: the (user, client-id) a rate is kept for, '' for a component the
   * matching quota does not name.
   */
  private metricTags({ user, clientId }: QuotaIdentity): [string, string] {
    switch (this.levels) {
      case 0:
      case CLIENT_ID_LEVEL:
        return ['', clientId];
      case USER_LEVEL:
        return [user, ''];
      case USER_CLIENT_ID_LEVEL:
        return [user, clientId];
    }
    const D = DEFAULT_ENTITY;
    if (this.has(user, clientId) || this.has(user, D)) return [user, clientId];
    if (this.has(user, undefined)) return [user, ''];
    if (this.has(D, clientId) || this.has(D, D)) return [user, clientId];
    if (this.has(D, undefined)) return [user, ''];
    return ['', clientId];
  }

  /** Kafka's quotaLimit for a rate's tags: the most specific quota of that level. */
  private limit(user: string, clientId: string): number {
    const D = DEFAULT_ENTITY;
    let bound: number | undefined;
    if (user !== '' && clientId !== '')
      bound = this.get(user, clientId) ?? this.get(user, D) ?? this.get(D, clientId) ?? this.get(D, D);
    else if (user !== '') bound = this.get(user, undefined) ?? this.get(D, undefined);
    else if (clientId !== '') bound = this.get(undefined, clientId) ?? this.get(undefined, D);
    return bound ?? Number.POSITIVE_INFINITY;
  }
}
