// A follower of a partition this broker leads, as the leader sees it (Kafka's Replica and
// ReplicaState): its log end offset (the offset of its last fetch; -1 until it fetched under
// this leader), its log start offset and broker epoch (Fetch v15+), and when it was last caught
// up. `isCaughtUp` is Kafka's ISR rule: it fetched up to the leader's log end offset, or it did
// so no longer than `replica.lag.time.max.ms` ago.

export class FollowerState {
  logEndOffset = -1n;
  logStartOffset = -1n;
  /** -1 when the follower's fetches do not carry it (Fetch < v15). */
  brokerEpoch = -1n;
  /** The leader's log end offset at the follower's previous fetch. */
  #lastFetchLeaderLogEndOffset = -1n;
  #lastFetchTimeMs = 0;

  /** `lastCaughtUpTimeMs`: now for a member of the ISR of a new leader, else 0 (Kafka's resetReplicaState). */
  constructor(public lastCaughtUpTimeMs: number) {}

  /**
   * Kafka's Replica.updateFetchStateOrThrow: a fetch at the leader's log end means caught up
   * now; a fetch at or past the leader's log end of the previous fetch means caught up as of
   * that previous fetch (the follower had everything the leader had then).
   */
  updateFetchState(
    fetchOffset: bigint,
    logStartOffset: bigint,
    fetchTimeMs: number,
    leaderEndOffset: bigint,
    brokerEpoch: bigint,
  ): void {
    if (fetchOffset >= leaderEndOffset) {
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, fetchTimeMs);
    } else if (fetchOffset >= this.#lastFetchLeaderLogEndOffset) {
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, this.#lastFetchTimeMs);
    }
    this.logEndOffset = fetchOffset;
    this.logStartOffset = logStartOffset;
    this.brokerEpoch = brokerEpoch;
    this.#lastFetchLeaderLogEndOffset = leaderEndOffset;
    this.#lastFetchTimeMs = fetchTimeMs;
  }

  /**
   * A new leader epoch of the same leader (Kafka's resetReplicaState, not a new leader): the
   * position is kept; a member of the ISR counts as caught up and fetched now, any other one as
   * never (so it neither holds the HW back nor rejoins before it fetches).
   */
  resetForNewEpoch(nowMs: number, leaderEndOffset: bigint, inIsr: boolean): void {
    this.lastCaughtUpTimeMs = inIsr ? nowMs : 0;
    this.#lastFetchLeaderLogEndOffset = leaderEndOffset;
    this.#lastFetchTimeMs = inIsr ? nowMs : 0;
  }

  isCaughtUp(leaderEndOffset: bigint, nowMs: number, maxLagMs: number): boolean {
    return leaderEndOffset === this.logEndOffset || nowMs - this.lastCaughtUpTimeMs <= maxLagMs;
  }
}
