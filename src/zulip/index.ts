/** The REST client core: connection, credentials, parameter encoding, error taxonomy and backoff. Routes and models are imported from their own files. */
export * from './connection.js';
export * from './credentials.js';
export * from './params.js';
export * from './error-codes.js';
export * from './errors.js';
export * from './backoff.js';
