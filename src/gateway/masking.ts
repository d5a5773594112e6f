/**
 * Error masking: every error a client sees is the gateway's GraphQL error for it (errors.ts), and
 * anything unexpected (a bug) becomes "Unexpected error." with no message, stack or URL of its own.
 * A yoga option rather than a plugin, since yoga installs its masking plugin itself.
 */
import type { YogaMaskedErrorOpts } from 'graphql-yoga';
import { toGraphQLError, UNEXPECTED_ERROR_MESSAGE } from './errors.js';

export const MASKED_ERRORS: Partial<YogaMaskedErrorOpts> = {
  errorMessage: UNEXPECTED_ERROR_MESSAGE,
  maskError: (error) => toGraphQLError(error),
};
