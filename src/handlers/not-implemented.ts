import { NotImplementedError } from '../errors.js';
import type { RestOperationId } from '../generated/operation-index.js';

/**
 * Handler for an operation whose feature is not built yet: answers 501 with an ErrorResponse
 * naming the operation. Never a fake success.
 */
export function notImplemented(operationId: RestOperationId): () => Promise<never> {
  return async () => {
    throw new NotImplementedError(`${operationId} is not available in this version of Toolgate yet`);
  };
}
