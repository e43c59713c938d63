// The fetching side of an incremental fetch session (KIP-227), one per broker fetched from, as
// Kafka's FetchSessionHandler: shared by the consumer's fetcher and the broker's replica fetcher.
//
// The caller hands `build` the partitions it wants fetched now (the "next" set, with their fetch
// positions); the handler answers which of them go on the wire. Without a session (or after any
// session error) that is all of them, in a full request (epoch 0) that asks the broker to open a
// session. Inside a session only partitions that are new or whose fetch parameters changed are
// sent; partitions of the session missing from the next set are forgotten. The session's view is
// updated when the request is built, so a request must be followed by exactly one call to
// `handleResponse` or `handleError`: anything else (a response we cannot vouch for, a transport
// failure) restarts with a full request that also closes the broker's old session.
//
// A broker answering SessionId 0 keeps the client sessionless; so does a Fetch version below 7
// (no session fields) and `enabled: false`. Topic ids (v13+) and names (≤ v12) never mix in one
// session: the broker refuses that with FETCH_SESSION_TOPIC_ID_ERROR, so a change of naming starts
// a new session instead.

import { ErrorCode } from '../protocol/errors.js';
import type {
  FetchRequestFetchTopic,
  FetchRequestForgottenTopic,
} from '../protocol/messages/generated/fetch.js';

/** No session (Kafka's INVALID_SESSION_ID). */
export const INVALID_SESSION_ID = 0;
/** A full request that opens a session. */
export const INITIAL_EPOCH = 0;
/** A full request that opens none (and closes the named one). */
export const FINAL_EPOCH = -1;
/** The first Fetch version with session fields. */
export const FIRST_SESSION_VERSION = 7;
/** The first Fetch version naming topics by id. */
export const FIRST_TOPIC_ID_VERSION = 13;

/** The epoch after `epoch`, wrapping past int32 max to 1 (0 is only ever the initial epoch). */
export function nextSessionEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  if (epoch === 0x7fffffff) return 1;
  return epoch + 1;
}

/** One partition to fetch, with the parameters a Fetch request carries for it. */
export interface SessionPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  readonly fetchOffset: bigint;
  readonly currentLeaderEpoch: number;
  readonly lastFetchedEpoch: number;
  readonly logStartOffset: bigint;
  readonly partitionMaxBytes: number;
}

/** The session part of a Fetch request. */
export interface SessionRequestParts {
  readonly sessionId: number;
  readonly sessionEpoch: number;
  readonly topics: FetchRequestFetchTopic[];
  readonly forgottenTopicsData: FetchRequestForgottenTopic[];
  /** A full request (every partition of the next set is in `topics`). */
  readonly full: boolean;
  /** Partitions serialized in `topics` (the rest come from the broker's session). */
  readonly sent: number;
}

/** What the caller does with a response: use its partitions, or drop it and fetch again. */
export type SessionResponseVerdict = 'use' | 'drop';

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const key = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

function sameRequestData(a: SessionPartition, b: SessionPartition): boolean {
  return (
    a.fetchOffset === b.fetchOffset &&
    a.currentLeaderEpoch === b.currentLeaderEpoch &&
    a.lastFetchedEpoch === b.lastFetchedEpoch &&
    a.logStartOffset === b.logStartOffset &&
    a.partitionMaxBytes === b.partitionMaxBytes
  );
}

export class FetchSessionHandler {
  readonly #enabled: boolean;
  #sessionId = INVALID_SESSION_ID;
  /** The epoch of the next request; INITIAL_EPOCH = full. */
  #epoch = INITIAL_EPOCH;
  /** The broker's view of the session, by topic name and partition. */
  #partitions = new Map<string, SessionPartition>();
  /** Whether the open session names topics by id. */
  #usesTopicIds = false;
  /** A request was built and its outcome is not known yet. */
  #pending = false;
  /** Full requests sent, incremental requests sent (tests, benchmarks). */
  readonly stats = { full: 0, incremental: 0, sessionErrors: 0 };

  constructor(options: { readonly enabled: boolean }) {
    this.#enabled = options.enabled;
  }

  /** The session id in use (0: none). */
  get sessionId(): number {
    return this.#sessionId;
  }

  /** The epoch the next request will carry. */
  get nextEpoch(): number {
    return this.#enabled ? this.#epoch : FINAL_EPOCH;
  }

  /** Builds the request parts for `next` at Fetch `version`. */
  build(next: readonly SessionPartition[], version: number): SessionRequestParts {
    const usesTopicIds = version >= FIRST_TOPIC_ID_VERSION;
    if (!this.#enabled || version < FIRST_SESSION_VERSION) {
      // Sessionless; nothing of a session survives (a later v7+ request starts a new one).
      this.#reset(INVALID_SESSION_ID);
      return this.#full(next, INVALID_SESSION_ID, FINAL_EPOCH, usesTopicIds);
    }
    if (this.#sessionId !== INVALID_SESSION_ID && this.#usesTopicIds !== usesTopicIds)
      this.#epoch = INITIAL_EPOCH; // a session cannot change its naming: replace it
    this.#pending = true;
    if (this.#epoch === INITIAL_EPOCH) {
      this.#partitions = new Map(next.map((p) => [key(p.topic, p.partition), p]));
      this.#usesTopicIds = usesTopicIds;
      this.stats.full++;
      return this.#full(next, this.#sessionId, INITIAL_EPOCH, usesTopicIds);
    }
    this.stats.incremental++;
    const toSend: SessionPartition[] = [];
    const toForget: SessionPartition[] = [];
    const nextByKey = new Map(next.map((p) => [key(p.topic, p.partition), p]));
    for (const [k, prev] of this.#partitions) {
      const now = nextByKey.get(k);
      if (now === undefined) {
        toForget.push(prev);
        this.#partitions.delete(k);
      } else if (usesTopicIds && now.topicId !== prev.topicId) {
        // The topic was re-created under the same name: a different partition for the broker.
        toForget.push(prev);
        toSend.push(now);
        this.#partitions.set(k, now);
      } else if (!sameRequestData(prev, now)) {
        toSend.push(now);
        this.#partitions.set(k, now);
      }
    }
    for (const [k, p] of nextByKey)
      if (!this.#partitions.has(k)) {
        toSend.push(p);
        this.#partitions.set(k, p);
      }
    return {
      sessionId: this.#sessionId,
      sessionEpoch: this.#epoch,
      topics: groupTopics(toSend, usesTopicIds),
      forgottenTopicsData: groupForgotten(toForget, usesTopicIds),
      full: false,
      sent: toSend.length,
    };
  }

  /**
   * Takes the session outcome of the response to the last `build`. 'drop': the response's
   * partitions must not be used (a session error, or one that does not match the session);
   * the next request is a full one.
   */
  handleResponse(res: {
    readonly errorCode: number;
    readonly sessionId: number;
    readonly responses: readonly {
      readonly topic: string;
      readonly topicId: string;
      readonly partitions: readonly { readonly partitionIndex: number }[];
    }[];
  }): SessionResponseVerdict {
    if (!this.#pending) return res.errorCode === ErrorCode.NONE ? 'use' : 'drop';
    this.#pending = false;
    if (res.errorCode !== ErrorCode.NONE) {
      this.stats.sessionErrors++;
      // An unknown session needs no closing; any other error closes ours with the next request.
      this.#reset(
        res.errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND ? INVALID_SESSION_ID : this.#sessionId,
      );
      return 'drop';
    }
    if (!this.#onlySessionPartitions(res.responses)) {
      this.#reset(this.#sessionId);
      return 'drop';
    }
    if (this.#epoch === INITIAL_EPOCH) {
      if (res.sessionId === INVALID_SESSION_ID) this.#reset(INVALID_SESSION_ID);
      else {
        this.#sessionId = res.sessionId;
        this.#epoch = nextSessionEpoch(INITIAL_EPOCH);
      }
      return 'use';
    }
    // The broker closes a session by answering SessionId 0 (every partition was forgotten).
    if (res.sessionId === INVALID_SESSION_ID) this.#reset(INVALID_SESSION_ID);
    else this.#epoch = nextSessionEpoch(this.#epoch);
    return 'use';
  }

  /** The request failed in transport or timed out: its effect on the session is unknown. */
  handleError(): void {
    if (!this.#pending) return;
    this.#pending = false;
    this.#reset(this.#sessionId);
  }

  /**
   * The parts of a request that closes the session on the broker (FINAL_EPOCH, no partitions),
   * or null without one. The handler is sessionless afterwards.
   */
  closeRequest(): SessionRequestParts | null {
    if (this.#sessionId === INVALID_SESSION_ID) return null;
    const id = this.#sessionId;
    this.#reset(INVALID_SESSION_ID);
    return {
      sessionId: id,
      sessionEpoch: FINAL_EPOCH,
      topics: [],
      forgottenTopicsData: [],
      full: true,
      sent: 0,
    };
  }

  /** Starts over with a full request; `closeId` names the session that request closes. */
  #reset(closeId: number): void {
    this.#sessionId = closeId;
    this.#epoch = INITIAL_EPOCH;
    this.#partitions = new Map();
    this.#pending = false;
  }

  #full(
    next: readonly SessionPartition[],
    sessionId: number,
    epoch: number,
    ids: boolean,
  ): SessionRequestParts {
    return {
      sessionId,
      sessionEpoch: epoch,
      topics: groupTopics(next, ids),
      forgottenTopicsData: [],
      full: true,
      sent: next.length,
    };
  }

  /** Kafka's check: a response never names a partition outside the session. */
  #onlySessionPartitions(
    responses: readonly {
      readonly topic: string;
      readonly topicId: string;
      readonly partitions: readonly { readonly partitionIndex: number }[];
    }[],
  ): boolean {
    if (responses.length === 0) return true;
    const names = new Map<string, string>();
    if (this.#usesTopicIds) for (const p of this.#partitions.values()) names.set(p.topicId, p.topic);
    for (const t of responses) {
      const topic = this.#usesTopicIds ? names.get(t.topicId) : t.topic;
      if (topic === undefined) return false;
      for (const p of t.partitions) if (!this.#partitions.has(key(topic, p.partitionIndex))) return false;
    }
    return true;
  }
}

/** Partitions → request topics, consecutive partitions of one topic sharing an entry. */
function groupTopics(parts: readonly SessionPartition[], ids: boolean): FetchRequestFetchTopic[] {
  const out: FetchRequestFetchTopic[] = [];
  const byTopic = new Map<string, FetchRequestFetchTopic>();
  for (const p of parts) {
    let t = byTopic.get(p.topic);
    if (t === undefined) {
      t = { topic: p.topic, topicId: ids ? p.topicId : ZERO_UUID, partitions: [] };
      byTopic.set(p.topic, t);
      out.push(t);
    }
    t.partitions.push({
      partition: p.partition,
      currentLeaderEpoch: p.currentLeaderEpoch,
      fetchOffset: p.fetchOffset,
      lastFetchedEpoch: p.lastFetchedEpoch,
      logStartOffset: p.logStartOffset,
      partitionMaxBytes: p.partitionMaxBytes,
      replicaDirectoryId: ZERO_UUID,
    });
  }
  return out;
}

function groupForgotten(parts: readonly SessionPartition[], ids: boolean): FetchRequestForgottenTopic[] {
  const out = new Map<string, FetchRequestForgottenTopic>();
  for (const p of parts) {
    // Keyed by what the broker keys by: a re-created topic's old id is a separate entry.
    const k = ids ? p.topicId : p.topic;
    let t = out.get(k);
    if (t === undefined) {
      t = { topic: ids ? '' : p.topic, topicId: ids ? p.topicId : ZERO_UUID, partitions: [] };
      out.set(k, t);
    }
    t.partitions.push(p.partition);
  }
  return [...out.values()];
}
