/** The name and type of the operation being executed, from envelop's execute arguments. */
import { getOperationAST, type DocumentNode } from 'graphql';

export interface OperationInfo {
  /** The client's name for it, or undefined for an anonymous operation. */
  name: string | undefined;
  type: 'query' | 'mutation' | 'subscription';
}

export function operationInfo(document: DocumentNode, operationName: string | null | undefined): OperationInfo {
  const operation = getOperationAST(document, operationName);
  return { name: operation?.name?.value, type: operation?.operation ?? 'query' };
}

/** Span-safe name: the client's name when it is a plain identifier, else anonymous/invalid. */
export function safeOperationName(name: string | undefined): string {
  if (name === undefined) return 'anonymous';
  return /^[A-Za-z0-9_]{1,64}$/.test(name) ? name : 'invalid';
}
