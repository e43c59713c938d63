// Public surface of the message codecs: the API table, header rules, headers, frames and every
// generated API/data module.

export {
  API_BY_KEY,
  apiByKey,
  isFlexibleVersion,
  requestHeaderVersion,
  responseHeaderVersion,
} from './apis.js';
export type { DecodedRequest } from './frame.js';
export { decodeRequestHeader } from './frame.js';
export { decodeResponse, encodeRequest, encodeResponse } from './frame-by-key.js';
export * from './generated/index.js';
export type { RequestHeader } from './header.js';
export { readRequestHeader, readResponseHeader, writeRequestHeader, writeResponseHeader } from './header.js';
export type { ApiDescriptor } from './runtime.js';
