// Why a controller stops what it is doing.

import { MetadataStoreError } from '../store/metadata-store.js';

/**
 * This node is not (or no longer) the active controller: a store write was fenced (NOT_CONTROLLER),
 * another node won the election, or the session that held `/controller` ended. The current event
 * is abandoned; nothing more is written or sent under the old epoch.
 */
export class ControllerMovedError extends Error {
  constructor(message = 'this node is no longer the active controller') {
    super(message);
    this.name = 'ControllerMovedError';
  }
}

export function isStoreError(e: unknown, code: MetadataStoreError['code']): e is MetadataStoreError {
  return e instanceof MetadataStoreError && e.code === code;
}
